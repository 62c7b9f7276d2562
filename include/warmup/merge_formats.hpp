/// @file
/// @brief A merged report as a table, JSON (`warmup.merged/1`), CSV and an SVG with one mark
/// per rank: the same four writers as for one report, overloaded on `merged_report`, and
/// each in its format's place (`detail::format_document`, as `report_formats` lists them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/detail/io/csv_writer.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/detail/io/text_table.hpp"
#include "warmup/detail/io/json_writer.hpp"
#include "warmup/merge.hpp"
#include "warmup/report_file.hpp"
#include "warmup/detail/io/svg_writer.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// "1, 2, 5 and 12 more": a list of ranks that stays one line at any scale.
inline std::string rank_list(const std::vector<int>& ranks, std::size_t shown = 8) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < shown; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > shown) out += " and " + std::to_string(ranks.size() - shown) + " more";
  return out;
}

inline std::string spread_cell(const std::optional<spread>& s) {
  if (!s) return "-";
  return format_duration(s->min) + " / " + format_duration(s->median) + " / " + format_duration(s->max);
}

/// "hosts: a (2 ranks), b (2 ranks)": who took part, counted, the most frequent first.
inline std::string tally(const std::vector<merged_rank>& ranks, std::string merged_rank::*field, const char* what) {
  std::vector<std::pair<std::string, std::size_t>> seen;
  for (const merged_rank& r : ranks) {
    const std::string& v = r.*field;
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == v; });
    if (it == seen.end()) seen.emplace_back(v, 1);
    else ++it->second;
  }
  std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = what;
  out += ": ";
  for (std::size_t i = 0; i < seen.size() && i < 4; ++i)
    out += (i ? ", " : "") + printable(seen[i].first.empty() ? "none" : seen[i].first, 48) + " (" +
           std::to_string(seen[i].second) + (seen[i].second == 1 ? " rank)" : " ranks)");
  if (seen.size() > 4) out += " and " + std::to_string(seen.size() - 4) + " more";
  return out;
}

}  // namespace detail

/// @brief A merged report as a table: per site the ranks that have it, calls summed, and the
/// first call, steady p50 and warm-up excess as min / median / max over ranks with the slowest
/// rank; device figures on a row beneath; ranks lacking a site listed under it.
/// \code
///   warmup::print(warmup::merge(std::move(summaries)), std::cout);
/// \endcode
inline void print(const merged_report& m, std::ostream& os) {
  using detail::format_duration;
  os << "warmup merge: " << m.ranks.size() << (m.ranks.size() == 1 ? " rank" : " ranks");
  if (!m.ranks.empty())
    os << "; " << detail::tally(m.ranks, &merged_rank::host, "hosts") << "; "
       << detail::tally(m.ranks, &merged_rank::device, "devices");
  os << '\n';
  detail::text_table t({"site", "op", "clock", "ranks", "calls", "first: min / median / max", "slowest",
                        "p50: min / median / max", "slowest", "warm-up excess median"},
                       3);
  const std::string all = std::to_string(m.ranks.size());
  for (const merged_site& s : m.sites) {
    const auto slowest = [](const std::optional<spread>& x) { return x ? "rank " + std::to_string(x->slowest_rank) : "-"; };
    t.row({detail::printable(s.name, 32), std::string(to_string(s.op)), "host", std::to_string(s.ranks) + "/" + all,
           std::to_string(s.calls), detail::spread_cell(s.first), slowest(s.first), detail::spread_cell(s.p50),
           slowest(s.p50), format_duration(s.warmup_excess.median)});
    if (s.device_first)
      t.row({"", "", "dev", std::to_string(s.device_first->ranks) + "/" + all, "", detail::spread_cell(s.device_first),
             slowest(s.device_first), detail::spread_cell(s.device_p50), slowest(s.device_p50), ""});
    if (!s.missing_ranks.empty()) t.under("missing on ranks " + detail::rank_list(s.missing_ranks));
    if (s.p50 && s.p50->min.count() > 0 && s.p50->max > s.p50->min * 2)
      t.under("steady p50 differs " + detail::fmt("%.1f", double(s.p50->max.count()) / double(s.p50->min.count())) +
              "x across ranks: the slowest rank sets the pace of a collective");
  }
  t.print(os);
  if (m.sites.empty()) os << "(no site in any report)\n";
  for (const std::string& n : m.notices) os << "notice: " << detail::printable(n, 400) << '\n';
}

