/// @file
/// @brief The CPU sampler's data (detail/analysis/cpu_sampler.hpp): a sample, the buffer a sampled
/// call keeps them in with the tick that fills it, and the process-wide state every copy of the
/// library shares through the cause store.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// One sample: when (steady-clock ns), where (the interrupted instruction), and the thread's
/// CPU clock then: a sample stands for the CPU time spent since the one before, so that time the
/// thread spent waiting or preempted is never put on the code it was stopped in.
struct cpu_sample {
  std::uint64_t ns = 0;
  std::uintptr_t pc = 0;
  std::uint64_t cpu_ns = 0;
  union {
    long tid = 0;  ///< the thread interrupted (gettid)
    /// Another thread's sample, once in its thread's span (which names the thread): the sampled
    /// call's own thread's CPU clock at that instant, 0 where unread. A call waiting on a worker
    /// has no samples of its own while it waits; these readings say, to the worker's tick, when
    /// it was off the CPU, however thinned its own samples are.
    std::uint64_t caller_cpu_ns;
  };
};

/// The program counter of a reading of a call's CPU clock that is no sample (`cpu_sample::
/// caller_cpu_ns`, kept among its thread's samples): it times the call's waiting, and names nothing.
inline constexpr std::uintptr_t clock_reading_pc = ~std::uintptr_t{0};  // no code lies there

/// The program counter that stands for the kernel: CPU time a task clock's ticks found the
/// thread in the kernel for (system calls, page faults), which they do not sample.
inline constexpr std::uintptr_t kernel_pc = 1;

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
inline constexpr bool cpu_sampling_supported = true;
#else
inline constexpr bool cpu_sampling_supported = false;
#endif

/// The signal the tick raises. SIGURG, not SIGPROF: its default action is to ignore it, so a
/// program that resets every disposition to the default (as daemons do) while a first call is
/// sampled loses samples, never its life; and SIGPROF stays free for the program's own profilers
/// (setitimer's). A program that receives out-of-band socket data keeps its own SIGURG handler:
/// the library then leaves the signal alone and says so.
inline constexpr int sample_signal = SIGURG;

/// What makes a call's samples tick (detail/analysis/cpu_tick_source.hpp).
enum class tick_kind : unsigned char { none, task_clock, cpu_timer };

/// A tick as made: what the library needs to prove, before it touches a descriptor again, that
/// the descriptor is still the event it opened (a program may have closed that number and
/// opened a file of its own under it since).
struct tick_handle {
  tick_kind kind = tick_kind::none;
  int fd = -1;              ///< the task clock's descriptor
  std::uint64_t id = 0;     ///< the event's id (PERF_EVENT_IOC_ID), unique in the system
  std::uint64_t dev = 0;    ///< the descriptor's file, as fstat saw it at the open
  std::uint64_t ino = 0;
  std::uint64_t period_ns = 0;
  timer_t timer{};          ///< the CPU-clock timer
};

/// The CPU samples the cause store keeps for a run, every thread's and call's together
/// (detail/runtime/cause_store.hpp): past it, a sample is counted as lost.
inline constexpr std::size_t sample_store_cap = std::size_t{1} << 16;

/// One writer's samples in a span of a buffer, thinned rather than cut when the span fills
/// (cpu_sampler.hpp, `keep_thinned`): one tick in `stride` is kept, `to_skip` more are passed
/// over before the next. A full span keeps every other sample and doubles the stride, so that a
/// call of any length keeps samples spread evenly over all of it, each standing for the CPU time
/// since the one before (the ticks passed over included). Written by one signal handler at a
/// time: the one on the thread the span samples.
struct thinning {
  std::atomic<std::uint32_t> used{0};  ///< samples kept
  std::uint32_t stride = 1;
  std::uint32_t to_skip = 0;
  void reset() noexcept {
    used.store(0, std::memory_order_relaxed);
    stride = 1;
    to_skip = 0;
  }
};

/// Another thread sampled while a call is: its timer, its CPU clock when the timer was made, and
/// its own span of the others' buffer, which only its handler writes (a timer made with
/// SIGEV_THREAD_ID signals that thread alone). `busy` is taken while a handler writes, so that
/// the call's end copies the span only once no handler is in it, and a signal raised for an
/// earlier call of this buffer that arrives late never writes beside the thread's own handler.
struct other_thread_slot {
  std::atomic<long> tid{0};
  timer_t timer{};
  std::uint64_t cpu0 = 0;
  thinning kept;
  std::atomic<bool> busy{false};
};

