// Reports read back from JSON, merged across ranks, compared between runs, and packed for MPI:
// the parser's edge cases, a round trip of every field, the spreads' arithmetic, the verdicts'
// rules, and the wire format's limits.
#include "catch.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "warmup/compare.hpp"
#include "warmup/detail/io/rank_wire.hpp"
#include "warmup/detail/io/text_table.hpp"
#include "warmup/merge.hpp"
#include "warmup/merge_formats.hpp"
#include "warmup/profile.hpp"
#include "warmup/read.hpp"

using namespace std::chrono_literals;
using ns = std::chrono::nanoseconds;

namespace {
bool parses(const std::string& text, std::string* error = nullptr) {
  warmup::detail::json_value v;
  warmup::detail::json_parser p(text);
  const bool ok = p.parse(v);
  if (error != nullptr) *error = p.error();
  return ok;
}

warmup::rank_summary rank_of(std::optional<int> rank, std::vector<warmup::site_summary> sites,
                             std::string version = "0.1.0") {
  warmup::rank_summary r;
  r.rank = rank;
  r.host = "h";
  r.library_version = std::move(version);
  r.sites = std::move(sites);
  return r;
}

warmup::site_summary site(std::string name, ns first, std::optional<ns> p50, std::uint64_t calls = 10) {
  warmup::site_summary s;
  s.name = std::move(name);
  s.first = first;
  s.p50 = p50;
  s.calls = calls;
  return s;
}
}  // namespace

TEST_CASE("the JSON parser takes what RFC 8259 allows and says where it refuses the rest") {
  CHECK(parses(R"({"a": [1, -2.5e-3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}})"));
  CHECK(parses("  [ ]  "));
  std::string e;
  CHECK_FALSE(parses("{\"a\": 01}", &e));
  CHECK_FALSE(parses("[1,]", &e));
  CHECK(e.find("line 1, column 4") != std::string::npos);
  CHECK_FALSE(parses("{\"a\" 1}", &e));
  CHECK(e.find("expected ':'") != std::string::npos);
  CHECK_FALSE(parses("[1] x", &e));
  CHECK(e.find("text after the JSON value") != std::string::npos);
  CHECK_FALSE(parses("\"\\q\"", &e));
  CHECK(e.find("unknown escape") != std::string::npos);
  CHECK_FALSE(parses("[1.]", &e));
  CHECK_FALSE(parses("\"\\u12\"", &e));
  CHECK_FALSE(parses("\n\n  nul", &e));
  CHECK(e.find("line 3, column 3") != std::string::npos);
  CHECK(parses(std::string(64, '[') + std::string(64, ']')));
  CHECK_FALSE(parses(std::string(65, '[') + std::string(65, ']'), &e));
  CHECK(e.find("deeper than 64") != std::string::npos);

  warmup::detail::json_value v;
  warmup::detail::json_parser p(R"("\ud83d\ude00 \udc00 \u0041")");
  REQUIRE(p.parse(v));
  CHECK(v.text == "\xF0\x9F\x98\x80 \xEF\xBF\xBD A");  // a pair, a lone low surrogate (U+FFFD), a letter
}

