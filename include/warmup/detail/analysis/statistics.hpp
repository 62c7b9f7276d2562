/// @file
/// @brief From a series' raw data to warm-up, steady state, cold recurrences and confidence.
/// docs/reading-the-report.md says what each figure means and how it is computed, with an example.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "warmup/detail/record/series.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A value and how many calls had it: exact calls weigh 1; a histogram bucket stands at its
/// midpoint with its count.
struct weighted {
  std::uint64_t value;
  std::uint64_t count;
};

inline void sort_by_value(std::vector<weighted>& v) {
  std::sort(v.begin(), v.end(), [](const weighted& a, const weighted& b) { return a.value < b.value; });
}

inline std::uint64_t total_of(const std::vector<weighted>& v) {
  std::uint64_t n = 0;
  for (const auto& w : v) n += w.count;
  return n;
}

/// The value of rank `rank` (1-based) among values sorted by value.
inline std::uint64_t at_rank(const std::vector<weighted>& sorted, std::uint64_t rank) {
  std::uint64_t seen = 0;
  for (const weighted& w : sorted) {
    seen += w.count;
    if (seen >= rank) return w.value;
  }
  return sorted.empty() ? 0 : sorted.back().value;
}

/// Nearest-rank quantile: the smallest value with at least a fraction q of the calls at or
/// below it.
inline std::uint64_t quantile(const std::vector<weighted>& sorted, std::uint64_t total, double q) {
  const double r = std::ceil(q * double(total) - 1e-9);
  return at_rank(sorted, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(r)));
}

/// Ranks (1-based) of the distribution-free 95% confidence interval of the median of n calls:
/// the j-th and (n+1-j)-th smallest, j the largest rank with P(Binomial(n, 1/2) < j) <= 2.5%.
/// Exact binomial tails up to n = 2000, the normal approximation beyond. None below n = 6,
/// where even the smallest and largest call cover the median with less than 95%.
inline std::optional<std::pair<std::uint64_t, std::uint64_t>> median_interval_ranks(std::uint64_t n) {
  if (n < 6) return std::nullopt;
  std::uint64_t j = 0;
  if (n <= 2000) {
    // log C(n, i) built up term by term (C(n, i+1) = C(n, i) (n - i) / (i + 1)): std::lgamma
    // would write libm's global signgam, a data race between two threads' snapshots.
    double cdf = 0.0;  // P(B <= i)
    double log_choose = 0.0;
    const double log_half_n = double(n) * std::log(2.0);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > 0) log_choose += std::log(double(n - i + 1)) - std::log(double(i));
      cdf += std::exp(log_choose - log_half_n);
      if (cdf > 0.025) break;
      j = i + 1;  // P(B <= i) = P(B < i + 1) <= 2.5%
    }
  } else {
    j = static_cast<std::uint64_t>(std::floor((double(n) - 1.959964 * std::sqrt(double(n))) / 2.0));
  }
  j = std::max<std::uint64_t>(j, 1);
  return std::pair{j, n + 1 - j};
}

/// The steady band's top: calls above it, at the start, are warm-up; after idling, they are cold
/// recurrences. Median of the reference calls plus the larger of 4 robust standard deviations
/// (1.4826 x the median absolute deviation of the exact ones) and 25% of the median.
inline double band_top(const std::vector<weighted>& reference, const std::vector<std::uint64_t>& exact) {
  const std::uint64_t median = quantile(reference, total_of(reference), 0.5);
  double sigma = 0.0;
  if (exact.size() >= 4) {
    std::vector<double> dev;
    dev.reserve(exact.size());
    for (std::uint64_t v : exact) dev.push_back(std::fabs(double(v) - double(median)));
    std::nth_element(dev.begin(), dev.begin() + static_cast<long>(dev.size() / 2), dev.end());
    sigma = 1.4826 * dev[dev.size() / 2];
  }
  return double(median) + std::max(4.0 * sigma, 0.25 * double(median));
}

/// Warm-up length: the leading run of calls above the steady band's top, shortened until every
/// call in it is slower than every later call of the exact window (calls after idling aside).
/// The first condition is a robust outlier test; the second is Conway's truncation rule (1963):
/// the transient ends at the first call that is not the slowest of those that remain. Together
/// they rarely call noise warm-up: a noise call must be both an outlier and the slowest of the
/// window's remaining calls.
inline std::size_t warmup_length(const std::vector<series_data::call>& first, double top) {
  std::size_t run = 0;
  while (run < first.size() && double(first[run].ns) > top) ++run;
  // slowest_after[i]: the slowest ordinary call at index >= i.
  std::vector<std::uint64_t> slowest_after(first.size() + 1, 0);
  for (std::size_t i = first.size(); i-- > 0;)
    slowest_after[i] = std::max(slowest_after[i + 1], first[i].candidate ? 0 : first[i].ns);
  std::uint64_t fastest_in_run = UINT64_MAX;
  std::size_t w = 0;
  for (std::size_t r = 1; r <= run; ++r) {
    fastest_in_run = std::min(fastest_in_run, first[r - 1].ns);
    if (fastest_in_run > slowest_after[r]) w = r;
  }
  return w;
}

inline std::chrono::nanoseconds ns(double v) {
  return std::chrono::nanoseconds{static_cast<std::chrono::nanoseconds::rep>(std::llround(v))};
}

