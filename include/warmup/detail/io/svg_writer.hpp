/// @file
/// @brief The SVG writer's parts: a panel per site (svg-inl.hpp defines `to_svg`, which svg.hpp
/// declares, with them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/svg.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline std::string xml_text(std::string_view s, std::size_t max_bytes) {
  const std::string v = printable(repair_utf8(s, controls::drop_all), max_bytes);
  std::string out;
  for (char c : v) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// "1 ns", "10 ns", ... "100 ms", "1 s", "10 s": axis labels at powers of ten.
inline std::string decade_label(int d) {
  static const char* const units[] = {"ns", "us", "ms", "s"};
  const int u = std::clamp(d / 3, 0, 3);
  std::string digits = "1";
  for (int i = 0; i < d - 3 * u; ++i) digits += '0';
  return digits + " " + units[u];
}

struct svg_point {
  double x, y;  // call index, nanoseconds
  enum kind_t { first, warmup, steady, device } kind;
};

/// How each kind of point is drawn, in `svg_point::kind_t`'s order, with its words in the
/// legend: a colour is said once, for the points and the legend alike.
struct svg_point_style {
  const char* label;
  const char* fill;
  const char* stroke;
};
inline constexpr svg_point_style svg_point_styles[] = {{"first call", "#d62728", "none"},
                                                       {"warm-up", "#ff7f0e", "none"},
                                                       {"steady (host)", "#4c72b0", "none"},
                                                       {"device", "none", "#2ca02c"}};
static_assert(std::size(svg_point_styles) == svg_point::device + 1, "warmup: one style a kind of point");

// Panel geometry, in pixels.
inline constexpr double panel_w = 380, panel_h = 200, plot_l = 56, plot_r = 12, plot_t = 44, plot_b = 30;

// A cause bar's row under a panel's plot: a line of text, then the bar.
inline constexpr double bar_row_h = 34, bar_h = 12;

/// A cause's colour in the bars (its row in cause.hpp): none of the points' red, orange, blue
/// or green, so that the picture's reader (and the render test) never takes a bar for a call.
inline const char* cause_colour(cause c) noexcept { return cause_table[static_cast<std::size_t>(c)].colour; }

/// The cold calls a site's bars split: its first call's, then its calls cold again.
using cause_bars = std::vector<std::pair<const attribution*, std::string>>;
inline cause_bars bars_of(const site_report& s) {
  cause_bars out;
  const auto has = [](const std::optional<attribution>& a) {
    return a && a->excess.count() > 0 && !a->causes.empty();
  };
  if (has(s.host.first_call_causes)) out.emplace_back(&*s.host.first_call_causes, "first call");
  if (has(s.host.cold_causes))
    out.emplace_back(&*s.host.cold_causes, s.host.cold_causes->calls == 1 ? std::string("cold again")
                                                                            : std::to_string(s.host.cold_causes->calls) + " calls cold again");
  return out;
}