/// A sampled call's samples and its tick, from the call's start to its end. Never freed: a
/// signal raised before the tick's end may still name it; reused by later calls.
struct sample_buffer {
  static constexpr std::uint64_t tag = 0x77726d7570736d36ull;  // "wrmupsm6": a buffer of this layout
  /// Samples a call keeps, whatever its length (128 KiB): the caller's own thinned when they
  /// fill it (`kept`), the other threads' each thinned in its own span of it.
  static constexpr std::uint32_t capacity = 4096;
  std::uint64_t magic = tag;
  std::atomic<bool> armed{false};
  thinning kept;                       ///< the caller's own samples: written by its handler alone
  std::atomic<int> fd{-1};             ///< the task clock's descriptor, whose signals carry it
  std::atomic<long> tid{0};            ///< the thread sampled (gettid), whose signals alone count
  std::atomic<const void*> owner{nullptr};  ///< the call sampled (its site), nullptr: free
  std::uint64_t armed_cpu_ns = 0;  ///< the thread's CPU clock when the tick was armed
  /// The task clock's period, where samples are taken in user mode only: the CPU time between
  /// two samples beyond one period was spent in the kernel. 0: samples stand for all CPU time.
  std::uint64_t user_period_ns = 0;
  tick_handle tick;  ///< under the owner's hands only (the thread that took the buffer, or its end)
  /// The other threads' buffer of a sampled call (cpu_sampler.hpp, `arm_others`): signals of
  /// every thread but `tid` count, each in its thread's slot. `slots` is fixed when the call is
  /// armed (the threads there then, plus `others_room` for threads made during the call), and
  /// each slot gets a span of `span` samples (`capacity / slots`, at least 32): so whatever the
  /// call's length and however many threads it meets, the others' samples stay in this buffer's
  /// 128 KiB, besides `others_max` slots of a few words each. Slots are added under
  /// `sampler_shared::arming`, each published by `others` once its fields are set.
  std::atomic<bool> any_thread{false};
  static constexpr std::uint32_t others_max = 128;  ///< other threads sampled in one call, at most
  static constexpr std::uint32_t others_room = 8;   ///< slots kept at a call's start for threads made later
  std::atomic<std::uint32_t> others{0};
  std::uint32_t slots = 0;
  std::uint32_t span = 0;
  std::uint64_t interval_ns = 0;  ///< the others' timers' interval, for those made later
  other_thread_slot other[others_max]{};
  cpu_sample samples[capacity]{};
};

/// The samples another thread gave while a call was sampled, and its CPU clock when its timer
/// was made (each sample stands for the CPU time since the one before, the first since then).
struct other_thread_samples {
  long tid = 0;
  std::uint64_t armed_cpu_ns = 0;
  std::vector<cpu_sample> samples;
};

/// One sampled call's samples, as `thread_sampler::end` hands them over.
struct sampled_call {
  std::vector<cpu_sample> samples;
  std::uint64_t armed_cpu_ns = 0;    ///< the thread's CPU clock when the tick was armed
  std::uint64_t user_period_ns = 0;  ///< sample_buffer::user_period_ns, times the stride: a kept sample's share
  std::uint32_t stride = 1;          ///< one tick in this many kept (thinning::stride)
  /// Ticks went uncounted (the signal blocked or taken by the program; buffers are thinned,
  /// never full): the CPU time after the last sample is unknown, not the kernel's.
  bool cut_short = false;
  std::vector<other_thread_samples> others;  ///< the process's other threads meanwhile
};