/// @brief A merged report as one line of JSON, schema `warmup.merged/1` (docs/reports.md, "Merged
/// reports"): `ranks` (who), `notices`, and `sites`, each with its spreads and `per_rank` figures.
/// Durations are integer nanoseconds; `warmup::read_merged` reads it back.
/// \code
///   std::ofstream("merged.json") << warmup::to_json(merged) << '\n';
/// \endcode
inline std::string to_json(const merged_report& m) { return detail::document_json(merged_json_schema, m); }

/// @brief A merged report as CSV: one row per site, the JSON site's fields flattened by dotted
/// path (`first.min`, `first.slowest_rank`, `p50.median`, ...), lists left out.
inline std::string to_csv(const merged_report& m) { return detail::csv_table(m.sites); }

/// @brief A merged report as one self-contained SVG: a row per site, time on a shared log
/// axis, one tick per rank for its first call (red) and its steady p50 (blue), the medians
/// marked and the slowest rank named.
/// \code
///   std::ofstream("merged.svg") << warmup::to_svg(merged);
/// \endcode
inline std::string to_svg(const merged_report& m) {
  using namespace detail;
  double lo_ns = 1e300, hi_ns = 1;
  for (const merged_site& s : m.sites)
    for (const rank_figures& f : s.per_rank) {
      lo_ns = std::min(lo_ns, std::max(1.0, double(f.first.count())));
      hi_ns = std::max(hi_ns, double(f.first.count()));
      if (f.p50) lo_ns = std::min(lo_ns, std::max(1.0, double(f.p50->count()))), hi_ns = std::max(hi_ns, double(f.p50->count()));
    }
  if (lo_ns > hi_ns) lo_ns = 1;
  const double lo = std::floor(std::log10(lo_ns)), hi = std::max(lo + 1, std::ceil(std::log10(hi_ns)));
  const double name_w = 230, plot_w = 640, right_w = 150, row_h = 30, head = 74, gap = 12;
  const double width = gap + name_w + plot_w + right_w + gap;
  const double height = head + row_h * double(std::max<std::size_t>(m.sites.size(), 1)) + 40;
  const auto X = [&](double ns) { return gap + name_w + plot_w * (std::log10(std::max(ns, 1.0)) - lo) / (hi - lo); };
  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" + fmt("%.0f", height) +
       "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) + "\" font-family=\"sans-serif\">\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#f6f7f9\"/>\n";
  o += "<text x=\"" + fmt("%.0f", gap) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#1f2430\">" +
       xml_text("warmup merge: " + std::to_string(m.ranks.size()) + " ranks, one mark per rank", 200) + "</text>\n";
  o += "<line x1=\"" + fmt("%.0f", gap) + "\" x2=\"" + fmt("%.0f", gap + 12) +
       "\" y1=\"42\" y2=\"42\" stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"" + fmt("%.0f", gap + 17) +
       "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">first call</text>\n";
  o += "<line x1=\"" + fmt("%.0f", gap + 90) + "\" x2=\"" + fmt("%.0f", gap + 102) +
       "\" y1=\"42\" y2=\"42\" stroke=\"#4c72b0\" stroke-width=\"2\"/><text x=\"" + fmt("%.0f", gap + 107) +
       "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">steady p50</text>\n";
  o += "<text x=\"" + fmt("%.0f", gap + 190) +
       "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">tall mark: median over ranks; right: the slowest rank's first call</text>\n";
  const double top = head - 8, bottom = head + row_h * double(m.sites.size());
  for (double d = lo; d <= hi; ++d) {
    const double x = X(std::pow(10, d));
    o += "<line x1=\"" + fmt("%.1f", x) + "\" x2=\"" + fmt("%.1f", x) + "\" y1=\"" + fmt("%.0f", top) + "\" y2=\"" +
         fmt("%.0f", bottom) + "\" stroke=\"#e2e5ea\"/>\n";
    o += "<text x=\"" + fmt("%.1f", x) + "\" y=\"" + fmt("%.0f", bottom + 14) +
         "\" font-size=\"9\" fill=\"#5a6270\" text-anchor=\"middle\">" + decade_label(static_cast<int>(d)) + "</text>\n";
  }
  if (m.sites.empty())
    o += "<text x=\"" + fmt("%.0f", gap) + "\" y=\"" + fmt("%.0f", head + 20) +
         "\" font-size=\"12\" fill=\"#5a6270\">no site in any report</text>\n";
  for (std::size_t i = 0; i < m.sites.size(); ++i) {
    const merged_site& s = m.sites[i];
    const double y = head + row_h * double(i) + row_h / 2;
    o += "<text x=\"" + fmt("%.0f", gap) + "\" y=\"" + fmt("%.1f", y + 4) + "\" font-size=\"11\" fill=\"#1f2430\">" +
         xml_text(s.name, 30) + " <tspan fill=\"#8a92a0\">" + std::string(to_string(s.op)) + " \xC2\xB7 " +
         std::to_string(s.ranks) + " ranks</tspan></text>\n";
    // One path per figure: a short tick per rank keeps 1,024 ranks x 200 sites a few MB.
    std::string first, p50;
    for (const rank_figures& f : s.per_rank) {
      first += "M" + fmt("%.1f", X(double(f.first.count()))) + " " + fmt("%.1f", y - 9) + "v8";
      if (f.p50) p50 += "M" + fmt("%.1f", X(double(f.p50->count()))) + " " + fmt("%.1f", y + 1) + "v8";
    }
    if (!first.empty()) o += "<path d=\"" + first + "\" stroke=\"#d62728\" stroke-opacity=\"0.6\"/>\n";
    if (!p50.empty()) o += "<path d=\"" + p50 + "\" stroke=\"#4c72b0\" stroke-opacity=\"0.6\"/>\n";
    const auto median_mark = [&](const std::optional<spread>& sp, double y0, const char* colour) {
      if (!sp) return;
      o += "<line x1=\"" + fmt("%.1f", X(double(sp->median.count()))) + "\" x2=\"" + fmt("%.1f", X(double(sp->median.count()))) +
           "\" y1=\"" + fmt("%.1f", y0 - 3) + "\" y2=\"" + fmt("%.1f", y0 + 11) + "\" stroke=\"" + colour +
           "\" stroke-width=\"2.5\"/>\n";
    };
    median_mark(s.first, y - 9, "#8b1a1a");
    median_mark(s.p50, y + 1, "#203f73");
    o += "<text x=\"" + fmt("%.0f", gap + name_w + plot_w + 8) + "\" y=\"" + fmt("%.1f", y + 4) +
         "\" font-size=\"10\" fill=\"#5a6270\">" +
         xml_text("rank " + std::to_string(s.first.slowest_rank) + ": " + format_duration(s.first.max), 40) + "</text>\n";
  }
  o += "</svg>\n";
  return o;
}

namespace detail {

/// A merged report's writers, one a format, nullptr where the format's row (`report_formats`)
/// does not name a merged report: a trace, as a merge keeps no timeline.
template <>
struct document_writers<merged_report> {
  static constexpr document_kind kind = document_kind::merged;
  static constexpr format_writer<merged_report> writers[] = {
      {report_format::table, printed<merged_report>},
      {report_format::json, [](const merged_report& m) { return to_json(m) + '\n'; }},
      {report_format::csv, to_csv},
      {report_format::svg, to_svg},
  };
};
static_assert(writers_match_rows(document_writers<merged_report>::writers),
              "warmup: a merged report's writers are the formats whose rows name a merged report, each once");

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
