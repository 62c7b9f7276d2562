/// @file
/// @brief The CPU sampler's data (detail/analysis/cpu_sampler.hpp): a sample, a thread's buffer of them,
/// and the process-wide state every copy of the library shares through the cause store.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include <signal.h>
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
};

/// The program counter that stands for the kernel: CPU time a task clock's ticks found the
/// thread in the kernel for (system calls, page faults), which they do not sample.
inline constexpr std::uintptr_t kernel_pc = 1;

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
inline constexpr bool cpu_sampling_supported = true;
#else
inline constexpr bool cpu_sampling_supported = false;
#endif

/// What makes a thread's samples tick (detail/analysis/cpu_tick_source.hpp).
enum class tick_kind : unsigned char { none, task_clock, cpu_timer };

/// A thread's samples. Never freed: a signal raised before a timer's deletion may still name it.
struct sample_buffer {
  static constexpr std::uint64_t tag = 0x77726d7570736d32ull;  // "wrmupsm2": a buffer of this layout
  static constexpr std::uint32_t capacity = 4096;             // 4 s of CPU at 1 ms
  std::uint64_t magic = tag;
  std::atomic<bool> armed{false};
  std::atomic<std::uint32_t> used{0};
  std::atomic<std::uint32_t> lost{0};
  std::atomic<int> fd{-1};         ///< the task clock's descriptor, whose signals carry it
  std::uint64_t armed_cpu_ns = 0;  ///< the thread's CPU clock when the timer was armed
  /// The task clock's period, where samples are taken in user mode only: the CPU time between
  /// two samples beyond one period was spent in the kernel. 0: samples stand for all CPU time.
  std::uint64_t user_period_ns = 0;
  cpu_sample samples[capacity]{};
};

/// One sampled call's samples, as `thread_sampler::end` hands them over.
struct sampled_call {
  std::vector<cpu_sample> samples;
  std::uint64_t armed_cpu_ns = 0;    ///< the thread's CPU clock when the tick was armed
  std::uint64_t user_period_ns = 0;  ///< sample_buffer::user_period_ns
  std::uint32_t lost = 0;
};

/// The process's sampling state, shared by every copy of the library (it lives in the cause
/// store's slot): the interval, the handler in force, and every buffer ever made, which the
/// handler checks a signal's value against before trusting it.
struct sampler_shared {
  static constexpr std::uint32_t max_buffers = 1024;
  std::atomic<std::uint64_t> interval_ns{0};  ///< 0: off
  std::atomic<void (*)(int, siginfo_t*, void*)> handler{nullptr};
  std::atomic<sample_buffer*> buffers[max_buffers]{};
  std::atomic<std::uint32_t> made{0};
  /// The tick the next thread's sampler asks for first: the task clock, unless a test wants
  /// the fallback.
  std::atomic<tick_kind> preferred{tick_kind::task_clock};
  /// The tick the latest sampler got, and the errno that refused the task clock (0 if none).
  std::atomic<tick_kind> used_tick{tick_kind::none};
  std::atomic<int> task_clock_refused{0};
  std::mutex m;                     ///< guards `spare`
  std::vector<sample_buffer*> spare;  ///< buffers of threads that ended, to reuse

  bool known(const sample_buffer* b) const noexcept {
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i)
      if (buffers[i].load(std::memory_order_relaxed) == b) return true;
    return false;
  }

  /// The buffer whose task clock has the descriptor `fd` (for the signal handler), or nullptr.
  sample_buffer* with_fd(int fd) const noexcept {
    if (fd < 0) return nullptr;
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i) {
      sample_buffer* b = buffers[i].load(std::memory_order_relaxed);
      if (b != nullptr && b->fd.load(std::memory_order_relaxed) == fd) return b;
    }
    return nullptr;
  }

  /// In a forked child: every task clock's descriptor counts a thread of the parent's; closed,
  /// never disabled (the parent's event would stop too).
  void close_inherited() noexcept {
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i) {
      sample_buffer* b = buffers[i].load(std::memory_order_relaxed);
      if (b == nullptr) continue;
      b->armed.store(false, std::memory_order_relaxed);
      const int fd = b->fd.exchange(-1, std::memory_order_relaxed);
      if (fd >= 0) (void)::close(fd);
    }
  }

  /// A buffer for a thread: a spare one, or a new one (nullptr past `max_buffers` threads).
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
      auto* b = new (std::nothrow) sample_buffer;
      if (b == nullptr) return nullptr;
      buffers[i].store(b, std::memory_order_relaxed);
      made.store(i + 1, std::memory_order_release);
      return b;
    } WARMUP_CATCH_ALL {
      return nullptr;
    }
  }
  void give_back(sample_buffer* b) noexcept {
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(m);
      spare.push_back(b);
    } WARMUP_CATCH_ALL {
    }  // a buffer not given back is a buffer leaked, no more
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
