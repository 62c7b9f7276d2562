/// @file
/// @brief The stopping rule's judgement (detail/analysis/steady_rule.hpp declares it), compiled
/// with the runtime: the report's own warm-up rule and median interval over the calls so far.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/statistics.hpp"
#include "warmup/detail/analysis/steady_rule.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME std::string invalid_limits(const steady_limits& l) {
  if (l.max_calls == 0) return "max_calls is 0";
  if (l.max_time <= std::chrono::nanoseconds::zero()) return "max_time is not positive";
  if (l.steady_calls < 6) return "steady_calls is below 6 (no 95% interval of a median exists below 6 calls)";
  if (!(l.tolerance > 0.0) || !std::isfinite(l.tolerance)) return "tolerance is not a positive number";
  return {};
}

WARMUP_DETAIL_RUNTIME steady_verdict judge_steady(const std::vector<std::uint64_t>& calls, std::size_t window, double tolerance) {
  steady_verdict v;
  const std::size_t n = calls.size();
  if (n < 2) return v;
  // The band from every call after the first, as the report sets it (no call here came after
  // idling: the loop calls back to back).
  std::vector<weighted> reference;
  std::vector<std::uint64_t> exact(calls.begin() + 1, calls.end());
  reference.reserve(exact.size());
  for (std::uint64_t c : exact) reference.push_back({c, 1});
  sort_by_value(reference);
  std::vector<series_data::call> first;
  first.reserve(n);
  for (std::uint64_t c : calls) first.push_back({c, false});
  v.warmup_calls = warmup_length(first, band_top(reference, exact));
  if (n - v.warmup_calls < window) return v;

  std::vector<weighted> last;
  last.reserve(window);
  for (std::size_t i = n - window; i < n; ++i) last.push_back({calls[i], 1});
  sort_by_value(last);
  const auto ranks = median_interval_ranks(window);
  if (!ranks) return v;
  v.p50 = quantile(last, window, 0.5);
  v.p50_low = at_rank(last, ranks->first);
  v.p50_high = at_rank(last, ranks->second);
  const double half_width = std::max(double(v.p50) - double(v.p50_low), double(v.p50_high) - double(v.p50));
  v.steady = half_width <= tolerance * double(v.p50);
  return v;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
