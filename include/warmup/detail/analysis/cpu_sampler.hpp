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
/// Each has its own span of one more buffer, thinned like the caller's; threads made during the
/// call are armed by `sample_new_threads`.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
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

/// Keeps one sample in the span `at` of `capacity` samples, thinned (`thinning`): a full span
/// keeps its odd samples, each then standing for its pair's CPU time, and from there one tick in
/// twice as many is kept, the one that falls a whole new stride after the last kept (this tick,
/// an old stride after it, is passed over). Bounded work in the handler: one pass over the span
/// each time it fills, ever fewer times as the call goes on. Used for the caller's own samples and
/// for each other thread's span alike, each with one writer.
inline void keep_thinned(cpu_sample* at, std::uint32_t capacity, thinning& t, const cpu_sample& x) noexcept {
  if (t.to_skip != 0) {
    --t.to_skip;
    return;
  }
  const std::uint32_t i = t.used.load(std::memory_order_relaxed);
  if (i >= capacity) {  // the stride reaches 2^32 after 2^43 ticks: 28 years at 100 us
    for (std::uint32_t k = 0; k < capacity / 2; ++k) at[k] = at[2 * k + 1];
    t.used.store(capacity / 2, std::memory_order_release);
    t.to_skip = t.stride - 1;
    t.stride *= 2;
    return;
  }
  at[i] = x;
  t.used.store(i + 1, std::memory_order_release);
  t.to_skip = t.stride - 1;
}

/// The CPU clock of thread `tid` of this process: Linux's encoding of a thread's clock id, as
/// pthread_getcpuclockid makes it for a pthread_t (the library knows the thread by its id only).
inline clockid_t thread_cpu_clock(long tid) noexcept {
  return static_cast<clockid_t>((~static_cast<std::uint32_t>(tid) << 3) | 6u);  // per thread, scheduler time
}

/// Keeps another thread's sample in its slot's span of the others' buffer `o`, where the thread
/// has a slot, with the sampled call's thread's CPU clock read then (`cpu_sample::caller_cpu_ns`):
/// the handler on that thread is the slot's one writer. `busy` is set before `armed`
/// is read again (both sequentially consistent), so the call's end, which clears `armed` before it
/// reads `busy`, either sees this handler in the span or is seen by it and writes nothing.
inline void keep_other(sample_buffer& o, const cpu_sample& x) noexcept {
  const std::uint32_t n = std::min(o.others.load(std::memory_order_acquire), sample_buffer::others_max);
  for (std::uint32_t k = 0; k < n; ++k) {
    other_thread_slot& s = o.other[k];
    if (s.tid.load(std::memory_order_relaxed) != x.tid) continue;
    bool idle = false;
    if (!s.busy.compare_exchange_strong(idle, true)) return;
    if (o.armed.load() && s.tid.load(std::memory_order_relaxed) == x.tid) {
      cpu_sample y = x;
      timespec caller{};
      y.caller_cpu_ns = ::clock_gettime(thread_cpu_clock(o.tid.load(std::memory_order_relaxed)), &caller) == 0
                            ? static_cast<std::uint64_t>(caller.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(caller.tv_nsec)
                            : 0;
      keep_thinned(o.samples + std::size_t{k} * o.span, o.span, s.kept, y);
    }
    s.busy.store(false, std::memory_order_release);
    return;
  }
}

/// The handler: async-signal-safe (clock_gettime, gettid and atomics on memory that is never freed).
inline void on_cpu_sample(int, siginfo_t* info, void* context) noexcept {
  const int saved = errno;
  const long tid = static_cast<long>(::syscall(SYS_gettid));
  sample_buffer* b = buffer_signalled(info, tid);
  if (b != nullptr && b->magic == sample_buffer::tag && b->armed.load(std::memory_order_relaxed)) {
    const cpu_sample x{clock_ns(CLOCK_MONOTONIC), interrupted_pc(context), clock_ns(CLOCK_THREAD_CPUTIME_ID), {tid}};
    if (!b->any_thread.load(std::memory_order_relaxed))  // the caller's own: one writer, this thread
      keep_thinned(b->samples, sample_buffer::capacity, b->kept, x);
    else  // another thread's: one writer to each thread's span
      keep_other(*b, x);
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

/// Holds `sampler_shared::arming`, the lock over every call's other-thread slots, where it could
/// be taken (a std::mutex refuses only on a broken system; the slots are then touched without it).
class arming_lock {
 public:
  arming_lock() noexcept {
    WARMUP_TRY {
      sampler_state().arming.lock();
      held_ = true;
    } WARMUP_CATCH_ALL {
    }
  }
  arming_lock(const arming_lock&) = delete;
  arming_lock& operator=(const arming_lock&) = delete;
  ~arming_lock() {
    if (held_) sampler_state().arming.unlock();
  }

 private:
  bool held_ = false;
};

/// Calls `f(tid)` for each thread of the process, from /proc/self/task: the library's own
/// descriptor, closed at once.
template <class F>
void for_each_thread(F&& f) noexcept {
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(dir)) {
      const long tid = std::strtol(e->d_name, nullptr, 10);
      if (tid > 0) f(tid);
    }
    ::closedir(dir);
  }
}

/// Makes the next slot of the others' buffer `o` for thread `tid`, with a timer on its CPU clock
/// not yet set, and publishes it: false where no slot is left, the thread is gone or no timer
/// could be made. Under `arming`.
inline bool add_other(sample_buffer& o, long tid) noexcept {
  const std::uint32_t k = o.others.load(std::memory_order_relaxed);
  if (k >= o.slots || k >= sample_buffer::others_max) return false;
  const clockid_t its_clock = thread_cpu_clock(tid);
  timespec now{};
  if (::clock_gettime(its_clock, &now) != 0) return false;  // gone since
  other_thread_slot& s = o.other[k];
  sigevent ev = sample_signal_to(tid, &o);
  if (::timer_create(its_clock, &ev, &s.timer) != 0) return false;
  s.tid.store(tid, std::memory_order_relaxed);
  s.cpu0 = static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec);
  s.kept.reset();
  o.others.store(k + 1, std::memory_order_release);
  return true;
}

