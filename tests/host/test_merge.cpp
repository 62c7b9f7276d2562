// Merges (merge.hpp) and their writers (merge_formats.hpp): the figures each summary picks, the
// spreads' arithmetic, ranks renumbered and noticed, the table, the SVG and each format's writer.
#include "catch.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../support/rank_summaries.hpp"
#include "../support/sample_report.hpp"
#include "warmup/compare.hpp"
#include "warmup/detail/io/text_table.hpp"
#include "warmup/merge.hpp"
#include "warmup/merge_formats.hpp"
#include "warmup/read.hpp"
#include "warmup/report_file.hpp"

using namespace std::chrono_literals;
using ns = std::chrono::nanoseconds;
using summaries::rank_of;
using summaries::site;

TEST_CASE("merge: min, lower median and max over ranks, the slowest rank, calls summed") {
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(2, {site("step", 40ms, 1ms, 5), site("only on 2", 1us, {})}));
  in.push_back(rank_of(0, {site("step", 10ms, 2ms, 7)}));
  in.push_back(rank_of(1, {site("step", 40ms, 3ms, UINT64_MAX)}));
  in.push_back(rank_of(3, {site("step", 20ms, {}, 1)}));
  const warmup::merged_report m = warmup::merge(std::move(in));
  REQUIRE(m.ranks.size() == 4);
  CHECK(m.ranks[0].rank == 0);
  CHECK(m.ranks[3].rank == 3);
  CHECK(m.notices.empty());
  const warmup::merged_site* step = m.find(warmup::op_kind::region, "step");
  REQUIRE(step);
  CHECK(step->ranks == 4);
  CHECK(step->calls == UINT64_MAX);  // saturates instead of wrapping
  CHECK(step->first.min == 10ms);
  CHECK(step->first.median == 20ms);  // of 10, 20, 40, 40: the lower middle
  CHECK(step->first.max == 40ms);
  CHECK(step->first.slowest_rank == 1);  // ranks 1 and 2 tie: the lower is named
  REQUIRE(step->p50);
  CHECK(step->p50->ranks == 3);  // rank 3 has no steady state
  CHECK(step->p50->median == 2ms);
  CHECK(step->p50->slowest_rank == 1);
  CHECK(step->missing_ranks.empty());
  const warmup::merged_site* only = m.find(warmup::op_kind::region, "only on 2");
  REQUIRE(only);
  CHECK(only->missing_ranks == std::vector<int>{0, 1, 3});
  CHECK_FALSE(only->p50);

  // Read back from its own JSON, the merge is the same merge.
  std::string error;
  const auto back = warmup::read_merged(warmup::to_json(m), error);
  REQUIRE(back);
  CHECK(warmup::to_json(*back) == warmup::to_json(m));
}

// A figure no rank has: a spread over no ranks, every figure zero; never a read of a value.
TEST_CASE("the spread of no values is a spread over no ranks") {
  std::vector<std::pair<ns, int>> none;  // never allocated: a read of a value would fault
  const warmup::spread s = warmup::detail::spread_of(none);
  CHECK(s.ranks == 0);
  CHECK(s.min == ns{0});
  CHECK(s.median == ns{0});
  CHECK(s.max == ns{0});
  CHECK(s.slowest_rank == 0);
  std::vector<std::pair<ns, int>> one = {{ns{7}, 3}};
  const warmup::spread o = warmup::detail::spread_of(one);
  CHECK(o.ranks == 1);
  CHECK(o.min == ns{7});
  CHECK(o.median == ns{7});
  CHECK(o.max == ns{7});
  CHECK(o.slowest_rank == 3);
}

