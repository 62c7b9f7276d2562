/// @file
/// @brief Where a cold call's CPU time went, by shared object: an opt-in sampler
/// (`WARMUP_CPU_SAMPLING`, `set_cpu_sampling`) that runs during a site's first call only.
///
/// A thread in a sampled first call has a tick on its own CPU time (cpu_tick_source.hpp: a
/// perf_event task clock, or a timer on the thread's CPU clock), made at the call's start and
/// ended at its end, which sends it `sample_signal` (SIGURG) every interval of CPU it spends, and
/// never while it waits: a blocking system call is never interrupted (a tick on the wall clock
/// made `poll`, `select`, `epoll_wait`, `nanosleep` and `sem_timedwait` return EINTR in measured
/// programs). The handler keeps the interrupted program counter, the time and the thread's CPU
/// clock in the call's buffer, and each sample stands for the CPU time the thread spent since the
/// one before: no allocation, no lock, no thread-local access (the buffer comes in the signal's
/// value, or is found by the task clock's descriptor and the thread). Once the call ends the tick
/// is ended and the samples go to the cause store; `snapshot()` maps each to its shared object
/// with `dladdr` and splits the part of the call that no CUPTI record explains among them.
///
/// What the sampler holds, and for how long: the signal's handler from the first sampled call to
/// the process's end (only while the signal's disposition was the default: a program with a
/// handler of its own, or that ignores it, keeps it, sampling stays off and the report says why);
/// a tick and a buffer from a first call's start to its end, nothing between calls. The copy of
/// the library that installs the handler stays loaded to the process's end, so the handler never
/// dangles after a dlclose.
///
/// The sample is the leaf frame: time spent in libc or the dynamic loader on behalf of a library
/// counts as libc's or the loader's; with the task clock, CPU time in the kernel is the kernel's.
///
/// The process's other threads are sampled too, for the same span (`arm_others`): a first call
/// may wait on them, and what they ran meanwhile is named apart (`attribution::other_threads`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <dirent.h>
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <pthread.h>
#include <unistd.h>

#include <utility>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "warmup/detail/analysis/cpu_tick_source.hpp"
#include "warmup/detail/analysis/host_probe.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The sampler's process-wide part, kept in the process's cause store (detail/runtime/cause_store.hpp).
sampler_shared& sampler_state() noexcept;


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

/// The buffer a tick is for: a CPU-clock timer's signal carries it, a task clock's names its
/// descriptor; either way it must sample the thread the signal reached (a signal of the
/// program's, a stray one, or a stale descriptor number's names none).
inline sample_buffer* buffer_signalled(const siginfo_t* info, long tid) noexcept {
  if (info == nullptr) return nullptr;
  if (info->si_code == SI_TIMER) {
    auto* b = static_cast<sample_buffer*>(info->si_value.sival_ptr);
    if (b == nullptr || !sampler_state().known(b)) return nullptr;
    const bool caller = b->tid.load(std::memory_order_relaxed) == tid;
    return caller != b->any_thread.load(std::memory_order_relaxed) ? b : nullptr;  // the others' never the caller's
  }
  if (info->si_code == POLL_IN || info->si_code == POLL_HUP) return sampler_state().with_fd(info->si_fd, tid);
  return nullptr;
}

/// Keeps one of the caller's own samples in its buffer, thinned (sample_buffer::stride): a full
/// buffer keeps its odd samples, each then standing for its pair's CPU time, and from there one
/// tick in twice as many is kept, the one that falls a whole new stride after the last kept (this
/// tick, an old stride after it, is passed over). Bounded work in the handler: one pass over the
/// buffer each time it fills, ever fewer times as the call goes on.
inline void keep_thinned(sample_buffer& b, const cpu_sample& x) noexcept {
  if (b.to_skip != 0) {
    --b.to_skip;
    return;
  }
  const std::uint32_t i = b.used.load(std::memory_order_relaxed);
  if (i == sample_buffer::capacity) {  // the stride reaches 2^32 after 2^43 ticks: 28 years at 100 us
    for (std::uint32_t k = 0; k < sample_buffer::capacity / 2; ++k) b.samples[k] = b.samples[2 * k + 1];
    b.used.store(sample_buffer::capacity / 2, std::memory_order_release);
    b.to_skip = b.stride - 1;
    b.stride *= 2;
    return;
  }
  b.samples[i] = x;
  b.used.store(i + 1, std::memory_order_release);
  b.to_skip = b.stride - 1;
}

