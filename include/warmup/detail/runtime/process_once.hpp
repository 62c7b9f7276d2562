/// @file
/// @brief What the process does once, whichever copy of the library does it: its start time and
/// the scopes' time base (detail/runtime/time_base.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "warmup/config.hpp"
#include "warmup/detail/clock.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/runtime/time_base.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// What happens once per process, whichever copy does it.
struct process_once {
  std::mutex m;
  bool started = false;
  std::atomic<std::uint64_t> start_ns{0};  ///< steady-clock ns when the first copy started
  time_base time;  ///< the scopes' clock (time_base.hpp), chosen as the first copy starts
  std::atomic<std::int64_t> start_wall_ms{0};  ///< wall-clock ms since 1970 when the first copy started (file_clock_ms)
};

inline process_once& once() noexcept { return shared<process_once, slot::process>(); }

/// When the library started (compiled_once.hpp: at load, or at the first site made if a scope runs
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

/// The process's time base: one for every copy of the library, since a copy's snapshot converts
/// ticks that another copy's scopes recorded.
inline time_base& host_time() noexcept { return once().time; }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
