/// @file
/// @brief From a series' raw data to warm-up length and steady-state figures.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "warmup/detail/series.hpp"
#include "warmup/report.hpp"

namespace warmup::detail {

/// A value and how many calls had it: exact calls weigh 1; a histogram bucket stands at its
/// midpoint with its count.
struct weighted {
  std::uint64_t value;
  std::uint64_t count;
};

/// Nearest-rank quantile (the smallest value with at least q of the calls at or below it) of
/// values sorted by value.
inline std::uint64_t quantile(const std::vector<weighted>& sorted, std::uint64_t total, double q) {
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * double(total))));
  std::uint64_t seen = 0;
  for (const weighted& w : sorted) {
    seen += w.count;
    if (seen >= rank) return w.value;
  }
  return sorted.empty() ? 0 : sorted.back().value;
}

/// Every call of a series from call `from` on (an index into its exact first calls), sorted.
inline std::vector<weighted> calls_from(const series_data& d, std::size_t from) {
  std::vector<weighted> out;
  out.reserve(d.first.size() + d.later.size());
  for (std::size_t i = from; i < d.first.size(); ++i) out.push_back({d.first[i], 1});
  for (const auto& b : d.later) out.push_back({b.lowest + (b.highest - b.lowest) / 2, b.count});
  std::sort(out.begin(), out.end(), [](const weighted& a, const weighted& b) { return a.value < b.value; });
  return out;
}

inline std::uint64_t total_of(const std::vector<weighted>& v) {
  std::uint64_t n = 0;
  for (const auto& w : v) n += w.count;
  return n;
}

/// Warm-up length: the number of leading calls slower than the steady band, where the band's
/// top is the median of all later calls plus the larger of 4 robust standard deviations
/// (1.4826 x the median absolute deviation of the exact calls after the first) and 25% of that
/// median. Only a run of slow calls at the very start counts: a slow call after a fast one is
/// noise of the steady state, not warm-up.
inline std::size_t warmup_length(const series_data& d) {
  if (d.first.size() + d.later_count < 2 || d.first.empty()) return 0;
  const std::vector<weighted> rest = calls_from(d, 1);
  const std::uint64_t median = quantile(rest, total_of(rest), 0.5);
  double sigma = 0.0;
  if (d.first.size() >= 5) {
    std::vector<double> dev;
    for (std::size_t i = 1; i < d.first.size(); ++i)
      dev.push_back(std::fabs(double(d.first[i]) - double(median)));
    std::nth_element(dev.begin(), dev.begin() + dev.size() / 2, dev.end());
    sigma = 1.4826 * dev[dev.size() / 2];
  }
  const double top = double(median) + std::max(4.0 * sigma, 0.25 * double(median));
  std::size_t w = 0;
  while (w < d.first.size() && double(d.first[w]) > top) ++w;
  return w;
}

inline std::chrono::nanoseconds ns(std::uint64_t v) {
  return std::chrono::nanoseconds{static_cast<std::chrono::nanoseconds::rep>(v)};
}

/// Summarises one series: first call, warm-up, steady state.
inline timing summarize(const series_data& d) {
  timing t;
  t.calls = d.first.size() + d.later_count;
  if (t.calls == 0) return t;
  t.first = ns(d.first.empty() ? d.later_min : d.first.front());
  t.warmup_calls = warmup_length(d);
  std::uint64_t all = d.later_sum;
  for (std::uint64_t v : d.first) all += v;
  t.total = ns(all);
  if (t.calls == 1) return t;  // one call is a first call, not a steady state
  const std::vector<weighted> steady = calls_from(d, t.warmup_calls);
  const std::uint64_t n = total_of(steady);
  if (n == 0) return t;
  steady_state s;
  s.calls = n;
  s.p50 = ns(quantile(steady, n, 0.50));
  s.p90 = ns(quantile(steady, n, 0.90));
  s.p99 = ns(quantile(steady, n, 0.99));
  std::uint64_t lo = UINT64_MAX, hi = 0, sum = d.later_sum;
  for (std::size_t i = t.warmup_calls; i < d.first.size(); ++i) {
    lo = std::min(lo, d.first[i]);
    hi = std::max(hi, d.first[i]);
    sum += d.first[i];
  }
  if (d.later_count != 0) {
    lo = std::min(lo, d.later_min);
    hi = std::max(hi, d.later_max);
  }
  s.min = ns(lo);
  s.max = ns(hi);
  s.mean = ns(sum / n);
  t.steady = s;
  t.first_call_excess = t.first - s.p50;
  return t;
}

}  // namespace warmup::detail
