// `warmup-report try`'s verdict on one figure: a remedy's runs against the cold runs (try.cpp).
// Header-only, so that tests/host/test_try_verdict.cpp reaches the rule itself.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace try_tool {

/// What a remedy did to one figure, as `verdict_of` decides it.
enum class verdict : std::uint8_t { better, worse, same, too_few };

/// The words the table and the JSON use: "better", "worse", "same within noise", "too few runs".
constexpr std::string_view to_words(verdict v) noexcept {
  switch (v) {
    case verdict::better: return "better";
    case verdict::worse: return "worse";
    case verdict::same: return "same within noise";
    case verdict::too_few: return "too few runs";
  }
  return "?";
}

/// The figures of one side (cold, or with a remedy): median, least and most, in nanoseconds.
struct spread {
  std::size_t runs = 0;
  double median = 0, min = 0, max = 0;
};

/// The spread of `values` (any order); all zero where there are none.
inline spread spread_of(std::vector<double> values) {
  spread s;
  s.runs = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.min = values.front(), s.max = values.back();
  return s;
}

/// The rule's thresholds: a difference of medians smaller than both is no difference.
struct verdict_rule {
  double relative = 0.10;     ///< of the cold median
  double floor_ns = 50000;    ///< 50 us
  std::size_t min_runs = 3;   ///< on each side; fewer: "too few runs"
};

/// The verdict on one figure, from the cold runs' values and the remedy's.
///
/// "better" only where every remedy run is below every cold run (complete separation) and the
/// medians differ by more than `relative` of the cold median and by more than `floor_ns`;
/// "worse" the same the other way; else "same within noise". Why: separation is the test that
/// holds whatever the noise's shape (a first call is one sample a run, its noise not normal).
/// Were the remedy to do nothing, the 2N runs would be exchangeable and all N of one side below
/// all N of the other by chance with probability 2 / C(2N, N): 0.8% at N = 5, 10% at N = 3 (the
/// least `try` takes), so the margin on the medians guards against calling a trivial difference
/// (a few microseconds on a call of milliseconds, which a stable machine separates) a change:
/// 10% or 50 us, whichever is larger. With fewer than `min_runs` on either side (runs that
/// failed), no verdict is given.
inline verdict verdict_of(const std::vector<double>& cold, const std::vector<double>& with, const verdict_rule& rule = {}) {
  if (cold.size() < rule.min_runs || with.size() < rule.min_runs) return verdict::too_few;
  const spread c = spread_of(cold), w = spread_of(with);
  const double margin = std::max(rule.relative * c.median, rule.floor_ns);
  if (w.max < c.min && c.median - w.median > margin) return verdict::better;
  if (w.min > c.max && w.median - c.median > margin) return verdict::worse;
  return verdict::same;
}

}  // namespace try_tool
