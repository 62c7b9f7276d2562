/// @file
/// @brief What makes the CPU sampler's tick (detail/analysis/cpu_sampler.hpp): a thread's own
/// CPU time, never the wall clock; made at a sampled call's start and ended at its end.
///
/// A tick that comes while a thread is blocked in `poll`, `select`, `epoll_wait`, `nanosleep` or
/// `sem_timedwait` makes the call return EINTR (those are never restarted, whatever SA_RESTART
/// says), so a program measured would fail where it does not unmeasured. Hence a source that only
/// ticks while the thread runs its own code:
/// - first choice, a `perf_event` task clock of the thread with user-mode samples only
///   (`exclude_kernel`): an hrtimer that runs while the thread is on a CPU and fires every
///   interval of it, precise to the interval, allowed at `perf_event_paranoid` 2 (the default) as
///   it asks for no kernel samples. A tick that finds the thread in the kernel is dropped, so no
///   signal is ever pending when a system call goes to sleep; the CPU time such ticks stood for
///   is put on the kernel (cpu_samples.hpp, `user_period_ns`). The overflow reaches the thread as
///   `sample_signal` (F_SETSIG, F_SETOWN_EX), with the event's descriptor in `si_fd`;
/// - where that is refused (a seccomp filter, `perf_event_paranoid` 3), a POSIX timer on the
///   thread's CPU clock. The kernel checks it at its tick (4 ms at HZ=250), so a first call gets
///   fewer samples, and a tick that lands in a system call's own CPU time, just before the call
///   sleeps, can still interrupt it: rare, and said in the report's sampling line.
///
/// A descriptor is the program's as much as the library's: a daemon closes every number it did
/// not open and reuses them. So the tick lives only while its call is sampled, takes no
/// descriptor where fewer than `sampler_shared::descriptor_margin` would be left, and is touched
/// again (disabled, closed) only after `still_ours` proves the number still names the event made:
/// the same file (fstat) and the same event id (PERF_EVENT_IOC_ID, unique in the system).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/perf_event.h>
#endif

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// What `open_tick` made, or why not.
enum class tick_open : unsigned char {
  made,
  refused,          ///< neither kind could be made (said for the process)
  few_descriptors,  ///< the program has fewer than the margin left: this call goes unsampled
};

/// Whether `t`'s descriptor is still the event the library opened. Touches nothing of a
/// descriptor that is not: fstat reads any file harmlessly, and the perf ioctl is asked only of
/// the perf events' own anonymous file.
inline bool still_ours(const tick_handle& t) noexcept {
#if defined(__linux__)
  if (t.kind != tick_kind::task_clock || t.fd < 0) return false;
  struct stat st {};
  if (::fstat(t.fd, &st) != 0 || static_cast<std::uint64_t>(st.st_dev) != t.dev ||
      static_cast<std::uint64_t>(st.st_ino) != t.ino)
    return false;
  std::uint64_t id = 0;
  return ::ioctl(t.fd, PERF_EVENT_IOC_ID, &id) == 0 && id == t.id;
#else
  (void)t;
  return false;
#endif
}

/// Whether the program has fewer than `sampler_shared::descriptor_margin` descriptors left,
/// judged by the one just opened: descriptors are handed out lowest first, so every number
/// below `fd` is taken.
inline bool descriptors_short(int fd) noexcept {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return false;
  return static_cast<rlim_t>(fd) + static_cast<rlim_t>(sampler_shared::descriptor_margin) >= r.rlim_cur;
}

