/// @file
/// @brief Where a cold call's CPU time went, by shared object: an opt-in sampler
/// (`WARMUP_CPU_SAMPLING`, `set_cpu_sampling`) that runs during a site's first call only.
///
/// Each thread that samples has a tick on its own CPU time (cpu_tick_source.hpp: a perf_event
/// task clock, or a timer on the thread's CPU clock), which sends it SIGPROF every interval of CPU
/// it spends, and never while it waits: a blocking system call is never interrupted (a tick on
/// the wall clock made `poll`, `select`, `epoll_wait`, `nanosleep` and `sem_timedwait` return EINTR
/// in measured programs). The handler keeps the interrupted program counter, the time and the
/// thread's CPU clock in a buffer of the thread's, and each sample stands for the CPU time the
/// thread spent since the one before: no allocation, no lock, no thread-local access (the buffer
/// comes in the signal's value, or is found by the task clock's descriptor). Once the call ends
/// the tick is disarmed and the samples go to the cause store; `snapshot()` maps each to its shared
/// object with `dladdr` and splits the part of the call that no CUPTI record explains among them.
///
/// The program's own profiling is never disturbed: SIGPROF is taken only while its disposition is
/// the default (or the library's own); a program or profiler with a SIGPROF handler of its own
/// keeps it, sampling stays off and the report says why. The copy of the library that installs
/// the handler stays loaded to the process's end, so the handler never dangles after a dlclose.
///
/// The sample is the leaf frame: time spent in libc or the dynamic loader on behalf of a library
/// counts as libc's or the loader's; with the task clock, CPU time in the kernel is the kernel's.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "warmup/detail/analysis/cpu_tick_source.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {


inline std::uintptr_t interrupted_pc(const void* context) noexcept {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__linux__) && defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__linux__) && defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

