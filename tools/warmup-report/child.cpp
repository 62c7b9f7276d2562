// The program as the launcher's child (child.hpp).
#include "child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

extern char** environ;

namespace {

/// The signals waited for: the child's end, and those passed on to it.
sigset_t waited_for() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&s, sig);
  return s;
}

}  // namespace

int start_and_wait(char* const argv[], pid_t& pid, int& status, char* const envp[], const char* output) {
  // The signals are blocked and taken with sigwaitinfo: none is lost between the start and the
  // wait, and each comes with who sent it. The child gets the mask the launcher was given.
  const sigset_t waited = waited_for();
  sigset_t before;
  sigprocmask(SIG_BLOCK, &waited, &before);
  struct sigaction chld {};
  if (sigaction(SIGCHLD, nullptr, &chld) == 0 && chld.sa_handler == SIG_IGN) signal(SIGCHLD, SIG_DFL);  // else no status
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &before);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t to_file;
  posix_spawn_file_actions_init(&to_file);
  if (output != nullptr) {
    posix_spawn_file_actions_addopen(&to_file, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&to_file, 1, 2);
  }
  const int e = posix_spawnp(&pid, argv[0], output != nullptr ? &to_file : nullptr, &attr, argv,
                             envp != nullptr ? envp : environ);
  posix_spawn_file_actions_destroy(&to_file);
  posix_spawnattr_destroy(&attr);
  if (e != 0) {
    sigprocmask(SIG_SETMASK, &before, nullptr);
    return e;
  }
  for (;;) {
    siginfo_t info{};
    const int sig = sigwaitinfo(&waited, &info);
    if (sig < 0) continue;  // EINTR: a signal not waited for, handled
    if (sig == SIGCHLD) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) return 0;
      if (w < 0 && errno == ECHILD) {  // reaped by no one we know of: nothing to wait for
        status = 255 << 8;
        return 0;
      }
      continue;  // another child of ours, or ours stopped
    }
    // Sent by a process (kill(2): si_code <= 0), not by the terminal, which signals the whole
    // foreground process group, the child included.
    if (info.si_code <= 0) kill(pid, sig);
  }
}

int exit_as(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (!WIFSIGNALED(status)) return 1;
  const int sig = WTERMSIG(status);
  std::cout.flush();
  std::cerr.flush();
  const struct rlimit no_core {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // the child's core file, if any, is the one to read
  signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  raise(sig);  // pending while blocked: delivered at the unblock
  sigprocmask(SIG_UNBLOCK, &one, nullptr);
  return 128 + sig;  // a signal whose default is to go on (SIGCHLD, SIGWINCH) or that cannot be raised
}

const char* signal_words(int sig, char (&buffer)[64]) {
  const char* name = strsignal(sig);
  std::snprintf(buffer, sizeof buffer, "signal %d (%s)", sig, name != nullptr ? name : "unknown");
  return buffer;
}