TEST_CASE("merge numbers ranks by input order where ranks are missing or repeated, and says so") {
  std::vector<warmup::rank_summary> none;
  none.push_back(rank_of({}, {site("a", 1ms, {})}));
  none.push_back(rank_of({}, {site("a", 2ms, {})}, "0.0.9"));
  const warmup::merged_report a = warmup::merge(std::move(none));
  CHECK(a.ranks[0].rank == 0);
  CHECK(a.ranks[1].rank == 1);
  REQUIRE(a.notices.size() == 2);
  CHECK(a.notices[0].find("numbered by input order") != std::string::npos);
  CHECK(a.notices[1].find("different library versions merged: 0.1.0, 0.0.9") != std::string::npos);

  std::vector<warmup::rank_summary> twice;
  twice.push_back(rank_of(5, {site("a", 1ms, {}), site("a", 9ms, {})}));
  twice.push_back(rank_of(5, {site("a", 2ms, {})}));
  const warmup::merged_report b = warmup::merge(std::move(twice));
  CHECK(b.ranks[1].rank == 1);
  CHECK(b.sites.size() == 1);
  CHECK(b.sites[0].per_rank.size() == 2);
  CHECK(b.sites[0].first.max == 2ms);  // rank 0's second "a" was left out
  REQUIRE(b.notices.size() == 2);
  CHECK(b.notices[0] == "rank 5 appears more than once (reports of two runs?): ranks are numbered by input order");
  CHECK(a.notices[0] == "2 of 2 reports name no rank (not launched as a job): ranks are numbered by input order");
  CHECK(b.notices[1].find("1 site(s) listed twice by one rank were left out after their first (rank 0, region site \"a\")") !=
        std::string::npos);  // one: named, with no "..." for more
  std::vector<warmup::rank_summary> thrice;
  thrice.push_back(rank_of(5, {site("a", 1ms, {}), site("a", 9ms, {}), site("a", 8ms, {})}));
  thrice.push_back(rank_of(5, {site("a", 2ms, {})}));
  const warmup::merged_report c = warmup::merge(std::move(thrice));
  REQUIRE(c.notices.size() == 2);
  CHECK(c.notices[1].find("2 site(s) listed twice by one rank were left out after their first (rank 0, region site \"a\", ...)") !=
        std::string::npos);  // two: the first named, "..." for the other

  const warmup::merged_report empty = warmup::merge({});
  CHECK(empty.sites.empty());
  std::ostringstream os;
  warmup::print(empty, os);
  CHECK(os.str().find("no site in any report") != std::string::npos);
  CHECK(warmup::to_svg(empty).find("</svg>") != std::string::npos);
}

TEST_CASE("a site's figures are picked once: a summary, a merged rank's marks and a comparison agree") {
  warmup::site_report s;
  s.name = "step", s.op = warmup::op_kind::launch, s.calls = 40;
  s.host.first = 9ms, s.host.warmup_excess = 3ms;
  warmup::steady_state st;
  st.p50 = 100us, st.p50_low = 99us, st.p50_high = 101us;
  s.host.steady = st;
  warmup::timing dev;
  dev.calls = 40, dev.first = 8ms;
  st.p50 = 90us, st.p50_low = 89us, st.p50_high = 91us;
  dev.steady = st;
  s.device = dev;
  warmup::report r;
  r.sites.push_back(s);

  const auto figures_of_step = [](const warmup::site_figures& f) {
    CHECK(f.calls == 40);
    CHECK(f.first == 9ms);
    CHECK(f.warmup_excess == 3ms);
    CHECK(f.p50 == 100us);
    CHECK(f.device_first == 8ms);
    CHECK(f.device_p50 == 90us);
  };
  figures_of_step(warmup::summarize(s));
  const warmup::compare_input in = warmup::compare_view(r);
  REQUIRE(in.sites.size() == 1);
  figures_of_step(in.sites[0]);
  CHECK(in.sites[0].name == "step");
  CHECK(in.sites[0].op == warmup::op_kind::launch);
  CHECK(in.sites[0].p50_low == 99us);
  CHECK(in.sites[0].device_p50_high == 91us);
  std::vector<warmup::rank_summary> ranks;
  ranks.push_back(warmup::summarize(r));
  ranks.back().rank = 5;
  const warmup::merged_report m = warmup::merge(std::move(ranks));
  REQUIRE(m.sites.size() == 1);
  const warmup::rank_figures& f = m.sites[0].per_rank.at(0);
  CHECK(f.rank == 5);
  figures_of_step(f);
  // The merged JSON's per-rank marks keep their keys.
  CHECK(warmup::to_json(m).find(R"("per_rank":[{"rank":5,"calls":40,"first":9000000,"p50":100000,"warmup_excess":3000000,"device_first":8000000,"device_p50":90000}])") != std::string::npos);
}

TEST_CASE("a summary's device figures: the first call where the device timed one, its p50 only with a steady state") {
  warmup::site_report s = support::one_call("once on the device", 7ms, warmup::op_kind::launch);
  warmup::timing dev;
  dev.calls = 1;
  dev.first = 6ms;  // one device-timed call: no steady state
  s.device = dev;
  const warmup::site_summary one = warmup::summarize(s);
  CHECK(one.device_first == 6ms);
  CHECK_FALSE(one.device_p50);
  CHECK_FALSE(one.p50);
  // A device timing with no call: neither figure.
  s.device->calls = 0;
  const warmup::site_summary none = warmup::summarize(s);
  CHECK_FALSE(none.device_first);
  CHECK_FALSE(none.device_p50);
  // With a steady state, its p50.
  s.device->calls = 5;
  warmup::steady_state st;
  st.p50 = 40us;
  s.device->steady = st;
  const warmup::site_summary steady = warmup::summarize(s);
  CHECK(steady.device_first == 6ms);
  CHECK(steady.device_p50 == 40us);
}

