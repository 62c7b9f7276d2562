/// @file
/// @brief `to_svg` (svg.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/svg_writer.hpp"

WARMUP_BEGIN_NAMESPACE
WARMUP_DETAIL_RUNTIME std::string to_svg(const report& r) {
  using namespace detail;
  const std::size_t n = r.sites.size();
  const std::size_t cols = std::max<std::size_t>(1, std::min<std::size_t>(3, n));
  const std::size_t rows = std::max<std::size_t>(1, (n + cols - 1) / cols);
  const double gap = 12, head = 58;
  // A row of panels is as tall as its panel with the most cause bars.
  std::vector<cause_bars> bars(n);
  std::vector<double> row_h(rows, panel_h), offsets(rows, 0);
  for (std::size_t i = 0; i < n; ++i) {
    bars[i] = bars_of(r.sites[i]);
    row_h[i / cols] = std::max(row_h[i / cols], panel_h + bar_row_h * double(bars[i].size()));
  }
  for (std::size_t k = 1; k < rows; ++k) offsets[k] = offsets[k - 1] + row_h[k - 1] + gap;
  // At least wide enough for the legend, even with one panel.
  const double width = std::max(620.0, double(cols) * (panel_w + gap) + gap);
  const double height = head + offsets.back() + row_h.back() + gap;
  std::string o;
  o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", width) + "\" height=\"" + fmt("%.0f", height) +
       "\" viewBox=\"0 0 " + fmt("%.0f", width) + " " + fmt("%.0f", height) + "\" font-family=\"sans-serif\">\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#f6f7f9\"/>\n";
  std::string title = "warmup: first call vs steady state";
  if (r.device) title += " \xE2\x80\x94 " + r.device->name;
  o += "<text x=\"" + fmt("%.0f", gap) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#1f2430\">" +
       xml_text(title, 200) + "</text>\n";
  double lx = gap;
  for (const svg_point_style& l : svg_point_styles) {
    o += "<circle cx=\"" + fmt("%.0f", lx + 5) + "\" cy=\"42\" r=\"4\" fill=\"" + l.fill + "\" stroke=\"" + l.stroke +
         "\"/><text x=\"" + fmt("%.0f", lx + 13) + "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">" + l.label +
         "</text>\n";
    lx += 110;
  }
  o += "<rect x=\"" + fmt("%.0f", lx) + "\" y=\"37\" width=\"14\" height=\"10\" fill=\"#4c72b0\" fill-opacity=\"0.12\"/>"
       "<text x=\"" + fmt("%.0f", lx + 19) + "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">steady band, p50 to p99</text>\n";
  if (n == 0)
    o += "<text x=\"" + fmt("%.0f", gap) + "\" y=\"" + fmt("%.0f", head + 30) +
         "\" font-size=\"12\" fill=\"#5a6270\">no site was measured</text>\n";
  for (std::size_t i = 0; i < n; ++i)
    svg_panel(o, r, r.sites[i], bars[i], gap + double(i % cols) * (panel_w + gap), head + offsets[i / cols], row_h[i / cols]);
  o += "</svg>\n";
  return o;
}
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
