/// @file
/// @brief The library's reference clock, `steady_clock`: cold windows, CUPTI records, device
/// anchors, timelines and reports are in its nanoseconds. Scopes read ticks instead
/// (detail/record/ticks.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <chrono>
#include <cstdint>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

using clock = std::chrono::steady_clock;

inline std::uint64_t ns_since_epoch(clock::time_point t) noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

inline std::uint64_t ns_between(clock::time_point a, clock::time_point b) noexcept {
  const auto d = std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
  return d > 0 ? static_cast<std::uint64_t>(d) : 0;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