TEST_CASE("a report read back from its JSON writes the same JSON: every field is read") {
  for (int i = 0; i < 80; ++i) {
    warmup::region_scope s{"merge test: round trip"};
  }
  {
    warmup::h2d_scope c{"merge test: copy", std::size_t{1} << 20};
  }
  warmup::report r = warmup::snapshot();
  r.identity.rank = 3;
  r.identity.world_size = 8;
  warmup::device_description d;
  d.name = "a \"quoted\" GPU\n";
  d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  d.event_pair_floor = 1247ns;
  r.device = d;
  REQUIRE_FALSE(r.sites.empty());
  r.sites.front().host.first = ns{INT64_MAX};  // beyond a double's 2^53: must come back exact
  r.sites.front().notes.push_back("a note with \xC3\xA9 and a tab\t");
  const std::string json = warmup::to_json(r);
  std::string error;
  const std::optional<warmup::report> back = warmup::read_report(json, error);
  REQUIRE(back);
  CHECK(error.empty());
  CHECK(warmup::to_json(*back) == json);
  CHECK(back->sites.front().host.first == ns{INT64_MAX});
  CHECK(*back->identity.rank == 3);
  // The call times the trace and the picture draw come back too, so those are drawn again whole.
  CHECK(back->call_times_recorded);
  CHECK(back->sites.front().first_calls == r.sites.front().first_calls);
  REQUIRE(back->sites.front().timeline.size() == r.sites.front().timeline.size());
  CHECK(back->sites.front().timeline.front().host_start == r.sites.front().timeline.front().host_start);
  CHECK(warmup::to_svg(*back) == warmup::to_svg(r));
  CHECK(warmup::to_trace(*back) == warmup::to_trace(r));

  // The same text as a merged report is refused, naming both schemas.
  CHECK_FALSE(warmup::read_merged(json, error));
  CHECK(error.find("warmup.report/3") != std::string::npos);
  CHECK(error.find("warmup.merged/1") != std::string::npos);
}

TEST_CASE("a warmup.report/2 report reads, and its missing call times are said to be missing") {
  {
    warmup::region_scope s{"merge test: schema 2"};
  }
  const warmup::report r = warmup::snapshot();
  std::string json = warmup::to_json(r);
  // What a /2 writer wrote: the same document without the call times.
  const auto cut = [&](const std::string& key) {
    for (std::size_t at; (at = json.find(",\"" + key + "\":[")) != std::string::npos;) {
      std::size_t depth = 0, end = at + key.size() + 5;  // just after the list's [
      for (; end < json.size(); ++end) {
        if (json[end] == '[') ++depth;
        if (json[end] == ']' && depth-- == 0) break;
      }
      json.erase(at, end + 1 - at);
    }
  };
  cut("first_calls");
  cut("timeline");
  json.replace(json.find("warmup.report/3"), 15, "warmup.report/2");
  std::string error;
  const std::optional<warmup::report> back = warmup::read_report(json, error);
  REQUIRE(back);
  CHECK_FALSE(back->call_times_recorded);
  const warmup::site_report* site = back->find(warmup::op_kind::region, "merge test: schema 2");
  REQUIRE(site != nullptr);
  CHECK(site->first_calls.empty());
  CHECK(site->host.first == r.find(warmup::op_kind::region, "merge test: schema 2")->host.first);
  CHECK(warmup::to_svg(*back).find("call times not in this report (warmup.report/2)") != std::string::npos);
  CHECK(warmup::to_svg(r).find("call times not in this report") == std::string::npos);
  CHECK(warmup::to_trace(*back).find("no call times") != std::string::npos);

  json.replace(json.find("warmup.report/2"), 15, "warmup.report/1");
  CHECK_FALSE(warmup::read_report(json, error));
  CHECK(error.find("reads warmup.report/3 and warmup.report/2") != std::string::npos);
}

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
  CHECK(b.notices[1].find("1 site(s) listed twice by one rank were left out after their first (rank 0, region site \"a\")") !=
        std::string::npos);  // one: named, with no "..." for more

  const warmup::merged_report empty = warmup::merge({});
  CHECK(empty.sites.empty());
  std::ostringstream os;
  warmup::print(empty, os);
  CHECK(os.str().find("no site in any report") != std::string::npos);
  CHECK(warmup::to_svg(empty).find("</svg>") != std::string::npos);
}