/// A clock's reading in ns (async-signal-safe). CLOCK_MONOTONIC is steady_clock's on Linux.
inline std::uint64_t clock_ns(clockid_t which) noexcept {
  timespec t{};
  ::clock_gettime(which, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

/// The buffer a SIGPROF is for: a CPU-clock timer's carries it, a task clock's names its
/// descriptor (a signal of the program's, or a stray one, names neither).
inline sample_buffer* buffer_signalled(const siginfo_t* info) noexcept {
  if (info == nullptr) return nullptr;
  if (info->si_code == SI_TIMER) {
    auto* b = static_cast<sample_buffer*>(info->si_value.sival_ptr);
    return b != nullptr && sampler_state().known(b) ? b : nullptr;
  }
  if (info->si_code == POLL_IN || info->si_code == POLL_HUP) return sampler_state().with_fd(info->si_fd);
  return nullptr;
}

/// The handler: async-signal-safe (clock_gettime and atomics on memory that is never freed).
inline void on_cpu_sample(int, siginfo_t* info, void* context) noexcept {
  sample_buffer* b = buffer_signalled(info);
  if (b == nullptr || b->magic != sample_buffer::tag) return;
  if (!b->armed.load(std::memory_order_relaxed)) return;
  const int saved = errno;
  const std::uint32_t i = b->used.load(std::memory_order_relaxed);
  if (i < sample_buffer::capacity) {
    b->samples[i] = {clock_ns(CLOCK_MONOTONIC), interrupted_pc(context), clock_ns(CLOCK_THREAD_CPUTIME_ID)};
    b->used.store(i + 1, std::memory_order_release);
  } else {
    b->lost.fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved;
}

/// Why sampling cannot run now, or nullptr where it can: takes SIGPROF if nobody holds it.
inline const char* claim_sigprof() noexcept {
  if constexpr (!cpu_sampling_supported) return "CPU sampling is not supported on this platform";
  sampler_shared& s = sampler_state();
  struct sigaction now {};
  if (::sigaction(SIGPROF, nullptr, &now) != 0) return "SIGPROF's disposition could not be read";
  const bool has_info = (now.sa_flags & SA_SIGINFO) != 0;
  auto* const installed = s.handler.load(std::memory_order_acquire);
  if (has_info && installed != nullptr && now.sa_sigaction == installed) return nullptr;
  if (has_info || now.sa_handler != SIG_DFL)
    return "SIGPROF has a handler or disposition of the program's (a profiler?); it keeps it";
  static std::mutex m;  // two threads claiming at once install one handler
  std::lock_guard<std::mutex> lock(m);
  struct sigaction ours {};
  ours.sa_sigaction = &on_cpu_sample;
  ours.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&ours.sa_mask);
  if (::sigaction(SIGPROF, &ours, nullptr) != 0) return "SIGPROF's handler could not be set";
  s.handler.store(&on_cpu_sample, std::memory_order_release);
  // The handler's code is in this copy: it must outlive every timer, so this copy stays loaded.
  Dl_info self{};
  if (::dladdr(reinterpret_cast<const void*>(&on_cpu_sample), &self) != 0 && self.dli_fname != nullptr &&
      *self.dli_fname != '\0')
    (void)::dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  return nullptr;
}

/// Where the calling thread's sampler stands, in a plain variable, so that a thread that never
/// samples never makes the sampler (whose destructor would pin this copy of the library until
/// the thread ends).
enum class sampler_stage : unsigned char { none, made, armed };
inline thread_local sampler_stage thread_sampling = sampler_stage::none;

/// The calling thread's sampler: one tick source, made at its first sampled call; armed from
/// the start of a first call to its end (the outermost, where first calls nest).
class thread_sampler {
 public:
  thread_sampler() = default;
  thread_sampler(const thread_sampler&) = delete;
  thread_sampler& operator=(const thread_sampler&) = delete;
  ~thread_sampler() {
    tick_.close(buffer_);
    if (buffer_ != nullptr) {
      buffer_->armed.store(false, std::memory_order_relaxed);
      sampler_state().give_back(buffer_);
    }
  }

  /// Arms the tick for a call of `owner`, unless a call of this thread is already sampled.
  /// Returns why it could not, or nullptr where it samples (or was already sampling).
  const char* begin(const void* owner, std::uint64_t interval_ns) noexcept {
    if (owner_ != nullptr) return nullptr;
    if (const char* why = claim_sigprof()) return why;
    sampler_shared& shared = sampler_state();
    if (buffer_ == nullptr && (buffer_ = shared.take()) == nullptr)
      return "more threads sampled than the library keeps buffers for (1024)";
    if (tick_.kind() == tick_kind::none || tick_.lost(buffer_)) {
      if (const char* why = tick_.make(buffer_, shared.preferred.load(std::memory_order_relaxed), interval_ns))
        return why;
      shared.used_tick.store(tick_.kind(), std::memory_order_relaxed);
      if (tick_.refused_errno() != 0) shared.task_clock_refused.store(tick_.refused_errno(), std::memory_order_relaxed);
      thread_sampling = sampler_stage::made;
    }
    buffer_->used.store(0, std::memory_order_relaxed);
    buffer_->lost.store(0, std::memory_order_relaxed);
    buffer_->user_period_ns = tick_.kind() == tick_kind::task_clock ? interval_ns : 0;
    buffer_->armed_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    buffer_->armed.store(true, std::memory_order_relaxed);
    if (!tick_.arm(interval_ns)) {
      buffer_->armed.store(false, std::memory_order_relaxed);
      return "the sampler's tick could not be armed";
    }
    owner_ = owner;
    thread_sampling = sampler_stage::armed;
    return nullptr;
  }

  /// The clock of `owner`'s call starts now, the thread's CPU clock reading `cpu_ns`: its first
  /// sample stands for the CPU time since then, not since the tick was armed (the library's own
  /// work between). A call nested in the sampled one changes nothing.
  void weigh_from(const void* owner, std::uint64_t cpu_ns) noexcept {
    if (owner_ != nullptr && owner_ == owner && buffer_ != nullptr) buffer_->armed_cpu_ns = cpu_ns;
  }

  /// Ends the sampled call of `owner`: disarms and hands back its samples. Another owner's call
  /// (nested inside the sampled one) leaves the tick running and returns false.
  bool end(const void* owner, sampled_call& out) noexcept {
    if (owner_ == nullptr || owner_ != owner) return false;
    owner_ = nullptr;
    thread_sampling = sampler_stage::made;
    tick_.disarm();  // a signal it raised was delivered on return
    buffer_->armed.store(false, std::memory_order_relaxed);
    const std::uint32_t n = buffer_->used.load(std::memory_order_acquire);
    out.armed_cpu_ns = buffer_->armed_cpu_ns;
    out.user_period_ns = buffer_->user_period_ns;
    out.lost = buffer_->lost.load(std::memory_order_relaxed);
    WARMUP_TRY {
      out.samples.assign(buffer_->samples, buffer_->samples + n);
    } WARMUP_CATCH_ALL {
      return false;
    }
    return true;
  }

  /// In a forked child: the parent's tick is not the child's (cpu_tick_source::forget); the
  /// buffer is kept.
  void forget_after_fork() noexcept {
    tick_.forget();
    owner_ = nullptr;
    thread_sampling = sampler_stage::made;
    if (buffer_ != nullptr) buffer_->armed.store(false, std::memory_order_relaxed);
  }

 private:
  cpu_tick_source tick_;
  sample_buffer* buffer_ = nullptr;
  const void* owner_ = nullptr;
};

inline thread_sampler& my_sampler() noexcept {
  static thread_local thread_sampler s;
  return s;
}

/// The report's sampling line: the status set (off, or its interval), and what ticked.
inline std::string sampling_line(std::string status) {
  if (status.rfind("every ", 0) != 0) return status;
  const sampler_shared& s = sampler_state();
  switch (s.used_tick.load(std::memory_order_relaxed)) {
    case tick_kind::task_clock:
      return status + " (perf_event task clock; time in the kernel: [kernel])";
    case tick_kind::cpu_timer: {
      const int refused = s.task_clock_refused.load(std::memory_order_relaxed);
      return status + " (a timer on the thread's CPU clock, checked at the kernel's tick" +
             (refused != 0 ? std::string(": perf_event_open refused, ") + std::strerror(refused) : std::string()) + ")";
    }
    case tick_kind::none:
      break;
  }
  return status;
}

/// The file name of the shared object holding `pc` ("libcudnn_heuristic.so.9"), "[unknown]"
/// where none does (JIT-generated code, an object unloaded since), "[kernel]" for `kernel_pc`.
inline std::string object_of(std::uintptr_t pc) {
  if (pc == kernel_pc) return "[kernel]";
  Dl_info info{};
  if (pc == 0 || ::dladdr(reinterpret_cast<const void*>(pc), &info) == 0 || info.dli_fname == nullptr ||
      *info.dli_fname == '\0')
    return "[unknown]";
  const std::string path = info.dli_fname;
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