/// Sets a timer to fire every `interval_ns` of its clock.
inline void set_every(timer_t timer, std::uint64_t interval_ns) noexcept {
  itimerspec every{};
  every.it_interval.tv_sec = every.it_value.tv_sec = static_cast<time_t>(interval_ns / 1'000'000'000u);
  every.it_interval.tv_nsec = every.it_value.tv_nsec = static_cast<long>(interval_ns % 1'000'000'000u);
  (void)::timer_settime(timer, 0, &every, nullptr);
}

/// What the process's other threads do while a call is sampled (a first call may wait on them:
/// PyTorch's backward runs on its engine thread): a timer on each one's CPU clock, made at the
/// call's start, signalling that thread into a buffer of their own, owned by the caller's buffer
/// `own`. Each thread gets a slot and a span of that buffer, thinned as the caller's own samples
/// are when it fills, so that a call of any length names what each thread ran to its end in the
/// same memory: one buffer of `sample_buffer::capacity` samples (128 KiB) however many threads
/// and however long. The slots are the threads there now (at most `others_max - others_room`),
/// plus `others_room` for threads made during the call, which `sample_new_threads` arms.
/// Like the caller's tick, a timer on a CPU clock fires only while its thread runs, so no
/// blocking call of another thread is cut short either.
inline void arm_others(sample_buffer* own, long self, std::uint64_t interval_ns) noexcept {
  sampler_shared& shared = sampler_state();
  sample_buffer* o = shared.take();
  if (o == nullptr) return;
  const arming_lock lock;
  o->others.store(0, std::memory_order_relaxed);
  o->kept.reset();
  o->user_period_ns = 0;
  o->interval_ns = interval_ns;
  o->tid.store(self, std::memory_order_relaxed);
  o->fd.store(-1, std::memory_order_relaxed);
  o->any_thread.store(true, std::memory_order_relaxed);
  long present[sample_buffer::others_max - sample_buffer::others_room];
  std::uint32_t n = 0;
  for_each_thread([&](long tid) {
    if (tid != self && n < sample_buffer::others_max - sample_buffer::others_room) present[n++] = tid;
  });
  o->slots = n + sample_buffer::others_room;
  o->span = sample_buffer::capacity / o->slots & ~1u;  // even: a full span keeps its odd half
  for (std::uint32_t i = 0; i < n; ++i) (void)add_other(*o, present[i]);
  o->owner.store(own, std::memory_order_release);
  o->armed.store(true);
  const std::uint32_t armed = o->others.load(std::memory_order_relaxed);
  for (std::uint32_t k = 0; k < armed; ++k) set_every(o->other[k].timer, interval_ns);
}

/// Arms, for every sampled call in flight, a timer on each thread made since it began (PyTorch's
/// autograd engine threads, made at the first backward), within the slots it kept for them
/// (`sample_buffer::others_room`); returns how many it armed. Safe beside a call's end and the
/// handlers: it holds `arming`, which a call's start and end take and the handler never does, and
/// publishes each slot only once its fields are set. Cost: a look over the buffers made, and only
/// where a call is in flight with a slot free, one listing of /proc/self/task and a timer per new
/// thread. The Python module's code sampler calls it as it polls; in a C++ program, a first call
/// sampled on any thread calls it as it starts, and a thread made during a call is otherwise
/// sampled only where the program calls this.
inline std::uint32_t sample_new_threads() noexcept {
  if constexpr (!cpu_sampling_supported) return 0;
  sampler_shared& shared = sampler_state();
  const std::uint32_t made = std::min(shared.made.load(std::memory_order_acquire), sampler_shared::max_buffers);
  const auto in_flight = [&](std::uint32_t i) -> sample_buffer* {
    sample_buffer* o = shared.buffers[i].load(std::memory_order_relaxed);
    return o != nullptr && o->any_thread.load(std::memory_order_relaxed) && o->armed.load(std::memory_order_acquire)
               ? o
               : nullptr;
  };
  bool any = false;
  for (std::uint32_t i = 0; i < made && !any; ++i) any = in_flight(i) != nullptr;
  if (!any) return 0;
  const arming_lock lock;
  std::uint32_t armed = 0;
  for (std::uint32_t i = 0; i < made; ++i) {
    sample_buffer* o = in_flight(i);
    const void* owner = o == nullptr ? nullptr : o->owner.load(std::memory_order_acquire);
    if (owner == nullptr || owner == o || o->others.load(std::memory_order_relaxed) >= o->slots) continue;
    const long caller = o->tid.load(std::memory_order_relaxed);
    for_each_thread([&](long tid) {
      if (tid == caller) return;
      const std::uint32_t n = o->others.load(std::memory_order_relaxed);
      for (std::uint32_t k = 0; k < n; ++k)
        if (o->other[k].tid.load(std::memory_order_relaxed) == tid) return;
      if (!add_other(*o, tid)) return;
      set_every(o->other[n].timer, o->interval_ns);
      ++armed;
    });
  }
  return armed;
}

/// Ends the other threads' timers of the call whose buffer is `own` and, where `out` is given,
/// hands over their samples, each thread's apart. A signal raised before a timer ended may still
/// be in a handler on its thread: its span is waited for, briefly, or left out.
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
  if (o == nullptr) return;
  std::uint32_t n = 0;
  {
    const arming_lock lock;
    const void* expected = own;
    if (!o->owner.compare_exchange_strong(expected, o, std::memory_order_acq_rel)) return;
    o->armed.store(false);  // before `busy` is read: a handler then either is seen or writes nothing
    n = std::min(o->others.load(std::memory_order_relaxed), sample_buffer::others_max);
    for (std::uint32_t k = 0; k < n; ++k) (void)::timer_delete(o->other[k].timer);
  }
  WARMUP_TRY {
    for (std::uint32_t k = 0; k < n; ++k) {
      other_thread_slot& s = o->other[k];
      for (int spins = 0; s.busy.load() && spins < 1000; ++spins) ::sched_yield();
      if (out == nullptr || s.busy.load()) continue;
      const std::uint32_t used = std::min(s.kept.used.load(std::memory_order_acquire), o->span);
      const cpu_sample* at = o->samples + std::size_t{k} * o->span;
      if (used != 0) out->push_back({s.tid.load(std::memory_order_relaxed), s.cpu0, {at, at + used}});
    }
  } WARMUP_CATCH_ALL {
    out->clear();
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
    (void)sample_new_threads();  // calls in flight on other threads meet the threads made since
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
    b->kept.reset();
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
    const std::uint32_t n = b->kept.used.load(std::memory_order_acquire);
    out.armed_cpu_ns = b->armed_cpu_ns;
    out.stride = b->kept.stride;
    out.user_period_ns = b->user_period_ns * b->kept.stride;  // a kept sample's share of user-mode CPU
    // Ticks the program kept from the handler (its own disposition set meanwhile, the signal
    // blocked) were never counted: the time after the last sample is unknown, not the kernel's.
    out.cut_short = !holds_signal() || signal_blocked();
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
/// samples the run's store had no room for.
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
    status += "; " + std::to_string(lost) + " samples lost (the run keeps " + std::to_string(sample_store_cap) +
              " in all): their CPU time is unattributed";
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
