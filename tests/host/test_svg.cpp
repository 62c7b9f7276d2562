// The SVG picture as written: its plot, legend, points and cause words.
#include "catch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/remedy.hpp"
#include "warmup/detail/io/svg_writer.hpp"  // the panel's size, the points' styles

using namespace std::chrono_literals;

namespace {
// A host-timed site of `calls` calls whose first calls took `first`, as a snapshot holds it.
warmup::site_report site_of(const char* name, std::size_t calls, std::vector<std::chrono::nanoseconds> first) {
  warmup::site_report s;
  s.name = name;
  s.calls = s.host.calls = calls;
  s.first_calls = std::move(first);
  s.host.first = s.first_calls.front();
  return s;
}

// A site "caused" whose first call took `first`, `excess` of it over the steady p50 (where the two
// differ: a second call's), named in full by `causes`.
warmup::site_report caused_site(std::chrono::nanoseconds first, std::chrono::nanoseconds excess,
                                std::vector<warmup::cause_time> causes) {
  warmup::site_report s;
  s.name = "caused";
  s.calls = s.host.calls = excess < first ? 2 : 1;
  s.host.first = first;
  if (excess < first) {
    warmup::steady_state st;
    st.calls = 1;
    st.p50 = st.p90 = st.p99 = st.p999 = st.min = st.max = st.mean = first - excess;
    s.host.steady = st;
  }
  warmup::attribution why;
  why.calls = 1;
  why.call = first;
  why.excess = why.named = excess;
  why.causes = std::move(causes);
  s.host.first_call_causes = why;
  return s;
}
}  // namespace

TEST_CASE("the SVG's plot spans the calls it draws: call 1 at the left edge, the last at the right") {
  using ns = std::chrono::nanoseconds;
  const auto number_after = [](const std::string& text, std::size_t at, const std::string& key) {
    return std::stod(text.substr(text.find(key, at) + key.size()));
  };
  for (const std::size_t calls : {3u, 40u, 1000u}) {
    warmup::report r;
    warmup::site_report s;
    s.name = "plotted";
    s.calls = s.host.calls = calls;
    for (std::size_t i = 0; i < calls; ++i) s.first_calls.push_back(ns{1000 + static_cast<long long>(i)});
    s.host.first = s.first_calls.front();
    r.sites = {s};
    const std::string svg = warmup::to_svg(r);
    CHECK(svg.find("no site was measured") == std::string::npos);  // said only of a report without sites
    // The plot's frame: the one unfilled rectangle with the axes' grey.
    const std::size_t frame = svg.rfind("<rect", svg.find("fill=\"none\" stroke=\"#b8bec9\""));
    REQUIRE(frame != std::string::npos);
    const double left = number_after(svg, frame, "x=\""), right = left + number_after(svg, frame, "width=\"");
    std::vector<double> xs;  // the points, drawn after the frame in the panel's group
    const std::size_t end = svg.find("</g>", frame);
    for (std::size_t at = svg.find("<circle cx=\"", frame); at < end; at = svg.find("<circle cx=\"", at + 1))
      xs.push_back(number_after(svg, at, "cx=\""));
    REQUIRE(xs.size() == calls);
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    CHECK(*lo == Approx(left).margin(0.05));
    // Heights: inside the frame, the slowest call (the last: 1000 + calls - 1 ns) highest.
    const double top = number_after(svg, frame, "y=\""), bottom = top + number_after(svg, frame, "height=\"");
    std::vector<double> ys;
    for (std::size_t at = svg.find("<circle cx=\"", frame); at < end; at = svg.find("<circle cx=\"", at + 1))
      ys.push_back(number_after(svg, at, "cy=\""));
    for (const double y : ys) CHECK((y >= top - 0.05 && y <= bottom + 0.05));
    // The call axis is labelled at each power of ten up to the last call: 1000 among 1000 calls.
    if (calls == 1000) CHECK(svg.find(">1000</text>") != std::string::npos);
    const std::size_t panel = svg.rfind("<g transform=", frame);
    const std::string drawn = svg.substr(panel, end - panel);
    CHECK(drawn.find("fill-opacity=\"0.12\"") == std::string::npos);  // no steady state: no steady band
    // The grid: a vertical line at each labelled decade of calls (1, 10 among 40 calls; 1 to
    // 1000 among 1000).
    std::size_t vertical = 0;
    for (std::size_t at = drawn.find("<line x1=\""); at != std::string::npos; at = drawn.find("<line x1=\"", at + 1))
      if (number_after(drawn, at, "x1=\"") == number_after(drawn, at, "x2=\"") &&
          drawn.find("stroke=\"#eceef2\"", at) < drawn.find("/>", at))
        ++vertical;
    if (calls == 40) CHECK(vertical == 2);
    if (calls == 1000) CHECK(vertical == 4);
    // The time axis: each horizontal grid line labelled just left of the frame, at its height.
    std::vector<double> rows, labels;
    for (std::size_t at = drawn.find("<line x1=\""); at != std::string::npos; at = drawn.find("<line x1=\"", at + 1))
      if (number_after(drawn, at, "y1=\"") == number_after(drawn, at, "y2=\"") &&
          drawn.find("stroke=\"#eceef2\"", at) < drawn.find("/>", at))
        rows.push_back(number_after(drawn, at, "y1=\""));
    for (std::size_t at = drawn.find("text-anchor=\"end\">"); at != std::string::npos;
         at = drawn.find("text-anchor=\"end\">", at + 1)) {
      const std::size_t text = drawn.rfind("<text x=\"", at);
      CHECK(number_after(drawn, text, "x=\"") == Approx(left - 4).margin(0.05));
      labels.push_back(number_after(drawn, text, "y=\"") - 3.5);
    }
    REQUIRE(rows.size() >= 2);  // 1 us and 10 us at least
    REQUIRE(labels.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) CHECK(labels[i] == Approx(rows[i]).margin(0.06));
    // The call axis is log10(call) over at least a decade: the last call at the right edge once
    // there are 10 calls or more; fewer sit inside it.
    if (calls >= 10) CHECK(*hi == Approx(right).margin(0.05));
    else CHECK(*hi < right - 1);
  }
}

