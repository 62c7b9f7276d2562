/// @file
/// @brief When work gets cold again: idle sites, device resets, reloaded models.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <chrono>

#include "warmup/config.hpp"

#if WARMUP_ENABLED
#include <string>

#include "warmup/detail/notices.hpp"
#include "warmup/detail/recurrence.hpp"
#endif

WARMUP_BEGIN_NAMESPACE

/// @brief Sets how long a site must have been idle before its next call is examined as a
/// possible cold recurrence (default 1 s; from 1 ms to 1 h, as `WARMUP_IDLE_MS`: a value
/// outside is said once and the nearest bound used). Such a call that runs above the site's steady band
/// is reported under `cold_recurrences`, not folded into the steady p99. Thread-safe; costs an
/// atomic store.
/// \code
///   warmup::set_idle_threshold(std::chrono::milliseconds(200));
/// \endcode
inline void set_idle_threshold(std::chrono::nanoseconds idle) noexcept {
#if WARMUP_ENABLED
  // The same range as WARMUP_IDLE_MS: 0 would make every call "after idling".
  constexpr std::chrono::nanoseconds lo = std::chrono::milliseconds(1), hi = std::chrono::hours(1);
  if (idle < lo || idle > hi)
    detail::notice_board().raise(detail::notice_kind::bad_setting,
                                 "set_idle_threshold(" + std::to_string(idle.count()) +
                                     " ns) is outside 1 ms to 1 h; the nearest of those is used");
  detail::recurrence().idle_ns.store(static_cast<std::uint64_t>(std::clamp(idle, lo, hi).count()), std::memory_order_relaxed);
#else
  (void)idle;
#endif
}

/// @brief The idle time after which a call is examined as a cold recurrence.
inline std::chrono::nanoseconds idle_threshold() noexcept {
#if WARMUP_ENABLED
  return std::chrono::nanoseconds{
      static_cast<std::chrono::nanoseconds::rep>(detail::recurrence().idle_ns.load(std::memory_order_relaxed))};
#else
  return std::chrono::nanoseconds{0};
#endif
}

/// @brief Says that the program's work may be cold again (after `cudaDeviceReset`, a model
/// reload, a new CUDA context): the next call of every site is examined as a cold recurrence,
/// however recently it ran. Thread-safe; costs an atomic increment.
/// \code
///   cudaDeviceReset();
///   warmup::expect_cold();
/// \endcode
inline void expect_cold() noexcept {
#if WARMUP_ENABLED
  detail::recurrence().epoch.fetch_add(1, std::memory_order_relaxed);
#endif
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
