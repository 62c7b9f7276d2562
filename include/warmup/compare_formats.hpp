/// @file
/// @brief A comparison (compare.hpp) as a table and as JSON (`warmup.compare/1`), and each in
/// its format's place (`detail::format_document`, as `report_formats` lists them), beside a
/// merged report's writers (merge_formats.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "warmup/compare.hpp"
#include "warmup/detail/io/json_writer.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/detail/io/text_table.hpp"
#include "warmup/report_file.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief A comparison as a table: per site and figure (in the comparison's order, each under
/// its row's words in the figure table), base -> new, the ratio and the verdict; then the
/// sites in one run only, and a last line that says whether anything regressed.
/// \code
///   warmup::print(warmup::compare(base, now), std::cout);
/// \endcode
inline void print(const comparison& c, std::ostream& os) {
  using detail::format_duration;
  os << "warmup compare: threshold " << detail::fmt("%.1f", c.threshold * 100) << "%, floor " << format_duration(c.floor)
     << " (first calls " << format_duration(c.first_floor)
     << "); p50 verdicts need the 95% intervals apart where both runs have them\n";
  if (!c.run_changes.empty()) {
    // Above the verdicts: a new driver or runtime explains a first call's change before the code does.
    os << "changed between the runs (first calls depend on it):\n";
    for (const setup_change& x : c.run_changes)
      os << "  " << x.what << ": " << detail::printable(x.base, 200) << " -> " << detail::printable(x.now, 200) << '\n';
  }
  detail::text_table t({"site", "op", "figure", "base", "new", "new/base", "verdict"}, 3);
  const auto row = [&](const site_change& s, const char* what, const figure_change& f, bool with_name) {
    const auto cell = [](const detail::opt_ns& v) { return v ? format_duration(*v) : std::string("-"); };
    std::string v(to_string(f.change));
    if (f.change == verdict::slower) v = "SLOWER";
    if (!f.basis.empty() && f.change != verdict::same) v += " (" + f.basis + ")";
    t.row({with_name ? detail::printable(s.name, 32) : "", with_name ? std::string(to_string(s.op)) : "", what, cell(f.base),
           cell(f.now), f.ratio ? detail::fmt("%.3f", *f.ratio) : "-", v});
  };
  for (const site_change& s : c.sites) {
    bool with_name = true;  // on the site's first row
    detail::for_each_judged([&](auto figure) {
      const auto& f = s.*(figure.template member<site_change>());
      if constexpr (detail::is_optional<std::decay_t<decltype(f)>>) {
        if (!f) return;  // a device figure where neither run timed the device
        row(s, figure.label, *f, with_name);
      } else {
        row(s, figure.label, f, with_name);
      }
      with_name = false;
    });
  }
  t.print(os);
  for (const site_name& s : c.removed) os << "removed (base only): " << to_string(s.op) << " " << detail::printable(s.name, 80) << '\n';
  for (const site_name& s : c.added) os << "added (new only): " << to_string(s.op) << " " << detail::printable(s.name, 80) << '\n';
  for (const std::string& n : c.notices) os << "notice: " << detail::printable(n, 400) << '\n';
  std::size_t slower = 0;
  for (const site_change& s : c.sites) slower += s.regressed;
  if (c.regressed) os << "REGRESSED: " << slower << " of " << c.sites.size() << " sites slower beyond the threshold\n";
  else os << "no regression: " << c.sites.size() << " sites compared\n";
}

/// @brief A comparison as one line of JSON, schema `warmup.compare/1` (docs/reports.md).
/// \code
///   std::ofstream("compare.json") << warmup::to_json(warmup::compare(base, now)) << '\n';
/// \endcode
inline std::string to_json(const comparison& c) { return detail::document_json(compare_json_schema, c); }

namespace detail {

/// A comparison's writers, one a format, nullptr where the format's row (`report_formats`)
/// does not name a comparison: CSV, a trace and a picture.
template <>
struct document_writers<comparison> {
  static constexpr document_kind kind = document_kind::comparison;
  static constexpr format_writer<comparison> writers[] = {
      {report_format::table, printed<comparison>},
      {report_format::json, [](const comparison& c) { return to_json(c) + '\n'; }},
  };
};
static_assert(writers_match_rows(document_writers<comparison>::writers),
              "warmup: a comparison's writers are the formats whose rows name a comparison, each once");

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
