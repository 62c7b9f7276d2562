// Comparisons (compare.hpp) and their writers (compare_formats.hpp): the verdicts' rules, what
// changed between the runs' setups, a merged report compared, and each format's writer.
#include "catch.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../support/rank_summaries.hpp"
#include "warmup/compare.hpp"
#include "warmup/compare_formats.hpp"
#include "warmup/merge.hpp"
#include "warmup/report_file.hpp"

using namespace std::chrono_literals;
using ns = std::chrono::nanoseconds;
using summaries::rank_of;
using summaries::site;

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
  add(base, "touching", 10ms, 100us, 98us, 102us);
  add(now, "touching", 10ms, 120us, 102us, 122us);     // +20%, intervals share a bound: not apart, same
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
  CHECK(find("touching").p50.change == verdict::same);
  CHECK(find("small").p50.change == verdict::same);
  CHECK(find("small gain").p50.change == verdict::same);
  CHECK(find("tiny").p50.change == verdict::same);
  CHECK(find("tiny").p50.basis == "floor");
  CHECK(find("no interval").first.change == verdict::slower);
  CHECK(find("no interval").p50.change == verdict::faster);
  CHECK(find("no interval").p50.basis == "threshold");
  // Each verdict keeps the two figures it judged, what the writers print beside it.
  CHECK(find("apart").p50.base == std::optional<ns>{100us});
  CHECK(find("apart").p50.now == std::optional<ns>{120us});
  CHECK(find("no interval").first.base == std::optional<ns>{10ms});
  CHECK(find("no interval").first.now == std::optional<ns>{13ms});
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
  // A site's name and kind on its first row only: its other figures' rows leave them blank.
  const std::size_t apart_row = table.str().find("\napart ");
  REQUIRE(apart_row != std::string::npos);
  const std::string row = table.str().substr(apart_row + 1, table.str().find('\n', apart_row + 1) - apart_row - 1);
  CHECK(row.find(" region ") != std::string::npos);
  CHECK(table.str().find("\nremoved (base only): region gone\n") != std::string::npos);
  CHECK(table.str().find("\nadded (new only): region new\n") != std::string::npos);
  // A site's name is cut to 80 bytes on those lines, as in every table.
  warmup::comparison long_names = c;
  long_names.removed[0].name = std::string(100, 'r');
  long_names.added[0].name = std::string(100, 'a');
  std::ostringstream cut;
  warmup::print(long_names, cut);
  CHECK(cut.str().find("removed (base only): region " + std::string(80, 'r') + "...\n") != std::string::npos);
  CHECK(cut.str().find("added (new only): region " + std::string(80, 'a') + "...\n") != std::string::npos);

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

TEST_CASE("a comparison's figures in its order, each under its row's words; its writers one a format its row names") {
  warmup::compare_input base, now;
  for (warmup::compare_input* in : {&base, &now}) {
    warmup::compare_input::site s;
    s.name = "step", s.first = 1ms, s.p50 = 1us, s.device_first = 2ms, s.device_p50 = 2us;
    in->sites.push_back(s);
  }
  const warmup::comparison c = warmup::compare(base, now);
  // Per clock, its one-sample figures, then its steady ones; the count of calls is not judged.
  const std::string json = warmup::to_json(c);
  const std::size_t at = json.find("\"regressed\":false,\"first\":");
  REQUIRE(at != std::string::npos);
  std::vector<std::size_t> keys;
  for (const char* k : {"\"first\":", "\"warmup_excess\":", "\"p50\":", "\"device_first\":", "\"device_p50\":"})
    keys.push_back(json.find(k, at));
  CHECK(std::is_sorted(keys.begin(), keys.end()));
  CHECK(keys.back() != std::string::npos);
  CHECK(json.find("\"calls\"") == std::string::npos);
  std::ostringstream table;
  warmup::print(c, table);
  std::vector<std::string> figures;
  std::istringstream lines(table.str());
  std::string line;
  std::getline(lines, line);  // the header's line
  std::getline(lines, line);  // the table's head
  const std::size_t column = line.find("figure");
  while (std::getline(lines, line) && line.size() > column && line.rfind("no regression", 0) != 0)
    figures.push_back(line.substr(column, line.find("  ", column) - column));
  CHECK(figures == std::vector<std::string>{"first", "warm-up excess", "p50", "dev first", "dev p50"});

  using warmup::report_format;
  namespace d = warmup::detail;
  CHECK(d::format_document(c, report_format::table) == table.str());
  CHECK(d::format_document(c, report_format::json) == json + "\n");
  for (const warmup::report_format_info& f : warmup::report_formats)
    CHECK(d::format_document(c, f.format).has_value() == f.writes(warmup::document_kind::comparison));
}

TEST_CASE("the distinct values of the ranks' setups: in rank order, each once, none empty") {
  std::vector<warmup::merged_rank> ranks(4);
  ranks[0].device = "NVIDIA H100";
  ranks[1].device = "";
  ranks[2].device = "NVIDIA A100";
  ranks[3].device = "NVIDIA H100";
  CHECK(warmup::detail::distinct(ranks, &warmup::merged_rank::device) == "NVIDIA H100, NVIDIA A100");
}