/// A bar of the excess split by cause, largest first, each part's share of the excess written on
/// it where it fits, and above the bar the leading causes in words. Where the named causes exceed
/// the excess the bar is their sum, and says by how much; what no cause explains is the grey part.
inline void svg_cause_bar(std::string& o, const attribution& a, const std::string& who, bool has_steady, double y) {
  const double x0 = 10, w = panel_w - 20;
  const double whole = double(std::max(a.excess, a.named).count());
  // Without a steady p50 (a site called once) the excess is the whole call.
  std::string words = who + " " + format_duration(a.excess) + (has_steady ? " over p50:" : ", no steady p50:");
  const std::string over = a.unattributed.count() < 0 ? " (causes exceed it by " + format_magnitude(a.unattributed) + ")" : "";
  // The panel's width holds some 80 characters of 10-pixel sans-serif (4.5 pixels each, as
  // Chromium draws them): the causes named in words stop at the first that does not fit (the bar
  // and its tooltips carry them all).
  constexpr std::size_t words_fit = 82;
  std::size_t listed = 0;
  bool words_full = false;
  double x = x0;
  std::string parts;
  const auto part = [&](double ns, const char* fill, const std::string& name, const std::string& pct, bool remainder) {
    const double pw = w * ns / whole;
    if (pw <= 0) return;
    parts += "<rect x=\"" + fmt("%.2f", x) + "\" y=\"" + fmt("%.1f", y + 16) + "\" width=\"" + fmt("%.2f", pw) +
             "\" height=\"" + fmt("%.0f", bar_h) + "\" fill=\"" + fill + "\"><title>" + xml_text(name + " " + pct, 200) +
             "</title></rect>\n";
    // The share where it fits; the grey part says what it is, as no cause's words above name it.
    const std::string label = remainder && pw >= 110 ? pct + " " + name : pct;
    if (pw >= 30)
      parts += "<text x=\"" + fmt("%.1f", x + pw / 2) + "\" y=\"" + fmt("%.1f", y + 25.5) +
               "\" font-size=\"9\" fill=\"#1f2430\" text-anchor=\"middle\">" + xml_text(label, 32) + "</text>\n";
    x += pw;
  };
  // Host code comes a part per shared object (by_object, cause.hpp): shades of its colour in turn
  // tell neighbours apart.
  static const char* const object_shades[] = {"#e7ba52", "#f3dc9c", "#c99a2e"};
  std::size_t object_parts = 0;
  for (const cause_time& c : a.causes) {
    const bool per_object = by_object(c.what);
    const std::string name = std::string(describe(c.what)) + (per_object ? " " + printable(c.where, 24) : std::string());
    const std::string pct = share(c.time, a.excess);
    part(double(c.time.count()), per_object ? object_shades[object_parts++ % 3] : cause_colour(c.what), name, pct, false);
    const std::string more = (listed == 0 ? " " : ", ") + pct + " " + name;
    if (!words_full && words.size() + more.size() + over.size() <= words_fit) words += more, ++listed;
    else words_full = true;
  }
  if (a.unattributed.count() > 0)
    part(double(a.unattributed.count()), "#d9dce1", "unattributed", share(a.unattributed, a.excess), true);
  if (listed < a.causes.size()) words += listed == 0 ? " ..." : ", ...";
  words += over;
  o += "<text x=\"" + fmt("%.0f", x0) + "\" y=\"" + fmt("%.1f", y + 11) + "\" font-size=\"10\" fill=\"#1f2430\">" +
       xml_text(words, 160) + "</text>\n";
  // The remedies fit as the bar's tooltip: the picture's layout stays the causes'.
  std::string remedies;
  for (std::size_t i = 0; i < a.remedies.size() && i < 4; ++i)
    remedies += (i == 0 ? "remedies: " : ", ") + printable(a.remedies[i].remedy, 40) + " up to " + format_duration(a.remedies[i].could_save);
  o += "<rect x=\"" + fmt("%.0f", x0) + "\" y=\"" + fmt("%.1f", y + 16) + "\" width=\"" + fmt("%.0f", w) + "\" height=\"" +
       fmt("%.0f", bar_h) + "\" fill=\"#f0f1f4\"" +
       (remedies.empty() ? std::string("/>\n") : "><title>" + xml_text(remedies, 240) + "</title></rect>\n") + parts;
}

/// The panel's text where it has no point to draw.
inline const char* no_points_text(const report& r, const site_report& s) noexcept {
  // A warmup.report/2 document carried no call times: the figures above stand, the points do not.
  return s.calls == 0 || r.call_times_recorded ? "no calls yet" : "call times not in this report (warmup.report/2)";
}