TEST_CASE("the merged table: each spread under its heading, the slowest rank, device rows, notes at their bounds") {
  const auto with = [](std::string name, ns first, std::optional<ns> p50, ns excess, std::optional<ns> dev_first,
                       std::optional<ns> dev_p50, std::uint64_t calls) {
    warmup::site_summary s = site(std::move(name), first, p50, calls);
    s.warmup_excess = excess;
    s.device_first = dev_first;
    s.device_p50 = dev_p50;
    return s;
  };
  std::vector<warmup::rank_summary> in;
  // Distinct values everywhere: first 11/22/33 ms, p50 1.1/2.2/3.3 ms (3.0x: a note), excess
  // medians 5 ms, device first 4/5/6 ms and p50 0.11/0.12/0.13 ms; "even" spreads exactly 2x (no note).
  in.push_back(rank_of(0, {with("step", 22ms, 3300us, 4ms, 5ms, 130us, 3), with("even", 1ms, 1ms, 0ms, {}, {}, 1)}));
  in.push_back(rank_of(1, {with("step", 33ms, 1100us, 5ms, 4ms, 110us, 4), with("even", 1ms, 2ms, 0ms, {}, {}, 1)}));
  in.push_back(rank_of(2, {with("step", 11ms, 2200us, 6ms, 6ms, 120us, 5)}));
  in.back().host = "other";
  std::ostringstream os;
  warmup::print(warmup::merge(std::move(in)), os);
  const std::string t = os.str();
  INFO(t);
  CHECK(t.rfind("warmup merge: 3 ranks; hosts: h (2 ranks), other (1 rank); devices: none (3 ranks)\n", 0) == 0);
  // Each row with its runs of spaces made one (the columns are aligned to the widest cell).
  std::istringstream lines(t);
  std::string step, dev, even;
  for (std::string l; std::getline(lines, l);) {
    std::string one;
    std::istringstream words(l);
    for (std::string w; words >> w;) one += (one.empty() ? "" : " ") + w;
    if (one.rfind("step ", 0) == 0) step = one;
    if (one.rfind("dev ", 0) == 0 && dev.empty()) dev = one;
    if (one.rfind("even ", 0) == 0) even = one;
  }
  CHECK(step == "step region host 3/3 12 11.0 ms / 22.0 ms / 33.0 ms rank 1 1.10 ms / 2.20 ms / 3.30 ms rank 0 5.00 ms");
  CHECK(dev == "dev 3/3 4.00 ms / 5.00 ms / 6.00 ms rank 2 110 us / 120 us / 130 us rank 0");
  CHECK(even == "even region host 2/3 2 1.00 ms / 1.00 ms / 1.00 ms rank 0 1.00 ms / 1.00 ms / 2.00 ms rank 1 0 ns");
  CHECK(t.find("steady p50 differs 3.0x across ranks") != std::string::npos);
  CHECK(t.find("steady p50 differs 2.0x") == std::string::npos);  // exactly twice is not "differs"
  CHECK(t.find("missing on ranks 2\n") != std::string::npos);
}

TEST_CASE("the merged header names four hosts and counts the rest; a merge with sites never says it has none") {
  const auto merged_table = [](std::size_t hosts) {
    std::vector<warmup::rank_summary> in;
    for (std::size_t i = 0; i < hosts; ++i) {
      in.push_back(rank_of(static_cast<int>(i), {site("step", 1ms, 1ms)}));
      in.back().host = "host" + std::to_string(i);
    }
    std::ostringstream os;
    warmup::print(warmup::merge(std::move(in)), os);
    return os.str();
  };
  const std::string four = merged_table(4), five = merged_table(5);
  INFO(four << five);
  CHECK(four.find("host3 (1 rank);") != std::string::npos);  // the fourth named, nothing after it
  CHECK(four.find(" more") == std::string::npos);
  CHECK(five.find("host3 (1 rank) and 1 more;") != std::string::npos);
  CHECK(four.find("(no site in any report)") == std::string::npos);
  std::ostringstream empty;
  warmup::print(warmup::merge({rank_of(0, {})}), empty);
  CHECK(empty.str().find("(no site in any report)\n") != std::string::npos);
  CHECK(empty.str().rfind("warmup merge: 1 rank;", 0) == 0);  // one rank: no plural
}