TEST_CASE("the SVG's legend: each mark just left of its label, the four 110 px apart") {
  const std::string svg = warmup::to_svg(warmup::report{});
  int lx = 12;  // the page's margin
  for (const auto& l : warmup::detail::svg_point_styles) {
    CAPTURE(l.label);
    const std::string entry = "<circle cx=\"" + std::to_string(lx + 5) + "\" cy=\"42\" r=\"4\" fill=\"" + l.fill +
                              "\" stroke=\"" + l.stroke + "\"/><text x=\"" + std::to_string(lx + 13) +
                              "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">" + l.label + "</text>\n";
    CHECK(svg.find(entry) != std::string::npos);
    lx += 110;
  }
  CHECK(svg.find("<rect x=\"452\" y=\"37\" width=\"14\" height=\"10\"") != std::string::npos);  // the band's, after them
  CHECK(svg.find(">no site was measured</text>") != std::string::npos);  // an empty report says so
}

TEST_CASE("the SVG's points: the first call largest, warm-up calls next, steady and device calls smallest") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  warmup::site_report s = site_of("points", 6, {ns{5000}, ns{3000}, ns{1000}, ns{1000}, ns{1100}, ns{1000}});
  s.host.warmup_calls = 2;  // calls 0 and 1: the first call, then one warm-up call
  warmup::call_record c;
  c.index = 2;
  c.host = ns{1000};
  c.device = ns{900};
  s.timeline = {c};
  r.sites = {s};
  const std::string svg = warmup::to_svg(r);
  INFO(svg);
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("r=\"5.0\" fill=\"#d62728\" stroke=\"none\"/>") == 1);
  CHECK(count("r=\"4.0\" fill=\"#ff7f0e\" stroke=\"none\"/>") == 1);
  CHECK(count("r=\"2.5\" fill=\"#4c72b0\" stroke=\"none\"/>") == 4);
  CHECK(count("r=\"2.5\" fill=\"none\" stroke=\"#2ca02c\"/>") == 1);
  CHECK(count("<circle cx=") == 4 + 7);  // the legend's four, and the seven points
  // The panel's line under its name counts the warm-up calls, where there are any.
  CHECK(count("6 calls \xC2\xB7 first 5.00 us \xC2\xB7 warm-up 2</text>") == 1);
  r.sites[0].host.warmup_calls = 0;
  CHECK(warmup::to_svg(r).find("warm-up 0") == std::string::npos);
  CHECK(warmup::to_svg(r).find("6 calls \xC2\xB7 first 5.00 us</text>") != std::string::npos);
}