/// The handler: async-signal-safe (clock_gettime, gettid and atomics on memory that is never freed).
inline void on_cpu_sample(int, siginfo_t* info, void* context) noexcept {
  const int saved = errno;
  const long tid = static_cast<long>(::syscall(SYS_gettid));
  sample_buffer* b = buffer_signalled(info, tid);
  if (b != nullptr && b->magic == sample_buffer::tag && b->armed.load(std::memory_order_relaxed)) {
    const cpu_sample x{clock_ns(CLOCK_MONOTONIC), interrupted_pc(context), clock_ns(CLOCK_THREAD_CPUTIME_ID), tid};
    if (!b->any_thread.load(std::memory_order_relaxed)) {  // the caller's own: one writer, this thread
      keep_thinned(*b, x);
    } else {  // other threads': handlers on several threads at once
      const std::uint32_t i = b->used.fetch_add(1, std::memory_order_relaxed);
      if (i < sample_buffer::capacity) {
        b->samples[i] = x;
        b->written.fetch_add(1, std::memory_order_release);
      } else {
        b->lost.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
  errno = saved;
}

/// The signals the handler blocks while it runs: the sample signal and SIGXCPU, a pair no
/// program's handler is likely to carry, by which a copy of the library tells another copy's
/// handler (one that does not share its state: built without the exported anchor) from the
/// program's.
inline sigset_t handler_mask() noexcept {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sample_signal);
  sigaddset(&s, SIGXCPU);
  return s;
}

/// Why a call is not sampled. The first group holds for the process (the report's sampling
/// line says it); the second for one call (a notice says it once).
enum class refusal : unsigned char {
  none,
  unsupported,
  unreadable,
  held_by_program,
  held_by_copy,
  ignored_by_program,
  install_failed,
  no_tick,
  arm_failed,
  signal_blocked,   // first of the calls' own
  few_descriptors,
  too_many_calls,
};

inline bool for_process(refusal r) noexcept { return r != refusal::none && r < refusal::signal_blocked; }

/// Whether this copy's handler is the sample signal's now.
inline bool holds_signal(const struct sigaction& now) noexcept {
  auto* const installed = sampler_state().handler.load(std::memory_order_acquire);
  return (now.sa_flags & SA_SIGINFO) != 0 && installed != nullptr && now.sa_sigaction == installed;
}

inline bool holds_signal() noexcept {
  struct sigaction now {};
  return ::sigaction(sample_signal, nullptr, &now) == 0 && holds_signal(now);
}

/// Takes the sample signal if nobody holds it. Its default action is to ignore it: a program
/// that ignores it explicitly, or handles it, keeps it.
inline refusal claim_signal() noexcept {
  if constexpr (!cpu_sampling_supported) return refusal::unsupported;
  sampler_shared& s = sampler_state();
  struct sigaction now {};
  if (::sigaction(sample_signal, nullptr, &now) != 0) return refusal::unreadable;
  if (holds_signal(now)) return refusal::none;
  if ((now.sa_flags & SA_SIGINFO) != 0 && sigismember(&now.sa_mask, SIGXCPU) == 1 &&
      sigismember(&now.sa_mask, sample_signal) == 1)
    return refusal::held_by_copy;
  if ((now.sa_flags & SA_SIGINFO) != 0 || now.sa_handler == SIG_IGN) {
    return (now.sa_flags & SA_SIGINFO) == 0 ? refusal::ignored_by_program : refusal::held_by_program;
  }
  if (now.sa_handler != SIG_DFL) return refusal::held_by_program;
  WARMUP_TRY {
    std::lock_guard<std::mutex> lock(s.claim);
    struct sigaction ours {};
    ours.sa_sigaction = &on_cpu_sample;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    ours.sa_mask = handler_mask();
    if (::sigaction(sample_signal, &ours, nullptr) != 0) return refusal::install_failed;
    s.handler.store(&on_cpu_sample, std::memory_order_release);
  } WARMUP_CATCH_ALL {
    return refusal::install_failed;
  }
  // The handler's code is in this copy: it must outlive every tick, so this copy stays loaded.
  Dl_info self{};
  if (::dladdr(reinterpret_cast<const void*>(&on_cpu_sample), &self) != 0 && self.dli_fname != nullptr &&
      *self.dli_fname != '\0')
    (void)::dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  return refusal::none;
}

/// Whether the calling thread blocks the sample signal (it would then never be sampled).
inline bool signal_blocked() noexcept {
  sigset_t mask;
  sigemptyset(&mask);
  return ::pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0 && sigismember(&mask, sample_signal) == 1;
}

/// The file of the object holding the handler now installed for the sample signal, or "".
inline std::string signal_holder_object() {
  struct sigaction now {};
  if (::sigaction(sample_signal, nullptr, &now) != 0) return {};
  const void* code = (now.sa_flags & SA_SIGINFO) != 0 ? reinterpret_cast<const void*>(now.sa_sigaction)
                                                      : reinterpret_cast<const void*>(now.sa_handler);
  Dl_info info{};
  if (::dladdr(code, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0') return {};
  const std::string path = info.dli_fname;
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// What a refusal means, in the report's words.
inline std::string refusal_text(refusal r) {
  const std::string where = r == refusal::held_by_program || r == refusal::held_by_copy ? signal_holder_object() : "";
  const std::string in = where.empty() ? std::string() : " (in " + where + ")";
  switch (r) {
    case refusal::none: return {};
    case refusal::unsupported: return "CPU sampling is not supported on this platform";
    case refusal::unreadable: return "SIGURG's disposition could not be read";
    case refusal::held_by_program: return "SIGURG has a handler of the program's" + in + "; it keeps it";
    case refusal::held_by_copy:
      return "SIGURG is held by another copy of warmup in this process" + in +
             ", one that does not share this copy's state (built without the exported anchor): it samples its "
             "own first calls, not these";
    case refusal::ignored_by_program: return "the program ignores SIGURG (SIG_IGN); it keeps that";
    case refusal::install_failed: return "SIGURG's handler could not be set";
    case refusal::no_tick: return "neither a perf_event task clock nor a timer on the thread's CPU clock could be made";
    case refusal::arm_failed: return "the sampler's tick could not be armed";
    case refusal::signal_blocked: return "a thread blocks SIGURG, so no tick can reach it; its first calls are not sampled";
    case refusal::few_descriptors:
      return "paused while the program has fewer than " + std::to_string(sampler_shared::descriptor_margin) +
             " file descriptors left; first calls then are not sampled";
    case refusal::too_many_calls:
      return "more first calls sampled at once than the library keeps buffers for (" +
             std::to_string(sampler_shared::max_buffers) + "); the others are not sampled";
  }
  return {};
}

/// Where the calling thread's sampler stands, in a plain variable (trivially destroyed, so it
/// can still be read after the thread's sampler is gone), so that a thread that never samples
/// never makes the sampler (whose destructor would pin this copy of the library until the
/// thread ends). `gone`: the sampler was destroyed; a scope run later by another thread-local
/// object's destructor is not sampled.
enum class sampler_stage : unsigned char { none, idle, armed, gone };
inline thread_local sampler_stage thread_sampling = sampler_stage::none;

/// The CPU clock of thread `tid` of this process: Linux's encoding of a thread's clock id, as
/// pthread_getcpuclockid makes it for a pthread_t (the library knows the thread by its id only).
inline clockid_t thread_cpu_clock(long tid) noexcept {
  return static_cast<clockid_t>((~static_cast<std::uint32_t>(tid) << 3) | 6u);  // per thread, scheduler time
}

/// What the process's other threads do while a call is sampled (a first call may wait on them:
/// PyTorch's backward runs on its engine thread): a timer on each one's CPU clock, made at the
/// call's start (at most `sample_buffer::others_max`; threads made later are not sampled),
/// signalling that thread into one buffer of their own, owned by the caller's buffer `own`.
/// Like the caller's tick, a timer on a CPU clock fires only while its thread runs, so no
/// blocking call of another thread is cut short either. The directory read is the library's own
/// descriptor, closed at once.
inline void arm_others(sample_buffer* own, long self, std::uint64_t interval_ns) noexcept {
  sampler_shared& shared = sampler_state();
  sample_buffer* o = shared.take();
  if (o == nullptr) return;
  o->used.store(0, std::memory_order_relaxed);
  o->lost.store(0, std::memory_order_relaxed);
  o->written.store(0, std::memory_order_relaxed);
  o->user_period_ns = 0;
  o->others = 0;
  o->tid.store(self, std::memory_order_relaxed);
  o->fd.store(-1, std::memory_order_relaxed);
  o->any_thread.store(true, std::memory_order_relaxed);
  o->owner.store(own, std::memory_order_release);
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(dir)) {
      const long tid = std::strtol(e->d_name, nullptr, 10);
      if (tid <= 0 || tid == self) continue;
      if (o->others == sample_buffer::others_max) break;
      const clockid_t its_clock = thread_cpu_clock(tid);
      timespec now{};
      if (::clock_gettime(its_clock, &now) != 0) continue;  // gone since
      sigevent ev = sample_signal_to(tid, o);
      timer_t timer{};
      if (::timer_create(its_clock, &ev, &timer) != 0) continue;
      o->other_tid[o->others] = tid;
      o->other_timer[o->others] = timer;
      o->other_cpu0[o->others] = static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
      ++o->others;
    }
    ::closedir(dir);
  }
  o->armed.store(true, std::memory_order_release);
  itimerspec every{};
  every.it_interval.tv_sec = every.it_value.tv_sec = static_cast<time_t>(interval_ns / 1'000'000'000u);
  every.it_interval.tv_nsec = every.it_value.tv_nsec = static_cast<long>(interval_ns % 1'000'000'000u);
  for (std::uint32_t i = 0; i < o->others; ++i) (void)::timer_settime(o->other_timer[i], 0, &every, nullptr);
}

/// Ends the other threads' timers of the call whose buffer is `own` and, where `out` is given,
/// hands over their samples, each thread's apart. A signal raised before a timer ended may still
/// be in a handler on its thread: its sample is waited for, briefly, or left out.
inline void end_others(sample_buffer* own, std::vector<other_thread_samples>* out) noexcept {
  // The buffer `own` owns: never `own` itself, which names itself as its owner once seized.
  sampler_shared& shared = sampler_state();
  sample_buffer* o = nullptr;
  const std::uint32_t made = shared.made.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < made && i < sampler_shared::max_buffers && o == nullptr; ++i) {
    sample_buffer* b = shared.buffers[i].load(std::memory_order_relaxed);
    if (b != nullptr && b != own && b->any_thread.load(std::memory_order_relaxed) &&
        b->owner.load(std::memory_order_acquire) == own)
      o = b;
  }
  const void* expected = own;
  if (o == nullptr || !o->owner.compare_exchange_strong(expected, o, std::memory_order_acq_rel)) return;
  o->armed.store(false, std::memory_order_relaxed);
  for (std::uint32_t i = 0; i < o->others; ++i) (void)::timer_delete(o->other_timer[i]);
  const std::uint32_t n = std::min(o->used.load(std::memory_order_acquire), sample_buffer::capacity);
  for (int spins = 0; o->written.load(std::memory_order_acquire) < n && spins < 1000; ++spins) ::sched_yield();
  if (out != nullptr && o->written.load(std::memory_order_acquire) >= n) {
    WARMUP_TRY {
      for (std::uint32_t t = 0; t < o->others; ++t) {
        other_thread_samples each{o->other_tid[t], o->other_cpu0[t], {}};
        for (std::uint32_t i = 0; i < n; ++i)
          if (o->samples[i].tid == each.tid) each.samples.push_back(o->samples[i]);
        if (!each.samples.empty()) out->push_back(std::move(each));
      }
    } WARMUP_CATCH_ALL {
      out->clear();
    }
  }
  shared.give_back(o);
}

/// Takes `b` from `owner`'s call to end its tick: true for the one caller that does (the
/// sampled thread, the thread that ended the call elsewhere, or the thread's exit).
inline bool seize(sample_buffer* b, const void* owner) noexcept {
  const void* expected = owner;
  return owner != nullptr && b->owner.compare_exchange_strong(expected, b, std::memory_order_acq_rel);
}

/// Ends a seized buffer's tick and frees it.
inline void release(sample_buffer* b) noexcept {
  b->armed.store(false, std::memory_order_relaxed);
  end_tick(b->tick);
  end_others(b, nullptr);
  sampler_state().tell_watcher(b->tid.load(std::memory_order_relaxed), false);
  sampler_state().give_back(b);
}

/// The calling thread's sampler: a buffer and its tick, taken at the start of a first call and
/// given back at its end (the outermost, where first calls nest). Between sampled calls it
/// holds no descriptor, no timer and no buffer.
class thread_sampler {
 public:
  thread_sampler() = default;
  thread_sampler(const thread_sampler&) = delete;
  thread_sampler& operator=(const thread_sampler&) = delete;
  ~thread_sampler() {
    if (buffer_ != nullptr && seize(buffer_, owner_)) release(buffer_);
    buffer_ = nullptr;
    thread_sampling = sampler_stage::gone;
  }

  /// Arms a tick for a call of `owner`, unless a call of this thread is already sampled.
  refusal begin(const void* owner, std::uint64_t interval_ns) noexcept {
    forget_if_ended_elsewhere();
    if (buffer_ != nullptr) return refusal::none;  // a nested first call shares the outer's
    if (const refusal r = claim_signal(); r != refusal::none) return r;
    if (signal_blocked()) return refusal::signal_blocked;
    sampler_shared& shared = sampler_state();
    sample_buffer* b = shared.take();
    if (b == nullptr) return refusal::too_many_calls;
    const long tid = static_cast<long>(this_thread_id());
    int refused = 0;
    const tick_open made = open_tick(b, shared.preferred.load(std::memory_order_relaxed), interval_ns, tid, refused);
    if (made != tick_open::made) {
      shared.give_back(b);
      return made == tick_open::few_descriptors ? refusal::few_descriptors : refusal::no_tick;
    }
    shared.used_tick.store(b->tick.kind, std::memory_order_relaxed);
    if (refused != 0) shared.task_clock_refused.store(refused, std::memory_order_relaxed);
    b->used.store(0, std::memory_order_relaxed);
    b->lost.store(0, std::memory_order_relaxed);
    b->stride = 1;
    b->to_skip = 0;
    b->user_period_ns = b->tick.kind == tick_kind::task_clock ? interval_ns : 0;
    b->tid.store(tid, std::memory_order_relaxed);
    b->fd.store(b->tick.kind == tick_kind::task_clock ? b->tick.fd : -1, std::memory_order_relaxed);
    b->owner.store(owner, std::memory_order_release);
    b->armed_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    b->armed.store(true, std::memory_order_release);
    if (!arm_tick(b->tick)) {
      if (seize(b, owner)) release(b);
      return refusal::arm_failed;
    }
    buffer_ = b;
    owner_ = owner;
    thread_sampling = sampler_stage::armed;
    shared.calls_sampled.fetch_add(1, std::memory_order_relaxed);
    arm_others(b, tid, interval_ns);
    shared.tell_watcher(tid, true);
    return refusal::none;
  }

  /// The clock of `owner`'s call starts now, the thread's CPU clock reading `cpu_ns`: its first
  /// sample stands for the CPU time since then, not since the tick was armed (the library's own
  /// work between). A call nested in the sampled one changes nothing.
  void weigh_from(const void* owner, std::uint64_t cpu_ns) noexcept {
    if (owner_ != nullptr && owner_ == owner && buffer_ != nullptr) buffer_->armed_cpu_ns = cpu_ns;
  }

  /// Ends the sampled call of `owner`: ends its tick and hands back its samples. Another owner's
  /// call (nested inside the sampled one) leaves the tick running and returns false.
  bool end(const void* owner, sampled_call& out) noexcept {
    forget_if_ended_elsewhere();
    if (buffer_ == nullptr || owner_ != owner) return false;
    sample_buffer* b = std::exchange(buffer_, nullptr);
    owner_ = nullptr;
    thread_sampling = sampler_stage::idle;
    if (!seize(b, owner)) return false;
    b->armed.store(false, std::memory_order_relaxed);
    end_tick(b->tick);  // a signal it raised was delivered on return
    end_others(b, &out.others);
    sampler_state().tell_watcher(b->tid.load(std::memory_order_relaxed), false);
    const std::uint32_t n = b->used.load(std::memory_order_acquire);
    out.armed_cpu_ns = b->armed_cpu_ns;
    out.stride = b->stride;
    out.user_period_ns = b->user_period_ns * b->stride;  // a kept sample's share of user-mode CPU
    out.lost = b->lost.load(std::memory_order_relaxed);
    // Ticks the program kept from the handler (its own disposition set meanwhile, the signal
    // blocked) were never counted: the time after the last sample is unknown, not the kernel's.
    out.cut_short = out.lost != 0 || !holds_signal() || signal_blocked();
    bool copied = true;
    WARMUP_TRY {
      out.samples.assign(b->samples, b->samples + n);
    } WARMUP_CATCH_ALL {
      copied = false;
    }
    sampler_state().give_back(b);
    return copied;
  }

  /// In a forked child: the parent's tick is not the child's (drop_inherited_ticks).
  void forget_after_fork() noexcept {
    buffer_ = nullptr;
    owner_ = nullptr;
    thread_sampling = sampler_stage::idle;
  }

 private:
  /// A call of this thread's that another thread ended (its scope destroyed there) is no
  /// longer this thread's to sample.
  void forget_if_ended_elsewhere() noexcept {
    if (buffer_ != nullptr && buffer_->owner.load(std::memory_order_acquire) != owner_) {
      buffer_ = nullptr;
      owner_ = nullptr;
      thread_sampling = sampler_stage::idle;
    }
  }

  sample_buffer* buffer_ = nullptr;
  const void* owner_ = nullptr;
};

inline thread_sampler& my_sampler() noexcept {
  static thread_local thread_sampler s;
  if (thread_sampling == sampler_stage::none) thread_sampling = sampler_stage::idle;
  return s;
}

/// Ends the sampling of `owner`'s call from a thread that is not the one it sampled (its scope
/// destroyed there): the tick ends, and the samples, of the other thread's CPU, are dropped.
/// True where there was one.
inline bool end_elsewhere(const void* owner) noexcept {
  sample_buffer* b = sampler_state().owned_by(owner);
  if (b == nullptr || !seize(b, owner)) return false;
  release(b);
  return true;
}

/// In a forked child, holding the sampler's lock: every call sampled at the fork was the
/// parent's; their ticks are dropped (drop_inherited_tick) and their buffers freed. The child
/// counts its own sampled calls.
inline void drop_inherited_ticks() noexcept {
  sampler_shared& s = sampler_state();
  s.calls_sampled.store(0, std::memory_order_relaxed);
  const std::uint32_t n = s.made.load(std::memory_order_acquire);
  for (std::uint32_t i = 0; i < n && i < sampler_shared::max_buffers; ++i) {
    sample_buffer* b = s.buffers[i].load(std::memory_order_relaxed);
    if (b == nullptr || b->owner.load(std::memory_order_relaxed) == nullptr) continue;
    b->armed.store(false, std::memory_order_relaxed);
    drop_inherited_tick(b->tick);
    s.give_back(b, true);
  }
}

/// The report's sampling line: the status set (off, or its interval), what ticked, and the
/// samples lost to full buffers.
inline std::string sampling_line(std::string status, std::uint64_t lost = 0) {
  if (status.rfind("every ", 0) != 0) return status;
  const sampler_shared& s = sampler_state();
  switch (s.used_tick.load(std::memory_order_relaxed)) {
    case tick_kind::task_clock:
      status += " (perf_event task clock; time in the kernel: [kernel])";
      break;
    case tick_kind::cpu_timer: {
      const int refused = s.task_clock_refused.load(std::memory_order_relaxed);
      status += " (a timer on the thread's CPU clock, checked at the kernel's tick" +
                (refused != 0 ? std::string(": perf_event_open refused, ") + std::strerror(refused) : std::string()) + ")";
      break;
    }
    case tick_kind::none:
      break;
  }
  if (lost != 0)
    status += "; " + std::to_string(lost) + " samples lost (a call keeps " + std::to_string(sample_buffer::capacity) +
              " of its other threads', the run " + std::to_string(sample_store_cap) + " in all): their CPU time is unattributed";
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