TEST_CASE("the merged header counts hosts and devices the most frequent first, ties in order of rank") {
  std::vector<warmup::rank_summary> in;
  // The hosts by rank: a, b, b, c, c, c, d, e. The devices: none for rank 0, "H100" for the rest.
  for (const char* h : {"a", "b", "b", "c", "c", "c", "d", "e"}) {
    in.push_back(rank_of(static_cast<int>(in.size()), {site("step", 1ms, 1ms)}));
    in.back().host = h;
    if (in.size() > 1) in.back().device = "H100";
  }
  std::ostringstream os;
  warmup::print(warmup::merge(std::move(in)), os);
  const std::string t = os.str();
  INFO(t);
  CHECK(t.rfind("warmup merge: 8 ranks; hosts: c (3 ranks), b (2 ranks), a (1 rank), d (1 rank) and 1 more; "
                "devices: H100 (7 ranks), none (1 rank)\n",
                0) == 0);
}

namespace {
// The x of each decade's grid line of a merged SVG, left to right.
std::vector<double> decade_lines(const std::string& svg) {
  std::vector<double> grid;
  for (std::size_t at = svg.find("stroke=\"#e2e5ea\""); at != std::string::npos; at = svg.find("stroke=\"#e2e5ea\"", at + 1))
    grid.push_back(std::stod(svg.substr(svg.rfind("<line x1=\"", at) + 10)));
  return grid;
}
// The x of each rank's first-call mark of a merged SVG's first row, in rank order.
std::vector<double> first_call_marks(const std::string& svg) {
  std::vector<double> marks;
  const std::size_t path = svg.find("stroke=\"#d62728\" stroke-opacity");
  if (path == std::string::npos) return marks;
  const std::string d = svg.substr(svg.rfind("d=\"", path) + 3);
  for (std::size_t at = d.find('M'); at != std::string::npos && at < d.find('"'); at = d.find('M', at + 1))
    marks.push_back(std::stod(d.substr(at + 1)));
  return marks;
}
}  // namespace

TEST_CASE("the merged SVG places each rank's mark by its time, on the decades' grid") {
  // First calls of exactly 10 ms and 1 s: the grid runs from the first decade to the last, and
  // the marks sit on its first and last lines.
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(0, {site("step", 10ms, 1ms)}));
  in.push_back(rank_of(1, {site("step", 1s, 1ms)}));
  const std::string svg = warmup::to_svg(warmup::merge(std::move(in)));
  const std::vector<double> grid = decade_lines(svg);
  REQUIRE(grid.size() == 4);  // 1 ms, 10 ms, 100 ms, 1 s
  CHECK(grid[1] > grid[0] + 100);  // decades apart on the page, not drawn on one spot
  const std::vector<double> marks = first_call_marks(svg);
  REQUIRE(marks.size() == 2);
  CHECK(marks[0] == Approx(grid[1]).margin(0.05));
  CHECK(marks[1] == Approx(grid[3]).margin(0.05));
  CHECK(grid[3] - grid[0] == Approx(3 * (grid[1] - grid[0])).margin(0.2));  // decades evenly spaced
  // Each site's row is labelled: its name, its kind and how many ranks ran it.
  CHECK(svg.find(">step <tspan fill=\"#8a92a0\">region \xC2\xB7 2 ranks</tspan></text>") != std::string::npos);
}

TEST_CASE("the merged SVG marks a first call of 0 ns on the axis' first line, as one of 1 ns") {
  // A log axis has no 0: a rank's 0 ns (a hand-made report, a clock that did not move) is drawn
  // at 1 ns, the axis' first decade, not off the page.
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(0, {site("step", 0ns, 1ms)}));
  in.push_back(rank_of(1, {site("step", 1ns, 1ms)}));
  in.push_back(rank_of(2, {site("step", 10us, 1ms)}));
  const std::string svg = warmup::to_svg(warmup::merge(std::move(in)));
  INFO(svg);
  const std::vector<double> grid = decade_lines(svg);  // 1 ns, 10 ns, ..., 1 ms (the steady p50s)
  REQUIRE(grid.size() == 7);
  CHECK(grid[1] - grid[0] == Approx(grid[2] - grid[1]).margin(0.1));  // the first decade where 1 ns is
  const double first_decade = grid[0];
  const std::vector<double> marks = first_call_marks(svg);
  REQUIRE(marks.size() == 3);
  CHECK(marks[0] == Approx(first_decade).margin(0.05));
  CHECK(marks[1] == Approx(first_decade).margin(0.05));
  CHECK(marks[2] > first_decade + 100);
}

