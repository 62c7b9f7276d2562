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

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
inline constexpr bool cpu_sampling_supported = true;
#else
inline constexpr bool cpu_sampling_supported = false;
#endif

/// A thread's samples. Never freed: a signal raised before a timer's deletion may still name it.
struct sample_buffer {
  static constexpr std::uint64_t tag = 0x77726d7570736d31ull;  // "wrmupsm1": a buffer of this layout
  static constexpr std::uint32_t capacity = 4096;             // 4 s of CPU at 1 ms
  std::uint64_t magic = tag;
  std::atomic<bool> armed{false};
  std::atomic<std::uint32_t> used{0};
  std::atomic<std::uint32_t> lost{0};
  std::uint64_t armed_cpu_ns = 0;  ///< the thread's CPU clock when the timer was armed
  cpu_sample samples[capacity]{};
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
  std::mutex m;                     ///< guards `spare`
  std::vector<sample_buffer*> spare;  ///< buffers of threads that ended, to reuse

  bool known(const sample_buffer* b) const noexcept {
    const std::uint32_t n = made.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n && i < max_buffers; ++i)
      if (buffers[i].load(std::memory_order_relaxed) == b) return true;
    return false;
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
