// `warmup-report try`'s verdicts (try_compare.hpp).
#include "try_compare.hpp"

#include <algorithm>
#include <utility>

namespace try_tool {

namespace {

using site_key = std::pair<std::string, std::string>;  // kind, name

/// The sites of `runs`, in the order they first appear.
void add_sites(const std::vector<run_result>& runs, std::vector<site_key>& keys) {
  for (const run_result& r : runs)
    for (const site_figures& s : r.sites)
      if (std::find(keys.begin(), keys.end(), site_key{s.op, s.name}) == keys.end()) keys.emplace_back(s.op, s.name);
}

/// One figure of site `k` over the runs that succeeded and have it.
template <class Get>
std::vector<double> values(const std::vector<run_result>& runs, const site_key& k, Get get) {
  std::vector<double> out;
  for (const run_result& r : runs) {
    if (!r.ok) continue;
    for (const site_figures& s : r.sites)
      if (s.op == k.first && s.name == k.second) {
        if (const std::optional<std::int64_t> v = get(s)) out.push_back(double(*v));
        break;
      }
  }
  return out;
}

figure_verdict judged(std::string op, std::string site, std::string figure, const std::vector<double>& cold,
                      const std::vector<double>& with, const verdict_rule& rule) {
  return {std::move(op), std::move(site), std::move(figure), spread_of(cold), spread_of(with), verdict_of(cold, with, rule)};
}

}  // namespace

void compare_with_cold(const trial& cold, trial& t, const verdict_rule& rule) {
  std::vector<site_key> keys;
  add_sites(cold.runs, keys);
  add_sites(t.runs, keys);
  const auto first = [](const site_figures& s) { return std::optional<std::int64_t>(s.first); };
  const auto result = [](const site_figures& s) { return s.first_result; };
  for (const site_key& k : keys) {
    t.verdicts.push_back(judged(k.first, k.second, "first call", values(cold.runs, k, first), values(t.runs, k, first), rule));
    const std::vector<double> c = values(cold.runs, k, result), w = values(t.runs, k, result);
    if (!c.empty() || !w.empty()) t.verdicts.push_back(judged(k.first, k.second, "time to first result", c, w, rule));
  }
  const auto walls = [](const std::vector<run_result>& runs) {
    std::vector<double> out;
    for (const run_result& r : runs)
      if (r.ok) out.push_back(double(r.wall));
    return out;
  };
  t.verdicts.push_back(judged("", "", "wall time", walls(cold.runs), walls(t.runs), rule));
}

}  // namespace try_tool