TEST_CASE("compare: threshold, floor and the p50 intervals each decide") {
  using warmup::verdict;
  warmup::compare_input base, now;
  const auto add = [](warmup::compare_input& in, const char* name, ns first, ns p50, std::optional<ns> lo, std::optional<ns> hi) {
    warmup::compare_input::site s;
    s.name = name, s.first = first, s.p50 = p50, s.p50_low = lo, s.p50_high = hi;
    in.sites.push_back(s);
  };
  add(base, "apart", 10ms, 100us, 98us, 102us);
  add(now, "apart", 10ms, 120us, 118us, 122us);        // +20%, intervals apart: slower
  add(base, "overlap", 10ms, 100us, 80us, 130us);
  add(now, "overlap", 10ms, 120us, 90us, 150us);       // +20%, intervals overlap: same
  add(base, "small", 10ms, 100us, 99us, 101us);
  add(now, "small", 10ms, 105us, 104us, 106us);        // +5%, apart: under the threshold, same
  add(base, "small gain", 10ms, 100us, 99us, 101us);
  add(now, "small gain", 10ms, 95us, 94us, 96us);      // -5%, apart: under the threshold, same
  add(base, "tiny", 10ms, 30ns, 29ns, 31ns);
  add(now, "tiny", 10ms, 60ns, 59ns, 61ns);            // 2x, but 30 ns: within the floor
  add(base, "no interval", 10ms, 100us, {}, {});
  add(now, "no interval", 13ms, 80us, {}, {});         // first +30%: slower; p50 -20%: faster
  add(base, "gone", 1ms, 1us, {}, {});
  add(now, "new", 1ms, 1us, {}, {});
  const warmup::comparison c = warmup::compare(base, now);
  const auto find = [&](const char* name) -> const warmup::site_change& {
    for (const auto& s : c.sites)
      if (s.name == name) return s;
    FAIL(name);
    return c.sites.front();
  };
  CHECK(find("apart").p50.change == verdict::slower);
  CHECK(find("apart").p50.basis == "interval");
  CHECK(find("overlap").p50.change == verdict::same);
  CHECK(find("small").p50.change == verdict::same);
  CHECK(find("small gain").p50.change == verdict::same);
  CHECK(find("tiny").p50.change == verdict::same);
  CHECK(find("tiny").p50.basis == "floor");
  CHECK(find("no interval").first.change == verdict::slower);
  CHECK(find("no interval").p50.change == verdict::faster);
  CHECK(find("no interval").p50.basis == "threshold");
  CHECK(c.regressed);
  REQUIRE(c.removed.size() == 1);
  CHECK(c.removed[0].name == "gone");
  REQUIRE(c.added.size() == 1);
  CHECK(c.added[0].name == "new");

  // A first call is one sample: a change within the first-call floor is noise, whatever its ratio.
  warmup::compare_input b2, n2;
  add(b2, "cold", 60us, 10us, {}, {});
  add(n2, "cold", 100us, 10us, {}, {});  // +67%, 40 us
  CHECK(warmup::compare(b2, n2).sites[0].first.change == verdict::same);
  CHECK(warmup::compare(b2, n2).sites[0].first.basis == "floor");
  warmup::compare_options strict;
  strict.first_floor = 10us;
  CHECK(warmup::compare(b2, n2, strict).sites[0].first.change == verdict::slower);

  warmup::compare_options loose;
  loose.threshold = 0.5;
  CHECK_FALSE(warmup::compare(base, now, loose).regressed);

  // The table as printed: a verdict says what decided it, except "same", which needs no reason.
  std::ostringstream table;
  warmup::print(c, table);
  INFO(table.str());
  CHECK(table.str().find("SLOWER (interval)") != std::string::npos);
  CHECK(table.str().find("faster (threshold)") != std::string::npos);
  CHECK(table.str().find("same (") == std::string::npos);

  // A ratio from the smallest base there is: 1 ns.
  warmup::compare_input b3, n3;
  add(b3, "one ns", 1ns, 1ns, {}, {});
  add(n3, "one ns", 2ns, 1ns, {}, {});
  const warmup::comparison one = warmup::compare(b3, n3);
  REQUIRE(one.sites[0].first.ratio);
  CHECK(*one.sites[0].first.ratio == 2.0);
}