TEST_CASE("the SVG's cause words: a cause named where it ends exactly at the line's 82 characters, cut one past") {
  const auto svg_with = [](std::size_t second_name) {
    warmup::report r;
    r.sites = {caused_site(1010us, 1ms, {{warmup::cause::host_code, 500us, 5, std::string(11, 'a'), {}},
                                         {warmup::cause::host_code, 500us, 5, std::string(second_name, 'b'), {}}})};
    return warmup::to_svg(r);
  };
  const std::string whole = "first call 1.00 ms over p50: 50% host code " + std::string(11, 'a') + ", 50% host code " +
                            std::string(12, 'b');
  REQUIRE(whole.size() == 82);
  const std::string fits = svg_with(12), over = svg_with(13);
  CHECK(fits.find(">" + whole + "</text>") != std::string::npos);
  CHECK(fits.find("...") == std::string::npos);
  CHECK(over.find(">first call 1.00 ms over p50: 50% host code " + std::string(11, 'a') + ", ...</text>") !=
        std::string::npos);
}

TEST_CASE("the SVG's cause bar carries the call's remedies as its tooltip, and none where there are none") {
  warmup::report r;
  warmup::site_report s = caused_site(1ms, 1ms, {{warmup::cause::pool_growth, 1ms, 1, {}, {}}});
  r.sites = {s};
  CHECK(warmup::to_svg(r).find("remedies:") == std::string::npos);
  s.host.first_call_causes->remedies = warmup::remedies_for(*s.host.first_call_causes);
  r.sites = {s};
  CHECK(warmup::to_svg(r).find("fill=\"#f0f1f4\"><title>remedies: prewarm_pool up to 1.00 ms, until_steady up to 1.00 ms</title></rect>") !=
        std::string::npos);
}

TEST_CASE("the SVG's frame: its title names the device, a row of three panels, and a panel without points says why inside itself") {
  const auto number_after = [](const std::string& text, std::size_t at, const std::string& key) {
    return std::stod(text.substr(text.find(key, at) + key.size()));
  };
  warmup::report r;
  warmup::device_description d;
  d.name = "Some GPU";
  r.device = d;
  warmup::site_report s;
  s.name = "no calls";
  r.sites = {s};
  const std::string one = warmup::to_svg(r);
  CHECK(one.find(">warmup: first call vs steady state \xE2\x80\x94 Some GPU</text>") != std::string::npos);
  // The panel's words sit in its middle, in the panel's own coordinates.
  const std::size_t words = one.find(">no calls yet</text>");
  REQUIRE(words != std::string::npos);
  const std::size_t tag = one.rfind("<text", words);
  CHECK(number_after(one, tag, "x=\"") == warmup::detail::panel_w / 2);
  CHECK(number_after(one, tag, "y=\"") == warmup::detail::panel_h / 2 + 10);
  // Three panels fill one row, a fourth starts a second: the picture grows by that row only.
  r.sites = {s, s, s};
  const double three = number_after(warmup::to_svg(r), 0, "height=\"");
  CHECK(three == number_after(one, 0, "height=\""));
  r.sites.push_back(s);
  const std::string four = warmup::to_svg(r);
  CHECK(number_after(four, 0, "height=\"") == three + warmup::detail::panel_h + 12);
  // The picture ends one margin (the first panel's left edge) below its last panel's frame.
  const std::size_t first = four.find("translate("), last = four.rfind("translate(");
  const double margin = number_after(four, first, "translate(");
  const double last_top = number_after(four, four.find(',', last), ",");
  const double frame_h = number_after(four, four.find("<rect", last), "height=\"") + 1;
  CHECK(number_after(four, 0, "height=\"") == last_top + frame_h + margin);
}

TEST_CASE("the SVG's points: every first call, then each timeline call after them, the one right after included") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  warmup::site_report s = site_of("timeline", 10, {ns{5000}, ns{1200}, ns{1000}});
  for (const std::uint64_t i : {2u, 3u, 9u}) {  // call 2 is a first call too: drawn once
    warmup::call_record c;
    c.index = i;
    c.host = ns{1000};
    s.timeline.push_back(c);
  }
  r.sites = {s};
  const std::string svg = warmup::to_svg(r);
  std::size_t circles = 0;  // in the panel's group: the legend above has marks of its own
  const std::size_t panel = svg.find("<g transform="), end = svg.find("</g>", panel);
  REQUIRE(panel != std::string::npos);
  for (std::size_t at = svg.find("<circle ", panel); at < end; at = svg.find("<circle ", at + 1)) ++circles;
  CHECK(circles == 5);
}