TEST_CASE("the merged SVG: a page of its own colour, and a path only for the marks it has") {
  warmup::merged_report m;
  m.ranks.push_back({});
  warmup::merged_site s;
  s.name = "no marks";  // a site whose ranks' figures were not kept (a hand-made report)
  s.ranks = 1;
  s.first.ranks = 1;
  m.sites.push_back(s);
  const std::string svg = warmup::to_svg(m);
  INFO(svg);
  // The page's background, first under the root: the picture never shows through to the viewer's.
  const std::size_t root = svg.find("<svg ");
  REQUIRE(root != std::string::npos);
  const std::size_t line = svg.find('\n', root) + 1;
  CHECK(svg.substr(line, svg.find('\n', line) + 1 - line) == "<rect width=\"100%\" height=\"100%\" fill=\"#f6f7f9\"/>\n");
  CHECK(svg.find("<path") == std::string::npos);  // no empty path: `d` holds at least one mark
  CHECK(svg.find("d=\"\"") == std::string::npos);
  // One rank with a first call and no p50: the red path, and no blue one.
  warmup::rank_figures f;
  f.rank = 0;
  f.first = 1ms;
  m.sites[0].per_rank.push_back(f);
  const std::string one = warmup::to_svg(m);
  CHECK(one.find("stroke=\"#d62728\" stroke-opacity=\"0.6\"/>") != std::string::npos);
  CHECK(one.find("stroke=\"#4c72b0\" stroke-opacity=\"0.6\"/>") == std::string::npos);
  CHECK(one.find("<path") == one.rfind("<path"));
  CHECK(one.find("d=\"\"") == std::string::npos);
  // The axis spans the figures there are: 1 ms, and no p50 read from a rank that has none.
  std::vector<std::string> decades;
  for (std::size_t at = one.find("text-anchor=\"middle\">"); at != std::string::npos;
       at = one.find("text-anchor=\"middle\">", at + 1)) {
    const std::size_t from = one.find('>', at) + 1;
    decades.push_back(one.substr(from, one.find('<', from) - from));
  }
  CHECK(decades == std::vector<std::string>{"1 ms", "10 ms"});
  // Everything is drawn inside the picture: no x beyond its width.
  const double width = std::stod(one.substr(one.find("width=\"") + 7));
  for (std::size_t at = one.find(" x=\""); at != std::string::npos; at = one.find(" x=\"", at + 1))
    CHECK(std::stod(one.substr(at + 4)) < width);
}

TEST_CASE("a list of ranks: eight shown, the rest counted") {
  using warmup::detail::rank_list;
  CHECK(rank_list({}) == "");
  CHECK(rank_list({4}) == "4");
  CHECK(rank_list({1, 2, 3, 4, 5, 6, 7, 8}) == "1, 2, 3, 4, 5, 6, 7, 8");
  CHECK(rank_list({1, 2, 3, 4, 5, 6, 7, 8, 9}) == "1, 2, 3, 4, 5, 6, 7, 8 and 1 more");
  CHECK(rank_list({1, 2, 3}, 2) == "1, 2 and 1 more");
}

TEST_CASE("a text table as printed: columns two spaces apart, each as wide as its widest cell, no trailing space") {
  warmup::detail::text_table t({"name", "n", "time"}, 1);  // the first column left-aligned, the rest right
  t.row({"a", "10", "1 ms"});
  t.row({"long name", "2", "30 ms"});
  t.under("a note");
  t.row({"b", "", ""});
  t.row({"caf\xC3\xA9", "3", "2 ms"});  // "café": 4 characters, 5 bytes (0xA9 an odd continuation byte)
  std::ostringstream os;
  t.print(os);
  CHECK(os.str() ==
        "name        n   time\n"
        "a          10   1 ms\n"
        "long name   2  30 ms\n"
        "    a note\n"
        "b\n"
        "caf\xC3\xA9        3   2 ms\n");
}

TEST_CASE("a merged report in each format its row names, by that format's writer; in no other") {
  using warmup::report_format;
  namespace d = warmup::detail;
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(0, {site("step", 1ms, 1ms)}));
  const warmup::merged_report m = warmup::merge(std::move(in));
  std::ostringstream table;
  warmup::print(m, table);
  CHECK(d::format_document(m, report_format::table) == table.str());
  CHECK(d::format_document(m, report_format::json) == warmup::to_json(m) + "\n");
  CHECK(d::format_document(m, report_format::csv) == warmup::to_csv(m));
  CHECK(d::format_document(m, report_format::svg) == warmup::to_svg(m));
  CHECK_FALSE(d::format_document(m, report_format::trace));  // a merge keeps no timeline
  for (const warmup::report_format_info& f : warmup::report_formats)
    CHECK(d::format_document(m, f.format).has_value() == f.writes(warmup::document_kind::merged));
}
