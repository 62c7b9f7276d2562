/// @file
/// @brief What makes the CPU sampler's SIGPROF tick (detail/analysis/cpu_sampler.hpp): a thread's
/// own CPU time, never the wall clock.
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
///   SIGPROF (F_SETSIG, F_SETOWN_EX), with the event's descriptor in `si_fd`;
/// - where that is refused (a seccomp filter, `perf_event_paranoid` 3), a POSIX timer on the
///   thread's CPU clock. The kernel checks it at its tick (4 ms at HZ=250), so a first call gets
///   fewer samples, and a tick that lands in a system call's own CPU time, just before the call
///   sleeps, can still interrupt it: rare, and said in the report's sampling line.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/perf_event.h>
#endif

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "warmup/detail/analysis/host_probe.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A thread's tick: made once, armed for each sampled call, closed with the thread.
class cpu_tick_source {
 public:
  /// Makes the source for the calling thread, which `b` will take the samples of. Returns why
  /// neither kind could be made, or nullptr.
  const char* make(sample_buffer* b, tick_kind wanted, std::uint64_t interval_ns) noexcept {
    if (wanted == tick_kind::task_clock && open_task_clock(b, interval_ns)) return nullptr;
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev.sigev_value.sival_ptr = b;
#if defined(sigev_notify_thread_id)
    ev.sigev_notify_thread_id = static_cast<pid_t>(this_thread_id());
#else
    ev._sigev_un._tid = static_cast<pid_t>(this_thread_id());
#endif
    if (::timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer_) != 0)
      return "neither a perf_event task clock nor a timer on the thread's CPU clock could be made";
    kind_ = tick_kind::cpu_timer;
    return nullptr;
  }

  tick_kind kind() const noexcept { return kind_; }

  /// Whether the task clock's descriptor is still the event made: a program that closes every
  /// descriptor (as daemons do) may have closed it, and its number may name the program's own
  /// file since. Then it is forgotten, never touched again, and `make` runs anew.
  bool lost(sample_buffer* b) noexcept {
    if (kind_ != tick_kind::task_clock || ::fcntl(fd_, F_GETSIG) == SIGPROF) return false;
    if (b != nullptr) b->fd.store(-1, std::memory_order_relaxed);
    kind_ = tick_kind::none;
    return true;
  }
  /// Why the task clock was refused (an errno), 0 where it was not tried or not refused.
  int refused_errno() const noexcept { return refused_errno_; }

  bool arm(std::uint64_t interval_ns) noexcept {
    if (kind_ == tick_kind::task_clock) {
#if defined(__linux__)
      if (interval_ns != period_ns_) {
        std::uint64_t p = interval_ns;
        if (::ioctl(fd_, PERF_EVENT_IOC_PERIOD, &p) != 0) return false;
        period_ns_ = interval_ns;
      }
      return ::ioctl(fd_, PERF_EVENT_IOC_RESET, 0) == 0 && ::ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0) == 0;
#endif
    }
    if (kind_ != tick_kind::cpu_timer) return false;
    itimerspec every{};
    every.it_interval.tv_sec = every.it_value.tv_sec = static_cast<time_t>(interval_ns / 1'000'000'000u);
    every.it_interval.tv_nsec = every.it_value.tv_nsec = static_cast<long>(interval_ns % 1'000'000'000u);
    return ::timer_settime(timer_, 0, &every, nullptr) == 0;
  }

  void disarm() noexcept {
#if defined(__linux__)
    if (kind_ == tick_kind::task_clock) (void)::ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
#endif
    if (kind_ == tick_kind::cpu_timer) {
      const itimerspec stop{};
      (void)::timer_settime(timer_, 0, &stop, nullptr);
    }
  }

  void close(sample_buffer* b) noexcept {
    if (kind_ == tick_kind::task_clock) {
      if (b != nullptr) b->fd.store(-1, std::memory_order_relaxed);
      (void)::close(fd_);
    }
    if (kind_ == tick_kind::cpu_timer) (void)::timer_delete(timer_);
    kind_ = tick_kind::none;
  }

  /// In a forked child: the parent's timer is not inherited (its id may name one of the child's
  /// own later); the task clock's descriptor is, and counts the parent's thread: it is closed by
  /// `sampler_shared::close_inherited`, never disabled (that would stop the parent's).
  void forget() noexcept { kind_ = tick_kind::none; }

 private:
  bool open_task_clock(sample_buffer* b, std::uint64_t interval_ns) noexcept {
#if defined(__linux__)
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
      refused_errno_ = errno;
      return false;
    }
    f_owner_ex owner{F_OWNER_TID, static_cast<pid_t>(this_thread_id())};
    if (::fcntl(fd, F_SETOWN_EX, &owner) != 0 || ::fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
        ::fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
      refused_errno_ = errno;
      (void)::close(fd);
      return false;
    }
    fd_ = fd;
    period_ns_ = interval_ns;
    b->fd.store(fd, std::memory_order_release);
    kind_ = tick_kind::task_clock;
    return true;
#else
    (void)b;
    (void)interval_ns;
    return false;
#endif
  }

  tick_kind kind_ = tick_kind::none;
  int fd_ = -1;
  std::uint64_t period_ns_ = 0;
  timer_t timer_{};
  int refused_errno_ = 0;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