TEST_CASE("compare lists what changed between the runs' setups, above the verdicts and in its JSON") {
  warmup::report a;
  warmup::device_description d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.driver_version = 12040, d.runtime_version = 12040;
  a.device = d;
  a.module_loading = "LAZY (the default)", a.jit_cache = "enabled", a.attribution_source = "cupti", a.cpu_sampling = "off";
  a.identity.library_version = "0.1.0";  // not this build's version, which moves
  warmup::site_report s;
  s.name = "forward", s.calls = 1, s.host.calls = 1, s.host.first = 5ms;
  a.sites.push_back(s);

  const warmup::comparison same = warmup::compare(warmup::compare_view(a), warmup::compare_view(a));
  CHECK(same.run_changes.empty());
  std::ostringstream plain;
  warmup::print(same, plain);
  CHECK(plain.str().find("changed between the runs") == std::string::npos);
  CHECK(warmup::to_json(same).find("\"run_changes\":[]") != std::string::npos);

  warmup::report b = a;
  b.device->driver_version = 12080, b.device->runtime_version = 12090;
  b.module_loading = "EAGER", b.jit_cache = "disabled", b.attribution_source = "off";
  b.cpu_sampling = "every 1000 us in first calls, weighted by CPU time";
  b.identity.library_version = "0.2.0";
  const warmup::comparison c = warmup::compare(warmup::compare_view(a), warmup::compare_view(b));
  std::vector<std::string> what;
  for (const warmup::setup_change& x : c.run_changes) what.push_back(x.what + ": " + x.base + " -> " + x.now);
  CHECK(what == std::vector<std::string>{"driver: 12.4 -> 12.8", "runtime: 12.4 -> 12.9",
                                         "module_loading: LAZY (the default) -> EAGER", "jit_cache: enabled -> disabled",
                                         "attribution: cupti -> off",
                                         "cpu_sampling: off -> every 1000 us in first calls, weighted by CPU time",
                                         "library_version: 0.1.0 -> 0.2.0"});
  std::ostringstream text;
  warmup::print(c, text);
  const std::size_t block = text.str().find("changed between the runs"), table = text.str().find("\nsite ");
  REQUIRE(block != std::string::npos);
  CHECK(block < table);
  CHECK(text.str().find("  driver: 12.4 -> 12.8\n") != std::string::npos);
  CHECK(warmup::to_json(c).find(R"("run_changes":[{"what":"driver","base":"12.4","now":"12.8"},)") != std::string::npos);

  // Another GPU is a change of setup too; one run without a GPU reads "none". What a merged
  // report does not carry (the driver) is never compared.
  b = a;
  b.device->name = "NVIDIA H200";
  CHECK(warmup::compare(warmup::compare_view(a), warmup::compare_view(b)).run_changes.at(0).now == "NVIDIA H200");
  b.device.reset();
  const warmup::comparison none = warmup::compare(warmup::compare_view(a), warmup::compare_view(b));
  REQUIRE(none.run_changes.size() == 1);
  CHECK(none.run_changes[0].what == "gpu");
  CHECK(none.run_changes[0].now == "none");
  std::vector<warmup::rank_summary> ranks;
  ranks.push_back(warmup::summarize(a));
  ranks.back().rank = 0;
  const warmup::comparison merged = warmup::compare(warmup::compare_view(a), warmup::compare_view(warmup::merge(std::move(ranks))));
  CHECK(merged.run_changes.empty());
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

TEST_CASE("the MPI wire format: fixed sizes, long names kept apart, bad bytes refused") {
  namespace d = warmup::detail;
  STATIC_REQUIRE(d::wire_bytes(200) == 256 + 200 * 160);
  warmup::rank_summary r = rank_of(7, {});
  r.host = std::string(100, 'h');  // cut to fit
  r.device = "NVIDIA H200";
  const std::string long_a = std::string(120, 'x') + "a", long_b = std::string(120, 'x') + "b";
  r.sites = {site("short", 5ms, 7us, 42), site(long_a, 1ms, {}), site(long_b, 2ms, {}),
             site(std::string(90, 'y') + "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3ms, {})};
  r.sites[0].device_first = 4ms;
  std::vector<unsigned char> bytes;
  d::encode(r, 7, bytes);
  REQUIRE(bytes.size() == d::wire_bytes(4));
  warmup::rank_summary back;
  REQUIRE(d::decode(bytes.data(), bytes.size(), back));
  CHECK(*back.rank == 7);
  CHECK(back.host == std::string(63, 'h'));
  CHECK(back.device == "NVIDIA H200");
  REQUIRE(back.sites.size() == 4);
  CHECK(back.sites[0].name == "short");
  CHECK(back.sites[0].calls == 42);
  CHECK(back.sites[0].p50 == 7us);
  CHECK(back.sites[0].device_first == 4ms);
  CHECK_FALSE(back.sites[0].device_p50);
  CHECK(back.sites[1].name != back.sites[2].name);  // one beginning, two sites
  CHECK(back.sites[1].name.size() < 104);
  CHECK(back.sites[1].name.find("...#") == 86);
  // A cut never splits a character: the name is still UTF-8.
  CHECK(warmup::detail::repair_utf8(back.sites[3].name, warmup::detail::controls::keep_line_breaks) == back.sites[3].name);

  CHECK_FALSE(d::decode(bytes.data(), bytes.size() - 1, back));  // short
  std::vector<unsigned char> bad = bytes;
  bad[0] ^= 1;  // not the magic
  CHECK_FALSE(d::decode(bad.data(), bad.size(), back));
  bad = bytes;
  bad[256 + 48] = 200;  // an operation kind that does not exist
  CHECK_FALSE(d::decode(bad.data(), bad.size(), back));
}

TEST_CASE("a merged report's or a comparison's format: WARMUP_REPORT's rule, the extension in any case") {
  using warmup::report_format;
  using warmup::detail::merged_format_for;
  for (const char* p : {"m.json", "M.JSON", "out/m.Json", "m.trace.json", "m.TRACE.JSON"}) CHECK(merged_format_for(p) == report_format::json);
  for (const char* p : {"m.csv", "M.CSV"}) CHECK(merged_format_for(p) == report_format::csv);
  for (const char* p : {"x2.svg", "X2.SVG"}) CHECK(merged_format_for(p) == report_format::svg);
  for (const char* p : {"-", "m.txt", "M.TXT", "m", "m.jsonx", "json"}) CHECK(merged_format_for(p) == report_format::table);
}

TEST_CASE("a file is read back whole whatever errno held before: only a read that failed is retried") {
  char path[] = "/tmp/warmup-read-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text(100'000, 'x');  // more than one read's buffer
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  std::string error;
  errno = EINTR;  // left over from an earlier call: says nothing of the reads to come
  const std::optional<std::string> back = warmup::read_text_file(path, error);
  ::unlink(path);
  REQUIRE(back);
  CHECK(*back == text);
}

TEST_CASE("only a regular file is read back: a FIFO, a device or a directory is refused at once") {
  char dir[] = "/tmp/warmup-read-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string fifo = std::string(dir) + "/fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo, std::string("/dev/null"), std::string(dir)}) {
    CAPTURE(path);
    std::string error;
    CHECK_FALSE(warmup::read_text_file(path, error));  // a FIFO nobody writes: no wait
    CHECK(error.find(path + ": not a regular file") == 0);
  }
  ::unlink(fifo.c_str());
  ::rmdir(dir);
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

TEST_CASE("a merged report compared: each figure the slowest rank's, device figures included") {
  const auto with_device = [](ns first, ns dev_first, ns dev_p50) {
    warmup::site_summary s = site("step", first, 1ms);
    s.device_first = dev_first, s.device_p50 = dev_p50;
    return s;
  };
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(0, {with_device(10ms, 4ms, 100us)}));
  in.push_back(rank_of(1, {with_device(30ms, 6ms, 120us)}));
  const warmup::compare_input view = warmup::compare_view(warmup::merge(std::move(in)));
  REQUIRE(view.sites.size() == 1);
  CHECK(view.sites[0].first == 30ms);
  CHECK(view.sites[0].device_first == 6ms);
  CHECK(view.sites[0].device_p50 == 120us);
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
}

TEST_CASE("the merged SVG places each rank's mark by its time, on the decades' grid") {
  // First calls of exactly 10 ms and 1 s: the grid runs from the first decade to the last, and
  // the marks sit on its first and last lines.
  std::vector<warmup::rank_summary> in;
  in.push_back(rank_of(0, {site("step", 10ms, 1ms)}));
  in.push_back(rank_of(1, {site("step", 1s, 1ms)}));
  const std::string svg = warmup::to_svg(warmup::merge(std::move(in)));
  std::vector<double> grid;
  for (std::size_t at = svg.find("stroke=\"#e2e5ea\""); at != std::string::npos; at = svg.find("stroke=\"#e2e5ea\"", at + 1))
    grid.push_back(std::stod(svg.substr(svg.rfind("<line x1=\"", at) + 10)));
  REQUIRE(grid.size() == 4);  // 1 ms, 10 ms, 100 ms, 1 s
  CHECK(grid[1] > grid[0] + 100);  // decades apart on the page, not drawn on one spot
  const std::size_t path = svg.find("stroke=\"#d62728\" stroke-opacity");
  REQUIRE(path != std::string::npos);
  const std::string d = svg.substr(svg.rfind("d=\"", path) + 3);
  std::vector<double> marks;
  for (std::size_t at = d.find('M'); at != std::string::npos && at < d.find('"'); at = d.find('M', at + 1))
    marks.push_back(std::stod(d.substr(at + 1)));
  REQUIRE(marks.size() == 2);
  CHECK(marks[0] == Approx(grid[1]).margin(0.05));
  CHECK(marks[1] == Approx(grid[3]).margin(0.05));
  CHECK(grid[3] - grid[0] == Approx(3 * (grid[1] - grid[0])).margin(0.2));  // decades evenly spaced
}

TEST_CASE("a list of ranks: eight shown, the rest counted") {
  using warmup::detail::rank_list;
  CHECK(rank_list({}) == "");
  CHECK(rank_list({4}) == "4");
  CHECK(rank_list({1, 2, 3, 4, 5, 6, 7, 8}) == "1, 2, 3, 4, 5, 6, 7, 8");
  CHECK(rank_list({1, 2, 3, 4, 5, 6, 7, 8, 9}) == "1, 2, 3, 4, 5, 6, 7, 8 and 1 more");
  CHECK(rank_list({1, 2, 3}, 2) == "1, 2 and 1 more");
}

TEST_CASE("a report read back refuses a figure of the wrong kind, and names a bad value printably") {
  warmup::report r;
  warmup::site_report s;
  s.name = "step";
  s.calls = s.host.calls = 3;
  r.sites = {s};
  const std::string good = warmup::to_json(r);
  std::string error;
  REQUIRE(warmup::read_report(good, error));
  const auto swap = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return text;
  };
  // A count written as a string: not a number, however it reads.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"calls\":3", "\"calls\":\"3\""), error));
  CHECK(error.find("expected") != std::string::npos);
  // An operation kind this version does not know: its name shown with quotes and controls as '?'.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"op\":\"region\"", "\"op\":\"a\\\"b\\u0001c\""), error));
  CHECK(error.find("\"a?b?c\" is not a name this version knows") != std::string::npos);
}

TEST_CASE("a summary's device figures: the first call where the device timed one, its p50 only with a steady state") {
  warmup::site_report s;
  s.name = "once on the device";
  s.op = warmup::op_kind::launch;
  s.calls = s.host.calls = 1;
  s.host.first = 7ms;
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
}
