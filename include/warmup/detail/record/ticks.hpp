/// @file
/// @brief The scopes' clock as a scope reads it: ticks of the CPU's cycle counter where it can be
/// trusted, else of the steady clock. Which source, and the conversion of ticks to
/// nanoseconds, are the runtime's (detail/runtime/time_base.hpp, which says why).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>
#include <ctime>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// steady_clock's nanoseconds (CLOCK_MONOTONIC on Linux), without chrono's conversions.
inline std::uint64_t steady_ns() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

// ---- The counter, per architecture.
#if defined(__x86_64__)
inline constexpr const char* counter_name = "x86 TSC";
/// Not serialising: a scope's few nanoseconds of reordering are below what it can resolve.
WARMUP_HOT_INLINE std::uint64_t read_counter() noexcept {
  std::uint32_t lo = 0, hi = 0;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (std::uint64_t{hi} << 32) | lo;
}
inline void cpuid(std::uint32_t leaf, std::uint32_t (&r)[4]) noexcept {
  asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}
/// Why the counter cannot time scopes, or nullptr, from the CPU's answers: its highest extended
/// CPUID leaf, and leaf 0x80000007's EDX where it has one. The invariant-TSC bit (EDX bit 8)
/// promises one rate in every power state and on every core.
inline const char* counter_unusable(std::uint32_t highest_extended_leaf, std::uint32_t power_edx) noexcept {
  if (highest_extended_leaf < 0x80000007u) return "the CPU does not say whether its TSC is invariant";
  if ((power_edx & (1u << 8)) == 0) return "the CPU's TSC is not invariant";
  return nullptr;
}
/// Why the counter cannot time scopes on this CPU, or nullptr.
inline const char* counter_unusable() noexcept {
  std::uint32_t r[4];
  cpuid(0x80000000u, r);
  const std::uint32_t highest = r[0];
  std::uint32_t power_edx = 0;  // a leaf past the highest is not asked: cpuid would answer another's
  if (highest >= 0x80000007u) {
    cpuid(0x80000007u, r);
    power_edx = r[3];
  }
  return counter_unusable(highest, power_edx);
}
#elif defined(__aarch64__)
inline constexpr const char* counter_name = "Arm CNTVCT_EL0";
WARMUP_HOT_INLINE std::uint64_t read_counter() noexcept {
  std::uint64_t v = 0;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
/// The generic timer runs at one frequency by architecture; it must at least say which.
inline const char* counter_unusable() noexcept {
  std::uint64_t f = 0;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
  return f == 0 ? "CNTFRQ_EL0 reads 0" : nullptr;
}
#else
inline constexpr const char* counter_name = "none";
WARMUP_HOT_INLINE std::uint64_t read_counter() noexcept { return 0; }
inline const char* counter_unusable() noexcept { return "no cycle counter is read on this CPU architecture"; }
#endif

/// Which clock the scopes read.
enum class time_source : std::uint32_t {
  steady,                ///< ticks are steady-clock ns
  counter,               ///< ticks are the cycle counter's
  steady_after_counter,  ///< the counter was dropped mid-run: steady ns, in the counter's ticks
};

/// What a scope reads of the process's time base: the source and the rate, set by the runtime.
class time_reading {
 public:
  /// Now, in ticks. The hot path: one relaxed load and the counter where it is used.
  WARMUP_HOT_INLINE std::uint64_t now() const noexcept {
    if (source_.load(std::memory_order_relaxed) == time_source::counter) return read_counter();
    return steady_ticks();
  }

  /// ns per tick over the run so far; 0 while the counter has one pair only.
  double ns_per_tick() const noexcept { return rate_.load(std::memory_order_relaxed); }
  time_source source() const noexcept { return source_.load(std::memory_order_acquire); }

 protected:
  /// steady-clock ns, or after the counter was dropped, the same in its ticks.
  [[gnu::noinline]] std::uint64_t steady_ticks() const noexcept {
    const std::uint64_t ns = steady_ns();
    if (source_.load(std::memory_order_acquire) != time_source::steady_after_counter) return ns;
    const std::uint64_t fns = frozen_ns_.load(std::memory_order_relaxed);
    const std::uint64_t ft = frozen_ticks_.load(std::memory_order_relaxed);
    const double r = rate_.load(std::memory_order_relaxed);
    if (ns <= fns || r <= 0) return ft;
    return ft + static_cast<std::uint64_t>(double(ns - fns) / r);
  }
  std::atomic<time_source> source_{time_source::steady};
  std::atomic<double> rate_{1.0};
  std::atomic<std::uint64_t> frozen_ticks_{0}, frozen_ns_{0};
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
