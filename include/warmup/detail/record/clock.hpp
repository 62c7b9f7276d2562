/// @file
/// @brief The host clocks: `steady_clock` for the library's own bookkeeping, and the time base
/// every scope reads (the CPU's cycle counter where it can be trusted, converted afterwards).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/record/process.hpp"
#include "warmup/detail/record/time_base.hpp"

#include <chrono>
#include <cstdint>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The library's reference clock: cold windows, CUPTI records, device anchors, timelines and
/// reports are in its nanoseconds. Scopes read `time_base::now()` instead (time_base.hpp).
using clock = std::chrono::steady_clock;

inline std::uint64_t ns_since_epoch(clock::time_point t) noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

/// When the library started (runtime.hpp: at load, or at the first site made if a scope runs
/// before that, in another file's static constructor): timelines count from here.
inline clock::time_point process_start() noexcept {
  std::atomic<std::uint64_t>& start = once().start_ns;
  std::uint64_t t = start.load(std::memory_order_acquire);
  if (t == 0) {
    const std::uint64_t now = ns_since_epoch(clock::now());
    t = start.compare_exchange_strong(t, now, std::memory_order_acq_rel) ? now : t;
  }
  return clock::time_point{std::chrono::duration_cast<clock::duration>(std::chrono::nanoseconds{t})};
}

inline std::uint64_t ns_between(clock::time_point a, clock::time_point b) noexcept {
  const auto d = std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
  return d > 0 ? static_cast<std::uint64_t>(d) : 0;
}

/// The process's time base: one for every copy of the library, since a copy's snapshot converts
/// ticks that another copy's scopes recorded.
inline time_base& host_time() noexcept { return once().time; }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
