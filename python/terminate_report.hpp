// The report of a multiprocessing child that its parent ends with SIGTERM: `Pool.terminate()`,
// which leaving a Pool's `with` block calls, sends it to every worker still alive, and the
// signal's default action ends a process with no exit handler run. Armed in such a child only
// (warmup/_child_processes.py), and only where SIGTERM's action is the default: the handler wakes
// a thread of this module's, which writes WARMUP_REPORT's report (write_report_at_exit_now) and
// then ends the process by SIGTERM's default action, as the signal would have.
//
// Why a thread, not a Python handler nor the C handler itself: a report needs memory, which no
// signal handler may take; a Python handler runs only when the main thread next runs Python code,
// so a worker inside a long C call (a NumPy kernel) would no longer end at once, and its parent's
// terminate() would wait for it. The thread writes while the program runs on: the process ends a
// report's writing later than it would have, and by the same signal.
#pragma once

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

#include "warmup/report_file.hpp"

namespace warmup_python {

/// What the handler and the writing thread share. Never freed: the thread may still wait on it
/// while the process exits.
struct terminate_report {
  sem_t wake;
  std::atomic<pid_t> armed_in{0};  ///< the process whose thread waits; a forked child's is not its own
  std::mutex writing;              ///< held while a report is written (write_child_report)
};

inline terminate_report& terminate_state() {
  static terminate_report* t = new terminate_report;
  return *t;
}

/// WARMUP_REPORT's report now, once (write_report_at_exit_now): a child's last act, from the
/// program's thread as it ends or from the thread that SIGTERM wakes, whichever comes first. The
/// other waits until the report is whole: a worker of a Pool being terminated often ends on its
/// own at the same moment, and SIGTERM must not end it half-way through writing. Returns whether
/// this call wrote it.
inline bool write_child_report() noexcept {
  const std::lock_guard<std::mutex> lock(terminate_state().writing);
  return warmup::write_report_at_exit_now();
}

/// SIGTERM's handler: wakes the writing thread. In a process forked since it was armed (no such
/// thread there), the default action, at once.
extern "C" inline void report_then_terminate(int) {
  const int saved = errno;
  terminate_report& t = terminate_state();
  if (t.armed_in.load(std::memory_order_relaxed) == ::getpid()) {
    (void)::sem_post(&t.wake);
  } else {
    (void)std::signal(SIGTERM, SIG_DFL);
    (void)::raise(SIGTERM);  // blocked in its own handler: delivered as the handler returns
  }
  errno = saved;
}

/// The writing thread: waits for SIGTERM, writes the report, and ends the process by the
/// signal's default action.
inline void* write_then_terminate(void*) {
  terminate_report& t = terminate_state();
  while (::sem_wait(&t.wake) != 0) {
  }
  (void)write_child_report();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  (void)::sigaction(SIGTERM, &default_action, nullptr);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  (void)::pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
  (void)::raise(SIGTERM);  // to this thread, which no longer blocks it: the process ends
  for (;;) ::pause();
}

/// Arms the report on SIGTERM in this process, where SIGTERM's action is the default (a handler
/// of the program's, or SIGTERM ignored, stays as it is); again in a forked child. Returns whether
/// it is armed.
///
///     _warmup._report_on_sigterm()   # in a multiprocessing child
inline bool arm_terminate_report() noexcept {
  terminate_report& t = terminate_state();
  const pid_t self = ::getpid();
  if (t.armed_in.load(std::memory_order_relaxed) == self) return true;
  struct sigaction now {};
  if (::sigaction(SIGTERM, nullptr, &now) != 0 || (now.sa_flags & SA_SIGINFO) != 0) return false;
  if (now.sa_handler != SIG_DFL && now.sa_handler != report_then_terminate) return false;
  if (::sem_init(&t.wake, 0, 0) != 0) return false;
  // The thread takes none of the program's signals (SIGTERM goes to the program's threads).
  sigset_t all, was;
  sigfillset(&all);
  (void)::pthread_sigmask(SIG_SETMASK, &all, &was);
  pthread_t thread;
  const bool started = ::pthread_create(&thread, nullptr, write_then_terminate, nullptr) == 0;
  (void)::pthread_sigmask(SIG_SETMASK, &was, nullptr);
  if (!started) return false;
  (void)::pthread_detach(thread);
  t.armed_in.store(self, std::memory_order_relaxed);
  struct sigaction handler {};
  handler.sa_handler = report_then_terminate;
  sigemptyset(&handler.sa_mask);
  handler.sa_flags = SA_RESTART;  // the program's system calls go on as if no signal had come
  return ::sigaction(SIGTERM, &handler, nullptr) == 0;
}

}  // namespace warmup_python