#if defined(__linux__)
inline tick_open open_task_clock(tick_handle& t, std::uint64_t interval_ns, long tid, int& refused) noexcept {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = interval_ns;
  a.wakeup_events = 1;
  a.disabled = 1;
  a.exclude_kernel = 1;  // no signal pending in a system call; also what paranoid 2 allows
  a.exclude_hv = 1;
  const int fd = static_cast<int>(::syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) {
    refused = errno;
    return tick_open::refused;
  }
  if (descriptors_short(fd)) {
    (void)::close(fd);  // just opened: the library's own
    return tick_open::few_descriptors;
  }
  struct stat st {};
  std::uint64_t id = 0;
  f_owner_ex owner{F_OWNER_TID, static_cast<pid_t>(tid)};
  if (::fstat(fd, &st) != 0 || ::ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0 || ::fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
      ::fcntl(fd, F_SETSIG, sample_signal) != 0 || ::fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
    refused = errno;
    (void)::close(fd);
    return tick_open::refused;
  }
  t.kind = tick_kind::task_clock;
  t.fd = fd;
  t.id = id;
  t.dev = static_cast<std::uint64_t>(st.st_dev);
  t.ino = static_cast<std::uint64_t>(st.st_ino);
  t.period_ns = interval_ns;
  return tick_open::made;
}
#endif

/// A timer's notification: `sample_signal` to thread `tid`, carrying buffer `b`.
inline sigevent sample_signal_to(long tid, sample_buffer* b) noexcept {
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = sample_signal;
  ev.sigev_value.sival_ptr = b;
#if defined(sigev_notify_thread_id)
  ev.sigev_notify_thread_id = static_cast<pid_t>(tid);
#else
  ev._sigev_un._tid = static_cast<pid_t>(tid);
#endif
  return ev;
}

/// Makes a tick for thread `tid` (the caller) into `b->tick`, disabled. `refused` gets the
/// errno that refused the task clock, where it was.
inline tick_open open_tick(sample_buffer* b, tick_kind wanted, std::uint64_t interval_ns, long tid,
                           int& refused) noexcept {
  tick_handle& t = b->tick;
  t = tick_handle{};
#if defined(__linux__)
  if (wanted == tick_kind::task_clock) {
    const tick_open r = open_task_clock(t, interval_ns, tid, refused);
    if (r != tick_open::refused) return r;
  }
#endif
  sigevent ev = sample_signal_to(tid, b);
  if (::timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t.timer) != 0) return tick_open::refused;
  t.kind = tick_kind::cpu_timer;
  t.period_ns = interval_ns;
  return tick_open::made;
}

/// Starts the tick: every `t.period_ns` of the thread's CPU time from now.
inline bool arm_tick(tick_handle& t) noexcept {
#if defined(__linux__)
  if (t.kind == tick_kind::task_clock)
    return ::ioctl(t.fd, PERF_EVENT_IOC_RESET, 0) == 0 && ::ioctl(t.fd, PERF_EVENT_IOC_ENABLE, 0) == 0;
#endif
  if (t.kind != tick_kind::cpu_timer) return false;
  itimerspec every{};
  every.it_interval.tv_sec = every.it_value.tv_sec = static_cast<time_t>(t.period_ns / 1'000'000'000u);
  every.it_interval.tv_nsec = every.it_value.tv_nsec = static_cast<long>(t.period_ns % 1'000'000'000u);
  return ::timer_settime(t.timer, 0, &every, nullptr) == 0;
}

/// Stops and ends the tick (a signal it raised on the calling thread was delivered on return).
/// A descriptor that is no longer the event made is left as it is: the program's now.
inline void end_tick(tick_handle& t) noexcept {
#if defined(__linux__)
  if (t.kind == tick_kind::task_clock && still_ours(t)) {
    (void)::ioctl(t.fd, PERF_EVENT_IOC_DISABLE, 0);
    (void)::close(t.fd);
  }
#endif
  if (t.kind == tick_kind::cpu_timer) (void)::timer_delete(t.timer);
  t = tick_handle{};
}

/// In a forked child, a tick of the parent's: its timer is not inherited (its id may name one of
/// the child's own later); its task clock's descriptor is, and is closed where it is still the
/// event, never disabled (that would stop the parent's too).
inline void drop_inherited_tick(tick_handle& t) noexcept {
  if (t.kind == tick_kind::task_clock && still_ours(t)) (void)::close(t.fd);
  t = tick_handle{};
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