/// The process's sampling state, shared by every copy of the library (it lives in the cause
/// store's slot): the interval, the handler in force, and every buffer ever made, which the
/// handler checks a signal's value against before trusting it.
struct sampler_shared {
  static constexpr std::uint32_t max_buffers = 1024;
  /// Descriptors a sampled call leaves the program at least: below, sampling pauses.
  static constexpr long descriptor_margin = 32;
  std::atomic<std::uint64_t> interval_ns{0};  ///< 0: off
  std::atomic<void (*)(int, siginfo_t*, void*)> handler{nullptr};
  std::atomic<sample_buffer*> buffers[max_buffers]{};
  std::atomic<std::uint32_t> made{0};
  /// The tick the next call asks for first: the task clock, unless a test wants the fallback.
  std::atomic<tick_kind> preferred{tick_kind::task_clock};
  /// The tick the latest sampled call got, and the errno that refused the task clock (0 if none).
  std::atomic<tick_kind> used_tick{tick_kind::none};
  std::atomic<int> task_clock_refused{0};
  std::atomic<std::uint64_t> calls_sampled{0};  ///< first calls whose tick was armed
  /// Told, on the thread that arms or ends it, when a sampled call of thread `tid` begins (true)
  /// or ends (false); never from the handler. The Python module's code sampler
  /// (python/code_sampler.hpp) samples those threads' Python code meanwhile.
  std::atomic<void (*)(long tid, bool begins) noexcept> watcher{nullptr};
  void tell_watcher(long tid, bool begins) const noexcept {
    if (auto* f = watcher.load(std::memory_order_acquire)) f(tid, begins);
  }
  std::mutex claim;                   ///< two threads claiming the signal at once install one handler
  /// Guards the other threads' slots of every call (sample_buffer::others): taken by a call's
  /// start and end and by `sample_new_threads`, never by the signal handler.
  std::mutex arming;
  std::mutex m;                       ///< guards `spare`
  std::vector<sample_buffer*> spare;  ///< buffers no call holds, to reuse

  bool known(const sample_buffer* b) const noexcept {
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i)
      if (buffers[i].load(std::memory_order_relaxed) == b) return true;
    return false;
  }

  /// The buffer whose task clock has the descriptor `fd` and samples thread `tid` (for the
  /// signal handler), or nullptr: a descriptor number alone may be a stale one's.
  sample_buffer* with_fd(int fd, long tid) const noexcept {
    if (fd < 0) return nullptr;
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i) {
      sample_buffer* b = buffers[i].load(std::memory_order_relaxed);
      if (b != nullptr && b->fd.load(std::memory_order_relaxed) == fd && b->tid.load(std::memory_order_relaxed) == tid)
        return b;
    }
    return nullptr;
  }

  /// The buffer sampling `owner`'s call, or nullptr (a call ended on a thread not its own).
  sample_buffer* owned_by(const void* owner) const noexcept {
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i) {
      sample_buffer* b = buffers[i].load(std::memory_order_relaxed);
      if (b != nullptr && b->owner.load(std::memory_order_acquire) == owner) return b;
    }
    return nullptr;
  }

  /// A free buffer: a spare one, or a new one (nullptr past `max_buffers` calls at once).
  sample_buffer* take() noexcept {
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(m);
      if (!spare.empty()) {
        sample_buffer* b = spare.back();
        spare.pop_back();
        return b;
      }
      const std::uint32_t i = made.load(std::memory_order_relaxed);
      if (i >= max_buffers) return nullptr;
      spare.reserve(i + 1);  // give_back then never allocates
      auto* b = new (std::nothrow) sample_buffer;
      if (b == nullptr) return nullptr;
      buffers[i].store(b, std::memory_order_relaxed);
      made.store(i + 1, std::memory_order_release);
      return b;
    } WARMUP_CATCH_ALL {
      return nullptr;
    }
  }
  /// Frees a buffer whose tick is closed. `locked`: the caller holds `m` (a forked child).
  void give_back(sample_buffer* b, bool locked = false) noexcept {
    b->armed.store(false, std::memory_order_relaxed);
    b->any_thread.store(false, std::memory_order_relaxed);
    b->others.store(0, std::memory_order_relaxed);
    b->fd.store(-1, std::memory_order_relaxed);
    b->tid.store(0, std::memory_order_relaxed);
    b->tick = tick_handle{};
    b->owner.store(nullptr, std::memory_order_release);
    WARMUP_TRY {
      if (locked) {
        spare.push_back(b);
      } else {
        std::lock_guard<std::mutex> lock(m);
        spare.push_back(b);
      }
    } WARMUP_CATCH_ALL {
    }  // a buffer not given back is a buffer leaked, no more
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
