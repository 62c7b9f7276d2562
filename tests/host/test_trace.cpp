// The timeline trace as written: its unit, its rows, and causes placed only inside their call;
// its times in ns on a clock whose tick is not one.
#include "catch.hpp"

#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>

#include "warmup/profile.hpp"
#include "../support/sample_report.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/runtime/site_reader.hpp"

TEST_CASE("the pictures of a report read back with hostile causes: extreme values drawn without overflow") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  r.call_times_recorded = true;
  warmup::site_report s = support::one_call("hostile", ns{1000});
  warmup::attribution why;
  why.calls = 1;
  why.call = ns::max();
  why.excess = ns::max();
  why.named = ns::max();
  why.unattributed = ns::min();  // negating it would overflow
  why.causes = {{warmup::cause::module_load, ns::max(), 1, {}, {}}, {warmup::cause::device_alloc, ns::min(), 1, {}, {}},
                {warmup::cause::host_code, ns{-5}, 2, std::string("a\"b\x01", 4), {}}};
  for (int i = 0; i < 4; ++i)  // past the table's first five, the rest are summed: no overflow either
    why.causes.push_back({warmup::cause::jit_compile, ns::max(), 1, {}, {}});
  why.spans = {{warmup::cause::module_load, ns{-10}, ns{100}},      // before the call: never written so
               {warmup::cause::jit_compile, ns{100}, ns::max()},    // past its end: cut at the end
               {warmup::cause::device_alloc, ns::max(), ns::max()},  // after it
               {warmup::cause::sync_wait, ns{200}, ns::min()}};
  s.host.first_call_causes = why;
  warmup::call_record first;
  first.host_start = ns{5000};
  first.host = ns{1000};
  s.timeline = {first};
  warmup::call_record late = first;  // a call whose end overflows has no inside to place causes in
  late.index = 1;
  late.host_start = ns::max() - ns{10};
  r.sites = {s};
  const std::string trace = warmup::to_trace(r);
  // The one stretch inside the call: the JIT from +100 ns, cut at the call's end (+1000 ns).
  CHECK(trace.find(R"("name":"JIT compilation","cat":"cause","ph":"X","pid":1,"tid":1,"ts":5.100,"dur":0.900)") !=
        std::string::npos);
  CHECK(trace.find("\"cat\":\"cause\"") == trace.rfind("\"cat\":\"cause\""));  // one slice, not four
  CHECK(trace.find("\"object\":\"a\\\"b\\u0001\"") != std::string::npos);  // an object's name is a value, escaped
  s.host.steady = warmup::steady_state{};
  s.timeline = {late};
  s.host.first_call_causes->spans.push_back({warmup::cause::module_load, ns{0}, ns{1}});
  r.sites = {s};
  CHECK(warmup::to_trace(r).find("\"cat\":\"cause\"") == std::string::npos);
  const std::string svg = warmup::to_svg(r);
  CHECK(svg.find("over p50:") != std::string::npos);
  CHECK(svg.find("(causes exceed it by 9223372036.85 s)") != std::string::npos);  // the largest, no sign
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  std::ostringstream table;
  warmup::print(r, table);
  CHECK(table.str().find("the named causes exceed the excess by") != std::string::npos);
}

TEST_CASE("the trace: its time unit, and each site's row named in the host process") {
  { warmup::region_scope s{"trace.row"}; }
  const warmup::report r = warmup::snapshot();
  const std::string trace = warmup::to_trace(r);
  CHECK(trace.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0) == 0);
  const std::size_t row = trace.find("\"name\":\"region: trace.row\"");
  REQUIRE(row != std::string::npos);
  const std::size_t event = trace.rfind("{\"ph\":\"M\"", row);
  const std::string host_row = "{\"ph\":\"M\",\"pid\":1,\"tid\":";  // a row of the host's process
  CHECK(trace.compare(event, host_row.size(), host_row) == 0);
  // The host's process is named, as pid 1: the process its rows and slices are in.
  CHECK(trace.find(R"({"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"host"}})") != std::string::npos);
  // The device's process is named as the device is, or plainly where none was described (a
  // snapshot with a GPU describes it: the plain name is read from a report without one).
  warmup::report plain = r;
  plain.device.reset();
  CHECK(warmup::to_trace(plain).find(R"({"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"device"}})") !=
        std::string::npos);
  warmup::report described = r;
  warmup::device_description d;
  d.index = 1;
  d.name = "Some GPU";
  described.device = d;
  CHECK(warmup::to_trace(described).find(R"({"ph":"M","pid":2,"tid":0,"name":"process_name","args":{"name":"device 1: Some GPU"}})") !=
        std::string::npos);
}

TEST_CASE("a first call whose end would overflow has no cause slices in the timeline") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  warmup::site_report s = support::one_call("late", ns{100});
  warmup::attribution why;
  why.calls = 1;
  why.spans = {{warmup::cause::module_load, ns{0}, ns{50}}};
  s.host.first_call_causes = why;
  warmup::call_record first;
  first.index = 0;
  first.host = ns{100};
  first.host_start = ns{1000};
  s.timeline = {first};
  r.sites = {s};
  CHECK(warmup::to_trace(r).find("\"cat\":\"cause\"") != std::string::npos);  // placed where it fits
  r.sites[0].timeline[0].host_start = ns::max() - ns{10};  // its end would overflow
  CHECK(warmup::to_trace(r).find("\"cat\":\"cause\"") == std::string::npos);
}

// The scopes' clock may be the cycle counter, whose tick is not a nanosecond: a site holds ticks,
// and the report, its timeline and the trace hold nanoseconds. A counter of 4 ticks a ns, one
// pair placing tick 4,000,000 at 1 ms after the process began: each call starts 20,000 ticks
// (5 us) after the last and lasts 4,000 ticks (1 us).
TEST_CASE("the timeline and the trace are in ns on a clock whose tick is a quarter of one") {
  namespace d = warmup::detail;
  using ns = std::chrono::nanoseconds;
  d::site s(warmup::op_kind::region, "trace.ticks", 0);
  const std::uint64_t origin = d::ns_since_epoch(d::process_start());
  for (std::uint64_t i = 0; i < 3; ++i) {
    const d::call_ticket call = s.begin_call(nullptr);
    const std::uint64_t start = 4'000'000 + 20'000 * i;
    const bool after_idle = s.end_host(call.index, start, start + 4'000, 4'000);
    s.end_call(call, 4'000, after_idle, 0, false, false);
  }
  d::time_map time;
  time.source = d::time_source::counter;
  time.rate = 0.25;  // ns per tick
  time.pairs[0] = {4'000'000, origin + 1'000'000, 0};
  time.count = 1;
  warmup::report r;
  r.call_times_recorded = true;
  r.sites = {d::read_site(s, time)};
  const warmup::site_report& site = r.sites[0];
  CHECK(site.host.first == ns{1'000});
  REQUIRE(site.timeline.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(site.timeline[i].index == i);
    CHECK(site.timeline[i].host_start == ns{1'000'000 + 5'000 * static_cast<long long>(i)});
    CHECK(site.timeline[i].host == ns{1'000});
  }
  // The trace's times are in us, to the ns.
  const std::string trace = warmup::to_trace(r);
  for (const char* call : {R"("ts":1000.000,"dur":1.000)", R"("ts":1005.000,"dur":1.000)", R"("ts":1010.000,"dur":1.000)"}) {
    INFO(call);
    CHECK(trace.find(call) != std::string::npos);
  }
}
