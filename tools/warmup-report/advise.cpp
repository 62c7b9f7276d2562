// `warmup-report advise REPORT.json`: a report's first calls, each with the remedies its causes
// support (warmup/remedy.hpp), worked out again from the causes by this version's table, so that
// a report written before a remedy existed gets it too.
#include "advise.hpp"

#include "remedy_figures.hpp"

#include <warmup/remedy.hpp>
#include <warmup/detail/io/remedy_text.hpp>
#include <warmup/detail/io/text.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// A cold call with causes: its site, which calls, and the attribution.
struct cold_call {
  const warmup::site_report* site;
  const char* which;
  const warmup::attribution* why;
};

}  // namespace

void advise(const warmup::report& r, const std::string& path) {
  namespace d = warmup::detail;
  std::vector<cold_call> calls;
  for (const warmup::site_report& s : r.sites) {
    if (s.host.first_call_causes) calls.push_back({&s, "first call", &*s.host.first_call_causes});
    if (s.host.cold_causes) calls.push_back({&s, "calls cold again", &*s.host.cold_causes});
  }
  if (calls.empty()) {
    std::cout << d::printable(path, 200)
              << " names no causes: run the program with WARMUP_ATTRIBUTION=1 (and WARMUP_CPU_SAMPLING=on for host "
                 "and Python code) for a report whose first calls say why, and so what to do\n";
    return;
  }
  // The largest excess first: where a remedy can save the most.
  std::stable_sort(calls.begin(), calls.end(), [](const cold_call& x, const cold_call& y) { return x.why->excess > y.why->excess; });
  bool any = false;
  for (const cold_call& c : calls) {
    const std::vector<warmup::remedy_saving> remedies = warmup::remedies_for(*c.why);
    if (remedies.empty()) continue;
    any = true;
    std::cout << d::printable(c.site->name, 120) << " (" << warmup::to_string(c.site->op) << "), " << c.which << ": "
              << d::format_duration(c.why->excess) << " over the steady p50, " << d::format_duration(c.why->named)
              << " of it named\n";
    for (const warmup::remedy_saving& s : remedies)  // names of this version's table: remedies_for's own
      if (const d::remedy_row* row = d::remedy_row_named(s.remedy))
        for (const std::string& line : advice_lines(*row, s.could_save)) std::cout << line << '\n';
    std::cout << '\n';
  }
  if (!any) std::cout << "no cold call of " << d::printable(path, 200) << " has a cause any remedy applies to\n";
}
