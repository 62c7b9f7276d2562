/// @file
/// @brief `steady_limits` and `steady_stop`: the budgets and the rule of `warmup_until_steady`,
/// and why it stopped.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The budgets and the confidence rule of `warmup_until_steady`.
///
/// The site is declared steady once the last `steady_calls` calls all come after the warm-up
/// (as the report judges warm-up: the steady band, then Conway's rule) and the 95% confidence
/// interval of their median is within `tolerance` of it on either side. The loop stops earlier
/// when `max_calls` calls were made or `max_time` has passed, and then says the site never
/// settled.
/// \code
///   warmup::steady_limits limits;
///   limits.max_calls = 200;
///   limits.max_time = std::chrono::seconds{5};
///   limits.tolerance = 0.10;  // a noisier service: +-10% on the median is steady enough
/// \endcode
struct steady_limits {
  std::size_t max_calls = 1000;                 ///< at most this many calls in all
  std::chrono::nanoseconds max_time = std::chrono::seconds{30};  ///< and no longer than this
  std::size_t steady_calls = 20;                ///< the window judged steady (at least 6)
  double tolerance = 0.05;                      ///< half-width of the median's 95% interval / median
};

/// @brief Why `warmup_until_steady` stopped.
enum class steady_stop : std::uint8_t {
  steady,       ///< the rule above held: the site is warm
  call_budget,  ///< `max_calls` calls, never settled
  time_budget,  ///< `max_time` passed, never settled
  error,        ///< the function or the stream failed, or the limits were invalid: see `status`
};

/// @brief "steady", "call_budget", "time_budget" or "error".
constexpr const char* to_string(steady_stop s) noexcept {
  switch (s) {
    case steady_stop::steady: return "steady";
    case steady_stop::call_budget: return "call_budget";
    case steady_stop::time_budget: return "time_budget";
    case steady_stop::error: return "error";
  }
  return "unknown";
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