/// Converts a series read in ticks (time_base.hpp) to ns at `ns_per_tick`: every figure scales
/// by the same factor, so the histogram's relative error and the first calls' order are kept.
inline void scale(series_data& d, double ns_per_tick) noexcept {
  if (ns_per_tick == 1.0) return;
  const auto s = [&](std::uint64_t v) { return static_cast<std::uint64_t>(std::llround(double(v) * ns_per_tick)); };
  for (auto& c : d.first) c.ns = s(c.ns);
  for (auto& v : d.after_idle) v = s(v);
  for (auto& b : d.later) b = {s(b.lowest), s(b.highest), b.count};
  d.later_sum = s(d.later_sum);
  d.later_sq_dev *= ns_per_tick * ns_per_tick;
  d.later_dev = static_cast<std::int64_t>(std::llround(double(d.later_dev) * ns_per_tick));
  d.shift = s(d.shift);
  d.later_min = s(d.later_min);
  d.later_max = s(d.later_max);
}

/// Summarises one series: first call, warm-up, steady state, cold recurrences, confidence.
inline timing summarize(const series_data& d) {
  timing t;
  t.calls = d.first.size() + d.after_idle.size() + d.later_count;
  if (t.calls == 0) return t;
  std::uint64_t all = d.later_sum;
  for (const auto& c : d.first) all += c.ns;
  for (std::uint64_t v : d.after_idle) all += v;
  t.total = ns(double(all));
  t.first = ns(double(d.first.empty() ? d.later_min : d.first.front().ns));
  if (t.calls == 1) return t;  // one call is a first call, not a steady state

  // The band is set by the calls after the first that did not come after idling.
  std::vector<weighted> reference;
  std::vector<std::uint64_t> exact_reference;
  for (std::size_t i = 1; i < d.first.size(); ++i)
    if (!d.first[i].candidate) {
      reference.push_back({d.first[i].ns, 1});
      exact_reference.push_back(d.first[i].ns);
    }
  for (const auto& b : d.later) reference.push_back({b.lowest + (b.highest - b.lowest) / 2, b.count});
  if (reference.empty()) {  // every later call came after idling: judge them among themselves
    for (std::size_t i = 1; i < d.first.size(); ++i) reference.push_back({d.first[i].ns, 1});
    for (std::uint64_t v : d.after_idle) reference.push_back({v, 1});
  }
  sort_by_value(reference);
  const double top = band_top(reference, exact_reference);

  t.warmup_calls = warmup_length(d.first, top);
  const std::size_t w = t.warmup_calls;

  // Steady: every call after the warm-up but the cold recurrences.
  std::vector<weighted> steady;
  std::vector<std::uint64_t> exact_steady, cold;
  const auto take = [&](std::uint64_t v, bool candidate) {
    if (candidate && double(v) > top) {
      cold.push_back(v);
    } else {
      steady.push_back({v, 1});
      exact_steady.push_back(v);
    }
  };
  for (std::size_t i = w; i < d.first.size(); ++i) take(d.first[i].ns, d.first[i].candidate);
  for (std::uint64_t v : d.after_idle) take(v, true);
  for (const auto& b : d.later) steady.push_back({b.lowest + (b.highest - b.lowest) / 2, b.count});
  sort_by_value(steady);
  const std::uint64_t n = total_of(steady);
  if (n == 0) return t;

  steady_state s;
  s.calls = n;
  s.p50 = ns(double(quantile(steady, n, 0.50)));
  s.p90 = ns(double(quantile(steady, n, 0.90)));
  s.p99 = ns(double(quantile(steady, n, 0.99)));
  s.p999 = ns(double(quantile(steady, n, 0.999)));
  std::uint64_t lo = UINT64_MAX, hi = 0, sum = d.later_sum;
  for (std::uint64_t v : exact_steady) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  if (d.later_count != 0) {
    lo = std::min(lo, d.later_min);
    hi = std::max(hi, d.later_max);
  }
  s.min = ns(double(lo));
  s.max = ns(double(hi));
  const double mean = double(sum) / double(n);
  s.mean = ns(mean);
  if (n >= 2) {
    // Exact calls directly; bucketed calls from their sums around the shift K:
    // sum (x - mean)^2 = sum (x-K)^2 - 2 (mean-K) sum (x-K) + count (mean-K)^2.
    double sq = 0.0;
    for (std::uint64_t v : exact_steady) sq += (double(v) - mean) * (double(v) - mean);
    if (d.later_count != 0) {
      const double m = mean - double(d.shift);
      sq += d.later_sq_dev - 2.0 * m * double(d.later_dev) + double(d.later_count) * m * m;
    }
    s.stddev = ns(std::sqrt(std::max(0.0, sq) / double(n - 1)));
  }
  if (const auto ranks = median_interval_ranks(n)) {
    s.p50_low = ns(double(at_rank(steady, ranks->first)));
    s.p50_high = ns(double(at_rank(steady, ranks->second)));
  }
  s.enough_calls = n >= steady_state::enough;
  t.steady = s;

  t.first_call_excess = t.first - s.p50;
  std::chrono::nanoseconds warmup_excess{0};
  for (std::size_t i = 0; i < w; ++i) warmup_excess += ns(double(d.first[i].ns)) - s.p50;
  t.warmup_excess = warmup_excess;
  t.cold_recurrences = cold.size();
  for (std::uint64_t v : cold) t.cold_excess += ns(double(v)) - s.p50;
  return t;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
