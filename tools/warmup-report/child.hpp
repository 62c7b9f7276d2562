// The program `warmup-report run` starts, as its child (child.cpp): started, sent the signals the
// launcher is sent, waited for, and its end made the launcher's own.
#pragma once

#include <sys/types.h>

/// Starts argv[0] (looked for in PATH, as a shell does) with this process's environment (or
/// `envp`, where given), and waits for it to end. SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher by a process
/// (`kill`, a job scheduler) are passed on to it; those a terminal sends reach it by themselves,
/// as it is in the launcher's process group, and are not sent twice. Returns 0 with its pid and
/// wait status, or the errno of a start that failed (ENOENT: no such program). `output`, where
/// given: a file (created, or emptied) that takes its standard output and error.
/// \code
///   pid_t pid; int status;
///   if (start_and_wait(argv, pid, status) == 0) return exit_as(status);
/// \endcode
int start_and_wait(char* const argv[], pid_t& pid, int& status, char* const envp[] = nullptr,
                   const char* output = nullptr);

/// The launcher's exit status for a child that ended with `status`: its exit code; where a
/// signal ended it, that signal raised on the launcher with its default action (no core file),
/// so that the shell sees the same end (128 + the signal where the launcher outlives it).
int exit_as(int status);

/// "signal 15 (Terminated)": the signal that ended a child, as the messages name it.
const char* signal_words(int sig, char (&buffer)[64]);