inline void svg_panel(std::string& o, const report& whole, const site_report& s, const cause_bars& bars, double ox, double oy,
                      double height) {
  std::vector<svg_point> pts;
  for (std::size_t i = 0; i < s.first_calls.size(); ++i)
    pts.push_back({double(i), double(s.first_calls[i].count()),
                   i == 0 ? svg_point::first : i < s.host.warmup_calls ? svg_point::warmup : svg_point::steady});
  for (const call_record& c : s.timeline) {
    if (c.index >= s.first_calls.size()) pts.push_back({double(c.index), double(c.host.count()), svg_point::steady});
    if (c.device) pts.push_back({double(c.index), double(c.device->count()), svg_point::device});
  }
  o += "<g transform=\"translate(" + fmt("%.0f", ox) + "," + fmt("%.0f", oy) + ")\">\n";
  o += "<rect x=\"0.5\" y=\"0.5\" width=\"" + fmt("%.0f", panel_w - 1) + "\" height=\"" + fmt("%.0f", height - 1) +
       "\" rx=\"6\" fill=\"#ffffff\" stroke=\"#d0d4dc\"/>\n";
  o += "<text x=\"10\" y=\"18\" font-size=\"13\" font-weight=\"bold\" fill=\"#1f2430\">" + xml_text(s.name, 44) +
       "</text>\n";
  std::string sub = std::string(to_string(s.op)) + " \xC2\xB7 " + std::to_string(s.calls) + " calls \xC2\xB7 first " +
                    format_duration(s.host.first);
  if (s.host.steady) sub += " \xC2\xB7 p50 " + format_duration(s.host.steady->p50);
  if (s.host.warmup_calls != 0) sub += " \xC2\xB7 warm-up " + std::to_string(s.host.warmup_calls);
  o += "<text x=\"10\" y=\"34\" font-size=\"11\" fill=\"#5a6270\">" + xml_text(sub, 120) + "</text>\n";
  double bar_y = panel_h - 2;
  for (const auto& [a, who] : bars) svg_cause_bar(o, *a, who, s.host.steady.has_value(), bar_y), bar_y += bar_row_h;
  if (pts.empty()) {
    o += "<text x=\"" + fmt("%.0f", panel_w / 2) + "\" y=\"" + fmt("%.0f", panel_h / 2 + 10) +
         "\" font-size=\"11\" fill=\"#5a6270\" text-anchor=\"middle\">" + no_points_text(whole, s) + "</text>\n</g>\n";
    return;
  }
  double ymin = 1e300, ymax = 1, xmax = 1;
  for (const auto& p : pts) {
    ymin = std::min(ymin, std::max(p.y, 1.0));
    ymax = std::max(ymax, p.y);
    xmax = std::max(xmax, p.x + 1);
  }
  const double lo = std::floor(std::log10(ymin)), hi = std::max(lo + 1, std::ceil(std::log10(ymax)));
  const double lx = std::log10(std::max(xmax, 10.0));
  const double pw = panel_w - plot_l - plot_r, ph = panel_h - plot_t - plot_b;
  const auto X = [&](double index) { return plot_l + pw * std::log10(index + 1) / lx; };
  const auto Y = [&](double ns) { return plot_t + ph * (1 - (std::log10(std::max(ns, 1.0)) - lo) / (hi - lo)); };
  // Decade grid and labels: time on the left, call number below.
  for (double d = lo; d <= hi; ++d) {
    const double y = Y(std::pow(10, d));
    o += "<line x1=\"" + fmt("%.1f", plot_l) + "\" x2=\"" + fmt("%.1f", plot_l + pw) + "\" y1=\"" + fmt("%.1f", y) +
         "\" y2=\"" + fmt("%.1f", y) + "\" stroke=\"#eceef2\"/>\n";
    o += "<text x=\"" + fmt("%.1f", plot_l - 4) + "\" y=\"" + fmt("%.1f", y + 3.5) +
         "\" font-size=\"9\" fill=\"#5a6270\" text-anchor=\"end\">" +
         decade_label(static_cast<int>(d)) + "</text>\n";
  }
  for (double d = 0; d <= std::ceil(lx); ++d) {
    const double call = std::pow(10, d);
    if (call > std::pow(10, lx) * 1.0001) break;
    const double x = X(call - 1);
    o += "<line x1=\"" + fmt("%.1f", x) + "\" x2=\"" + fmt("%.1f", x) + "\" y1=\"" + fmt("%.1f", plot_t) + "\" y2=\"" +
         fmt("%.1f", plot_t + ph) + "\" stroke=\"#eceef2\"/>\n";
    o += "<text x=\"" + fmt("%.1f", x) + "\" y=\"" + fmt("%.1f", plot_t + ph + 12) +
         "\" font-size=\"9\" fill=\"#5a6270\" text-anchor=\"middle\">" + fmt("%.0f", call) + "</text>\n";
  }
  o += "<text x=\"" + fmt("%.1f", plot_l + pw / 2) + "\" y=\"" + fmt("%.1f", panel_h - 4) +
       "\" font-size=\"9\" fill=\"#8a92a0\" text-anchor=\"middle\">call number (log)</text>\n";
  if (s.host.steady) {  // the steady band, p50 to p99, and its p50
    const double y50 = Y(double(s.host.steady->p50.count())), y99 = Y(double(s.host.steady->p99.count()));
    o += "<rect x=\"" + fmt("%.1f", plot_l) + "\" y=\"" + fmt("%.1f", y99 - 1) + "\" width=\"" + fmt("%.1f", pw) +
         "\" height=\"" + fmt("%.1f", std::max(2.0, y50 - y99 + 2)) + "\" fill=\"#4c72b0\" fill-opacity=\"0.12\"/>\n";
    o += "<line x1=\"" + fmt("%.1f", plot_l) + "\" x2=\"" + fmt("%.1f", plot_l + pw) + "\" y1=\"" + fmt("%.1f", y50) +
         "\" y2=\"" + fmt("%.1f", y50) + "\" stroke=\"#4c72b0\" stroke-dasharray=\"4 3\"/>\n";
  }
  o += "<rect x=\"" + fmt("%.1f", plot_l) + "\" y=\"" + fmt("%.1f", plot_t) + "\" width=\"" + fmt("%.1f", pw) +
       "\" height=\"" + fmt("%.1f", ph) + "\" fill=\"none\" stroke=\"#b8bec9\"/>\n";
  // Steady points first, so the first and warm-up calls are drawn on top.
  for (int pass = 0; pass < 4; ++pass)
    for (const auto& p : pts) {
      const int order[] = {3, 2, 1, 0};  // device, steady, warm-up, first
      if (int(p.kind) != order[pass]) continue;
      const svg_point_style& style = svg_point_styles[p.kind];
      const double r = p.kind == svg_point::first ? 5 : p.kind == svg_point::warmup ? 4 : 2.5;
      o += "<circle cx=\"" + fmt("%.1f", X(p.x)) + "\" cy=\"" + fmt("%.1f", Y(p.y)) + "\" r=\"" + fmt("%.1f", r) +
           "\" fill=\"" + style.fill + "\" stroke=\"" + style.stroke + "\"/>\n";
    }
  o += "</g>\n";
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
