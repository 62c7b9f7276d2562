// The table and the JSON, read back as text (tests/json/ parses the JSON with a real parser).
#include "catch.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/io/notes.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/runtime/identity.hpp"
#include "warmup/detail/runtime/site_reader.hpp"

using namespace std::chrono_literals;

namespace {
warmup::report sample_report() {
  warmup::report r;
  r.device_status = "no GPU here";
  warmup::site_report once;
  once.name = "once";
  once.op = warmup::op_kind::context;
  once.calls = once.host.calls = 1;
  once.host.first = 120ms;
  warmup::site_report copy;
  copy.name = "upload";
  copy.op = warmup::op_kind::h2d;
  copy.calls = copy.host.calls = 3;
  copy.host.first = 3ms;
  copy.host.warmup_calls = 1;
  warmup::steady_state steady;
  steady.calls = 2;
  steady.p50 = steady.p90 = steady.p99 = steady.p999 = steady.min = steady.max = steady.mean = 1ms;
  copy.host.steady = steady;
  copy.host.first_call_excess = 2ms;
  copy.host.total = 5ms;
  warmup::transfer bytes;
  bytes.first = 1'000'000;
  bytes.total = 3'000'000;
  bytes.first_gbps = 0.333;
  bytes.steady_gbps = 1.0;
  bytes.mean_gbps = 0.6;
  bytes.gbps_clock = warmup::clock_domain::host;
  copy.bytes = bytes;
  r.sites = {once, copy};
  return r;
}
}  // namespace

TEST_CASE("the table shows every site, its figures and its notes") {
  std::ostringstream os;
  warmup::print(sample_report(), os);
  const std::string t = os.str();
  CHECK(t.find("no device description (no GPU here)") != std::string::npos);
  CHECK(t.find("once") != std::string::npos);
  CHECK(t.find("context") != std::string::npos);
  CHECK(t.find("120 ms") != std::string::npos);
  CHECK(t.find("note: no steady state yet") == std::string::npos);  // called once: more calls would not help
  CHECK(t.find("\n1 site ran once: its first call is its only call") != std::string::npos);
  CHECK(t.find("upload") != std::string::npos);
  CHECK(t.find("+2.00 ms") != std::string::npos);
  CHECK(t.find("0.3 / 1.0 / 0.6 (host)") != std::string::npos);
}

TEST_CASE("JSON: absent figures are null, never invented") {
  const std::string j = warmup::to_json(sample_report());
  CHECK(j.find("\"schema\":\"warmup.report/3\"") != std::string::npos);
  CHECK(j.find("\"device\":null") != std::string::npos);
  CHECK(j.find("\"name\":\"once\",\"op\":\"context\",\"calls\":1,\"host\":{\"calls\":1,\"first\":120000000,"
               "\"warmup_calls\":0,\"total\":0,\"first_call_excess\":null,\"warmup_excess\":0,"
               "\"cold_recurrences\":0,\"cold_excess\":0,\"steady\":null,\"first_call_causes\":null,\"cold_causes\":null},"
               "\"device\":null,\"bytes\":null") !=
        std::string::npos);
  CHECK(j.find("\"bytes\":{\"first\":1000000,\"total\":3000000,\"sizes_vary\":false,\"total_saturated\":false,"
               "\"gbps_clock\":\"host\",\"first_gbps\":0.333,\"steady_gbps\":1,\"mean_gbps\":0.6,"
               "\"host_pinned_calls\":0,\"host_pageable_calls\":0}") !=
        std::string::npos);
  CHECK(j.find("\"steady\":{\"calls\":2,\"p50\":1000000,") != std::string::npos);
  CHECK(j.find("\"p50_low\":null,\"p50_high\":null,\"enough_calls\":false}") != std::string::npos);
  CHECK(j.find('\n') == std::string::npos);
}

TEST_CASE("JSON strings are escaped and repaired") {
  warmup::report r;
  warmup::site_report s;
  s.name = std::string("q\"b\\n\nc\x01\xff", 9);
  r.sites = {s};
  const std::string j = warmup::to_json(r);
  CHECK(j.find(R"("name":"q\"b\\n\nc\u0001)" "\xEF\xBF\xBD" "\"") != std::string::npos);
}

TEST_CASE("the pictures of a report read back with hostile causes: extreme values drawn without overflow") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  r.call_times_recorded = true;
  warmup::site_report s;
  s.name = "hostile";
  s.calls = s.host.calls = 1;
  s.host.first = ns{1000};
  warmup::attribution why;
  why.calls = 1;
  why.call = ns::max();
  why.excess = ns::max();
  why.named = ns::max();
  why.unattributed = ns::min();  // negating it would overflow
  why.causes = {{warmup::cause::module_load, ns::max(), 1, {}}, {warmup::cause::device_alloc, ns::min(), 1, {}},
                {warmup::cause::host_code, ns{-5}, 2, std::string("a\"b\x01", 4)}};
  for (int i = 0; i < 4; ++i)  // past the table's first five, the rest are summed: no overflow either
    why.causes.push_back({warmup::cause::jit_compile, ns::max(), 1, {}});
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
    // The call axis is log10(call) over at least a decade: the last call at the right edge once
    // there are 10 calls or more; fewer sit inside it.
    if (calls >= 10) CHECK(*hi == Approx(right).margin(0.05));
    else CHECK(*hi < right - 1);
  }
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
}

TEST_CASE("the table pads names by characters, not bytes: a UTF-8 name's row lines up with an ASCII one's") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  for (const char* name : {"abc", "\xC3\xA4\xC3\xB6\xC3\xBC", "a name much longer than both"}) {  // "äöü": 3 characters, 6 bytes
    warmup::site_report s;
    s.name = name;
    s.calls = s.host.calls = 1;
    s.host.first = ns{1500};
    r.sites.push_back(s);
  }
  std::ostringstream os;
  warmup::print(r, os);
  std::string ascii, utf8;
  std::istringstream lines(os.str());
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("abc ", 0) == 0) ascii = l.substr(3);
    if (l.rfind("\xC3\xA4\xC3\xB6\xC3\xBC ", 0) == 0) utf8 = l.substr(6);
  }
  INFO(os.str());
  REQUIRE_FALSE(ascii.empty());
  CHECK(utf8 == ascii);  // the same padding after three characters
}

TEST_CASE("a live snapshot reports a host-only site with device null") {
  for (int i = 0; i < 3; ++i) { warmup::region_scope s{"report.live"}; }
  const warmup::report r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "report.live") != nullptr);
  const std::string j = warmup::to_json(r);
  CHECK(j.find("\"name\":\"report.live\",\"op\":\"region\",\"calls\":3") != std::string::npos);
  CHECK(r.library.nvtx_init.count() > 0);
}

TEST_CASE("CSV: one column per JSON field, named by its path; absent figures are empty cells") {
  const std::string csv = warmup::to_csv(sample_report());
  const auto lines = [&] {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < csv.size();) {
      const std::size_t end = csv.find("\r\n", at);
      out.push_back(csv.substr(at, end - at));
      at = end + 2;
    }
    return out;
  }();
  REQUIRE(lines.size() == 3);
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  const std::vector<std::string> head = cells(lines[0]);
  // 3 + 2 x (8 timing fields + 12 steady fields + 2 x 6 attribution fields) + 10 bytes fields
  // + exceptions + 4 untimed reasons + 5 host signals (the lists left out) + 4 pool fields
  CHECK(head.size() == 3 + 2 * (8 + 12 + 2 * 6) + 10 + 1 + 4 + 5 + 4);
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return i;
    FAIL("no column " << name);
    return std::size_t{0};
  };
  for (const auto& l : lines) CHECK(cells(l).size() == head.size());
  const std::vector<std::string> once = cells(lines[1]), upload = cells(lines[2]);
  CHECK(once[column("host.first")] == "120000000");
  CHECK(once[column("host.steady.p50")].empty());
  CHECK(once[column("device.first")].empty());
  CHECK(once[column("bytes.first")].empty());
  CHECK(upload[column("op")] == "h2d");
  CHECK(upload[column("host.steady.p50")] == "1000000");
  CHECK(upload[column("host.steady.enough_calls")] == "false");
  CHECK(upload[column("bytes.total")] == "3000000");
  CHECK(upload[column("bytes.gbps_clock")] == "host");
  CHECK(upload[column("device_untimed.sampled_out")] == "0");
  CHECK(csv.find("notes") == std::string::npos);
}

TEST_CASE("report::find tells sites apart by kind and name") {
  const warmup::report r = sample_report();
  REQUIRE(r.find(warmup::op_kind::h2d, "upload") != nullptr);
  CHECK(r.find(warmup::op_kind::h2d, "upload")->bytes->first == 1'000'000);
  CHECK(r.find(warmup::op_kind::context, "once") == &r.sites[0]);
  CHECK(r.find(warmup::op_kind::region, "upload") == nullptr);
  CHECK(r.find(warmup::op_kind::h2d, "nothing") == nullptr);
}

namespace {
std::string table_of(const warmup::report& r) {
  std::ostringstream os;
  warmup::print(r, os);
  return os.str();
}

/// The lines of `text` from the one that starts with `head` (indent ignored) to the next that is
/// not indented more than it: a site's "why:" and its breakdown.
std::vector<std::string> block(const std::string& text, const std::string& head) {
  std::vector<std::string> lines, out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].compare(indent(lines[i]), head.size(), head) != 0) continue;
    out.push_back(lines[i]);
    for (std::size_t j = i + 1; j < lines.size() && indent(lines[j]) > indent(lines[i]); ++j) out.push_back(lines[j]);
    break;
  }
  return out;
}

warmup::site_report steady_site(const char* name, std::chrono::nanoseconds first, std::chrono::nanoseconds p50) {
  warmup::site_report s;
  s.name = name;
  s.calls = s.host.calls = 50;
  s.host.first = first;
  warmup::steady_state st;
  st.calls = 49;
  st.enough_calls = true;
  st.p50 = st.p90 = st.p99 = st.p999 = st.min = st.max = st.mean = p50;
  s.host.steady = st;
  s.host.first_call_excess = first - p50;
  return s;
}

warmup::attribution why_of(const warmup::timing& t, std::vector<warmup::cause_time> causes) {
  warmup::attribution a;
  a.calls = 1;
  a.call = t.first;
  a.excess = t.first - (t.steady ? t.steady->p50 : std::chrono::nanoseconds{0});
  a.causes = std::move(causes);
  for (const warmup::cause_time& c : a.causes) a.named += c.time;
  a.unattributed = a.excess - a.named;
  return a;
}
}  // namespace

TEST_CASE("the table: why a first call was slow, one cause a line, largest first, with its share of the excess") {
  using warmup::cause;
  warmup::site_report s = steady_site("forward", 101ms, 1ms);  // excess 100 ms
  s.host.first_call_causes = why_of(s.host, {{cause::module_load, 40ms, 21, {}},
                                             {cause::host_code, 20ms, 20, "libcudnn_heuristic.so.9"},
                                             {cause::host_code, 10ms, 10, "libc.so.6"},
                                             {cause::device_alloc, 5ms, 11, {}},
                                             {cause::lazy_kernel_load, 4ms, 19, {}},
                                             {cause::pinned_alloc, 2ms, 1, {}},
                                             {cause::jit_cache_load, 1ms, 2, {}}});
  warmup::report r;
  r.sites = {s};
  const std::vector<std::string> why = block(table_of(r), "why:");
  REQUIRE(why.size() == 8);  // the head, five causes, "2 more", unattributed
  CHECK(why[0] == "    why: first call 100 ms over the steady p50:");
  CHECK(why[1] == "        module loads                       40.0 ms   40%  (21)");
  CHECK(why[2] == "        host code libcudnn_heuristic.so.9  20.0 ms   20%  (20 samples)");
  CHECK(why[5] == "        lazy kernel loads                  4.00 ms  4.0%  (19)");
  CHECK(why[6] == "        2 more causes                      3.00 ms  3.0%");
  CHECK(why[7] == "        unattributed                       18.0 ms   18%");

  // Six causes: the sixth has its own line rather than "1 more".
  s.host.first_call_causes->causes.pop_back();
  r.sites = {s};
  CHECK(block(table_of(r), "why:").size() == 8);
  CHECK(table_of(r).find("more causes") == std::string::npos);
}

TEST_CASE("the table: a first call faster than the steady p50, and one with no steady p50, said in plain words") {
  using warmup::cause;
  warmup::site_report fast = steady_site("fast", 885us, 1ms);
  fast.host.first_call_causes = why_of(fast.host, {{cause::module_load, 30us, 1, {}}});
  warmup::site_report once;
  once.name = "cublasCreate";
  once.calls = once.host.calls = 1;
  once.host.first = 301ms;
  once.host.first_call_causes = why_of(once.host, {{cause::module_load, 150ms, 4, {}}});
  warmup::report r;
  r.sites = {fast, once};
  const std::string t = table_of(r);
  CHECK(block(t, "why:")[0] ==
        "    why: first call 115 us under the steady p50: no excess to explain (the named causes took 30.0 us of it, as they may "
        "in the steady calls)");
  CHECK(block(t, "why:").size() == 1);
  CHECK(block(t, "why:")[0].find('-') == std::string::npos);  // no negative "over"
  const std::vector<std::string> only = block(t.substr(t.find("cublasCreate")), "why:");
  REQUIRE(only.size() == 3);
  CHECK(only[0] == "    why: first call 301 ms, no steady p50 to compare with: the excess is the whole call:");
  CHECK(only[1] == "        module loads  150 ms  50%  (4)");
  CHECK(only[2] == "        unattributed  151 ms  50%");
  CHECK(t.find("over the steady p50") == std::string::npos);
  CHECK(t.find("\n1 site ran once: its first call is its only call, with no steady state to compare it with\n") !=
        std::string::npos);
}

TEST_CASE("the table: host lines only where the first call waited, faulted or loaded libraries; the rest in one line") {
  warmup::report r;
  const auto site = [&](const char* name, std::chrono::nanoseconds first, warmup::host_signals h) {
    warmup::site_report s = steady_site(name, first, first / 10);
    s.first_call_host = std::move(h);
    r.sites.push_back(s);
  };
  warmup::host_signals small;  // 21 us, off the CPU throughout: a driver round trip
  site("small", 21300ns, small);
  warmup::host_signals working;  // 5 ms of work, a few faults
  working.cpu = 5ms;
  working.minor_faults = 40;
  site("working", 5ms, working);
  warmup::host_signals waited;  // 4 of 5 ms off the CPU
  waited.cpu = 1ms;
  site("waited", 5ms, waited);
  warmup::host_signals faulted;
  faulted.cpu = 3ms;
  faulted.minor_faults = 5000;
  site("faulted", 3ms, faulted);
  warmup::host_signals major;
  major.cpu = 100us;
  major.major_faults = 1;
  site("major", 100us, major);
  warmup::host_signals loaded;
  loaded.cpu = 50us;
  loaded.libraries_loaded = {"libcublasLt.so.13"};
  site("loaded", 50us, loaded);
  warmup::host_signals context;
  context.cpu = 80us;
  context.context_existed = false;
  site("context", 100us, context);
  warmup::host_signals memory;  // quick, but took device memory
  memory.cpu = 60us;
  memory.context_existed = true;
  memory.device_memory_taken = std::int64_t{350} << 20;
  site("memory", 100us, memory);
  warmup::host_signals little;  // a page of the driver's: nothing to tell
  little.cpu = 60us;
  little.context_existed = true;
  little.device_memory_taken = -(std::int64_t{64} << 10);
  site("little", 100us, little);
  const std::string t = table_of(r);
  const auto host_line_under = [&](const std::string& name) {
    const std::size_t row = t.find("\n" + name + " ");
    REQUIRE(row != std::string::npos);
    const std::size_t next = t.find('\n', row + 1);
    return t.compare(next + 1, 10, "    host: ") == 0;
  };
  CHECK_FALSE(host_line_under("small"));
  CHECK_FALSE(host_line_under("working"));
  CHECK(host_line_under("waited"));
  CHECK(host_line_under("faulted"));
  CHECK(host_line_under("major"));
  CHECK(host_line_under("loaded"));
  CHECK(host_line_under("context"));
  CHECK(host_line_under("memory"));
  CHECK(t.find("context existed, took 350 MiB of device memory") != std::string::npos);
  CHECK_FALSE(host_line_under("little"));
  CHECK(t.find("\nhost: 3 more first calls neither waited long, faulted many pages nor loaded a library") != std::string::npos);
  // In JSON and CSV too, with its sign.
  CHECK(warmup::to_json(r).find("\"device_memory_taken\":367001600") != std::string::npos);
  CHECK(warmup::to_json(r).find("\"device_memory_taken\":-65536") != std::string::npos);
  CHECK(warmup::to_csv(r).find("first_call_host.device_memory_taken") != std::string::npos);
  CHECK(t.find("ran once") == std::string::npos);
}

TEST_CASE("notes: 'too few calls' only where more calls would help") {
  warmup::site_report s;
  s.calls = s.host.calls = 1;
  s.host.first = 1ms;
  const auto says = [&] {
    const std::vector<std::string> notes = warmup::detail::notes_for(s);
    return std::find(notes.begin(), notes.end(), "no steady state yet: too few calls") != notes.end();
  };
  CHECK_FALSE(says());  // called once: its first call is all there is
  s.calls = s.host.calls = 3;  // three calls, every later one cold again after idling
  s.host.cold_recurrences = 2;
  CHECK(says());
}

TEST_CASE("CSV: a text cell a spreadsheet would run as a formula is written as text; figures stay numbers") {
  warmup::report r = sample_report();
  const std::vector<std::string> formulas = {"=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1:A2)", "\tx", "\rx"};
  for (const std::string& f : formulas) {
    warmup::site_report s;
    s.name = f;
    s.op = warmup::op_kind::region;
    s.calls = s.host.calls = 2;
    s.host.first = 1ms;
    s.host.first_call_excess = -1234ns;  // a first call faster than the p50: a negative figure
    r.sites.push_back(s);
  }
  const std::string csv = warmup::to_csv(r);
  // OWASP's rule: a ' before the cell, and the cell quoted.
  CHECK(csv.find("\r\n\"'=cmd|' /C calc'!A0\",region,2,") != std::string::npos);
  CHECK(csv.find("\r\n\"'+1+1\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'-2+3\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'@SUM(A1:A2)\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'\tx\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'\rx\",region,") != std::string::npos);
  // No line starts with a formula, and the library's own negative figure is a bare number.
  for (const char* bad : {"\n=", "\n+", "\n-", "\n@", ",=", ",+", ",@", ",'-1234"}) CHECK(csv.find(bad) == std::string::npos);
  CHECK(csv.find(",-1234,") != std::string::npos);
  CHECK(csv.find("\r\nonce,context,1,") != std::string::npos);  // a plain name as it was
}

TEST_CASE("a site name is kept to 4 KiB, cut on a character boundary and said once; the trace names it once per track") {
  // 2 bytes, then 3-byte characters: a cut at 4096 bytes would fall inside one.
  std::string euros = "ab";
  while (euros.size() < (1u << 20)) euros += "\xE2\x82\xAC";
  const std::string long_ascii(8u << 20, 'y');  // 8 MiB
  for (int i = 0; i < 3; ++i) {
    warmup::region_scope a{euros};
    warmup::region_scope b{std::string_view{long_ascii}};
  }
  const warmup::report r = warmup::snapshot();
  const warmup::site_report* e = r.find(warmup::op_kind::region, euros.substr(0, 4094));
  const warmup::site_report* y = r.find(warmup::op_kind::region, std::string(4096, 'y'));
  REQUIRE(e != nullptr);
  REQUIRE(y != nullptr);
  CHECK(e->name.size() == 4094);  // 2 + 1364 whole characters: no byte of the 1365th
  CHECK(e->calls == 3);
  CHECK(y->calls == 3);
  const auto said = std::count_if(r.notices.begin(), r.notices.end(),
                                  [](const std::string& n) { return n.find("a site name of ") == 0; });
  CHECK(said == 1);
  const auto notice = std::find_if(r.notices.begin(), r.notices.end(),
                                   [](const std::string& n) { return n.find("a site name of ") == 0; });
  REQUIRE(notice != r.notices.end());
  // The first long name met: its length as given, and its beginning.
  CHECK(notice->find("of 1048577 bytes cut to its first 4094") != std::string::npos);
  CHECK(notice->find("'ab\xE2\x82\xAC\xE2\x82\xAC") != std::string::npos);
  // The trace: the whole name once per track, a slice its first 256 bytes.
  warmup::report only = r;
  only.sites = {*y};
  const std::string trace = warmup::to_trace(only);
  CHECK(trace.find("\"name\":\"region: " + std::string(4096, 'y') + "\"") != std::string::npos);
  CHECK(trace.find("\"name\":\"" + std::string(256, 'y') + "\",\"cat\":\"region\"") != std::string::npos);
  CHECK(trace.size() < 4096 + y->timeline.size() * 600 + 1000);
  warmup::report named_y = only;
  named_y.sites[0].name = "y";
  CHECK(warmup::to_csv(only).size() == warmup::to_csv(named_y).size() + 4095);  // the name once, 4 KiB
}

TEST_CASE("the table's columns: each figure under its own heading, p50, p90 and p99 told apart") {
  warmup::report r;
  warmup::site_report s;
  s.name = "spread";
  s.op = warmup::op_kind::launch;
  s.calls = s.host.calls = 9;
  s.host.warmup_calls = 2;
  s.host.first = 7ms;
  warmup::steady_state st;
  st.calls = 7;
  st.p50 = 1100us;
  st.p90 = 2200us;
  st.p99 = 3300us;
  st.p999 = 4400us;
  st.min = 900us;
  st.max = 5500us;
  st.mean = 1500us;
  s.host.steady = st;
  s.host.first_call_excess = 5900us;
  s.host.warmup_excess = 1200us;
  warmup::timing dev = s.host;
  dev.calls = 8;
  dev.first = 6ms;
  dev.steady->p50 = 1010us;
  dev.steady->p90 = 1020us;
  dev.steady->p99 = 1030us;
  dev.warmup_calls = 0;
  s.device = dev;
  r.sites = {s};
  std::ostringstream os;
  warmup::print(r, os);
  const std::string t = os.str();
  std::vector<std::string> lines;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto line_of = [&](const std::string& start) -> std::string {
    for (const auto& l : lines)
      if (l.rfind(start, 0) == 0) return l;
    return "";
  };
  const auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::istringstream ws(l);
    for (std::string w; ws >> w;) out.push_back(w);
    return out;
  };
  const std::vector<std::string> head = cells(line_of("site"));
  REQUIRE(head.size() >= 9);
  CHECK(head[6] == "p50");
  CHECK(head[7] == "p90");
  CHECK(head[8] == "p99");
  // "spread launch host 9 2 7.00 ms 1.10 ms 2.20 ms 3.30 ms +5.90 ms +1.20 ms": a duration is two words.
  const std::vector<std::string> host = cells(line_of("spread"));
  REQUIRE(host.size() >= 15);
  CHECK(host[2] == "host");
  CHECK(host[3] == "9");
  CHECK(host[4] == "2");
  CHECK(host[5] + " " + host[6] == "7.00 ms");
  CHECK(host[7] + " " + host[8] == "1.10 ms");
  CHECK(host[9] + " " + host[10] == "2.20 ms");
  CHECK(host[11] + " " + host[12] == "3.30 ms");
  CHECK(host[13] + " " + host[14] == "+5.90 ms");
  CHECK(host[15] + " " + host[16] == "+1.20 ms");
  const auto dev_row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find(" dev ") != std::string::npos; });
  REQUIRE(dev_row != lines.end());
  const std::vector<std::string> d = cells(*dev_row);
  REQUIRE(d.size() >= 11);
  CHECK(d[0] == "dev");
  CHECK(d[1] == "8");
  CHECK(d[2] == "0");
  CHECK(d[3] + " " + d[4] == "6.00 ms");
  CHECK(d[5] + " " + d[6] == "1.01 ms");
  CHECK(d[7] + " " + d[8] == "1.02 ms");
  CHECK(d[9] + " " + d[10] == "1.03 ms");
  CHECK(d.back() == "-");  // no warm-up on the device: no warm-up excess
}

TEST_CASE("CSV as written, byte for byte: a field quoted exactly when it must be, its quotes doubled") {
  warmup::report r;
  for (const char* name : {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "\"", "sp ace"}) {
    warmup::site_report s;
    s.name = name;
    s.calls = s.host.calls = 1;
    r.sites.push_back(s);
  }
  const std::string csv = warmup::to_csv(r);
  // Each row starts with the site's name; a lenient reader would forgive a quote too many or
  // too few, so the raw text is checked.
  CHECK(csv.find("\r\nplain,") != std::string::npos);
  CHECK(csv.find("\r\n\"a,b\",") != std::string::npos);
  CHECK(csv.find("\r\n\"say \"\"hi\"\"\",") != std::string::npos);
  CHECK(csv.find("\r\n\"two\nlines\",") != std::string::npos);
  CHECK(csv.find("\r\n\"cr\rhere\",") != std::string::npos);
  CHECK(csv.find("\r\n\"\"\"\",") != std::string::npos);
  CHECK(csv.find("\r\nsp ace,") != std::string::npos);  // a space needs no quotes
  CHECK(csv.find("\"plain\"") == std::string::npos);
  // Every line ends in CRLF, the last one too.
  CHECK(csv.size() >= 2);
  CHECK(csv.compare(csv.size() - 2, 2, "\r\n") == 0);
}

TEST_CASE("a first call whose end would overflow has no cause slices in the timeline") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  warmup::site_report s;
  s.name = "late";
  s.calls = s.host.calls = 1;
  s.host.first = ns{100};
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

TEST_CASE("a start time in ISO 8601 UTC, to the millisecond") {
  using warmup::detail::iso_utc;
  CHECK(iso_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(iso_utc(999) == "1970-01-01T00:00:00.999Z");
  CHECK(iso_utc(86'399'999) == "1970-01-01T23:59:59.999Z");
  CHECK(iso_utc(1'795'816'418'123) == "2026-11-27T21:53:38.123Z");
  CHECK(iso_utc(-1) == "unknown");
}

TEST_CASE("the SVG's legend: each mark just left of its label, the four 110 px apart") {
  const std::string svg = warmup::to_svg(warmup::report{});
  const struct {
    const char* label;
    const char* fill;
    const char* stroke;
  } legend[] = {{"first call", "#d62728", "none"}, {"warm-up", "#ff7f0e", "none"}, {"steady (host)", "#4c72b0", "none"},
                {"device", "none", "#2ca02c"}};
  int lx = 12;  // the page's margin
  for (const auto& l : legend) {
    CAPTURE(l.label);
    const std::string entry = "<circle cx=\"" + std::to_string(lx + 5) + "\" cy=\"42\" r=\"4\" fill=\"" + l.fill +
                              "\" stroke=\"" + l.stroke + "\"/><text x=\"" + std::to_string(lx + 13) +
                              "\" y=\"46\" font-size=\"11\" fill=\"#5a6270\">" + l.label + "</text>\n";
    CHECK(svg.find(entry) != std::string::npos);
    lx += 110;
  }
  CHECK(svg.find("<rect x=\"452\" y=\"37\" width=\"14\" height=\"10\"") != std::string::npos);  // the band's, after them
}

TEST_CASE("the SVG's points: the first call largest, warm-up calls next, steady and device calls smallest") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  warmup::site_report s;
  s.name = "points";
  s.calls = s.host.calls = 6;
  s.first_calls = {ns{5000}, ns{3000}, ns{1000}, ns{1000}, ns{1100}, ns{1000}};
  s.host.first = s.first_calls.front();
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
}

TEST_CASE("the SVG's cause words: a cause named where it ends exactly at the line's 82 characters, cut one past") {
  const auto svg_with = [](std::size_t second_name) {
    warmup::report r;
    warmup::site_report s;
    s.name = "caused";
    s.calls = s.host.calls = 2;
    s.host.first = 1010us;
    warmup::steady_state st;
    st.calls = 1;
    st.p50 = st.p90 = st.p99 = st.p999 = st.min = st.max = st.mean = 10us;
    s.host.steady = st;
    warmup::attribution why;
    why.calls = 1;
    why.call = 1010us;
    why.excess = why.named = 1ms;
    why.causes = {{warmup::cause::host_code, 500us, 5, std::string(11, 'a')},
                  {warmup::cause::host_code, 500us, 5, std::string(second_name, 'b')}};
    s.host.first_call_causes = why;
    r.sites = {s};
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

namespace {
int flushes_seen = 0;
void count_flush() noexcept { ++flushes_seen; }
}  // namespace

TEST_CASE("a snapshot first has the cause source hand over what it holds (CUPTI's flush), once each") {
  auto& flush = warmup::detail::cause_records().flush;
  const auto kept = flush.exchange(&count_flush);
  flushes_seen = 0;
  (void)warmup::snapshot();
  CHECK(flushes_seen == 1);
  (void)warmup::snapshot();
  CHECK(flushes_seen == 2);
  flush.store(kept);
}

TEST_CASE("notes: a first launch that waited on the host, said only where the host's extra time dwarfs the device's") {
  warmup::site_report s;
  s.name = "k";
  s.op = warmup::op_kind::launch;
  s.calls = s.host.calls = 20;
  s.host.first = 1010us;  // 1 ms over the host's p50
  warmup::steady_state host;
  host.calls = 19;
  host.p50 = 10us;
  host.enough_calls = true;
  s.host.steady = host;
  warmup::timing dev;
  dev.calls = 20;
  warmup::steady_state d;
  d.calls = 19;
  d.p50 = 10us;
  d.enough_calls = true;
  dev.steady = d;
  const std::string waited = "the first launch waited on the host, not the GPU: module loading or JIT at the call";
  const auto says = [&](std::chrono::nanoseconds device_first) {
    s.device = dev;
    s.device->first = device_first;
    const std::vector<std::string> notes = warmup::detail::notes_for(s);
    return std::find(notes.begin(), notes.end(), waited) != notes.end();
  };
  CHECK(says(10us));      // the device had no extra time
  CHECK(says(100us));     // 90 us on the device, 1 ms on the host
  CHECK(says(509us));     // 499 us: the host's 1 ms is more than twice it
  CHECK_FALSE(says(510us));  // 500 us: exactly half the host's, not less
  CHECK_FALSE(says(2ms));    // the device's own first call was the slow part
  s.op = warmup::op_kind::region;  // launches only
  CHECK_FALSE(says(10us));
}

TEST_CASE("notes: an uncertain p50 said only where the steady calls are too few") {
  warmup::site_report s;
  s.name = "r";
  s.calls = s.host.calls = 4;
  s.host.first = 1ms;
  warmup::steady_state st;
  st.calls = 3;
  st.p50 = 1ms;
  s.host.steady = st;
  const auto uncertain = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.find("the p50 is uncertain") != std::string::npos) return n;
    return std::string();
  };
  CHECK(uncertain() == "only 3 steady calls: the p50 is uncertain (too few for a 95% interval)");
  s.host.steady->enough_calls = true;
  s.host.steady->calls = 30;
  CHECK(uncertain().empty());
}

namespace {
struct cause_only {
  warmup::cause what;
};
}  // namespace

TEST_CASE("a table of causes must hold a row for each, in the enum's order, or the library does not compile") {
  namespace d = warmup::detail;
  using warmup::cause;
  STATIC_REQUIRE(d::in_cause_order(d::cause_table));
  static constexpr cause_only short_one[] = {{cause::context_init}, {cause::module_load}};
  STATIC_REQUIRE_FALSE(d::in_cause_order(short_one));  // a cause without its row
  static constexpr cause_only swapped[] = {
      {cause::module_load},  {cause::context_init}, {cause::lazy_kernel_load}, {cause::jit_compile},
      {cause::jit_cache_load}, {cause::device_alloc}, {cause::pinned_alloc},    {cause::pool_growth},
      {cause::sync_wait},    {cause::library_load}, {cause::host_code},       {cause::waiting}};
  STATIC_REQUIRE_FALSE(d::in_cause_order(swapped));
  // Every row's names and colour are its own.
  for (std::size_t i = 0; i < warmup::cause_count; ++i)
    for (std::size_t j = i + 1; j < warmup::cause_count; ++j) {
      CHECK(d::cause_table[i].id != d::cause_table[j].id);
      CHECK(d::cause_table[i].words != d::cause_table[j].words);
      CHECK(std::string_view(d::cause_table[i].colour) != d::cause_table[j].colour);
    }
}

TEST_CASE("notes: pageable copies said with their count among the copies, pinned ones never") {
  warmup::site_report s;
  s.name = "copy";
  s.op = warmup::op_kind::h2d;
  s.calls = s.host.calls = 5;
  warmup::transfer t;
  t.first = t.total = 4096;
  t.host_pinned_calls = 5;
  s.bytes = t;
  const auto pageable_note = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.find("pageable host memory") != std::string::npos) return n;
    return std::string();
  };
  CHECK(pageable_note().empty());  // all pinned: nothing to say
  s.bytes->host_pinned_calls = 2;
  s.bytes->host_pageable_calls = 3;
  CHECK(pageable_note().rfind("3 of 5 calls copied pageable host memory", 0) == 0);
}

TEST_CASE("the table: a cause's count says what it counts, as its row in cause.hpp says") {
  using warmup::cause;
  warmup::site_report s = steady_site("load", 101ms, 1ms);  // excess 100 ms
  s.host.first_call_causes = why_of(s.host, {{cause::waiting, 40ms, 3, {}},
                                             {cause::host_code, 20ms, 20, "libc.so.6"},
                                             {cause::module_load, 10ms, 2, {}}});
  warmup::report r;
  r.sites = {s};
  const std::vector<std::string> why = block(table_of(r), "why:");
  REQUIRE(why.size() == 5);
  CHECK(why[1] == "        waiting off the CPU  40.0 ms  40%  (3 major page faults)");
  CHECK(why[2] == "        host code libc.so.6  20.0 ms  20%  (20 samples)");
  CHECK(why[3] == "        module loads         10.0 ms  10%  (2)");
  // Checked when the test runs, not at compile time, so that a planted mutant of the rows
  // compiles and fails here.
  namespace d = warmup::detail;
  CHECK(d::cause_counting(d::cause_evidence::cpu_samples) == cause::host_code);
  CHECK(d::cause_counting(d::cause_evidence::major_faults) == cause::waiting);
  CHECK(d::by_object(cause::host_code));
  CHECK_FALSE(d::by_object(cause::waiting));
}

namespace {
struct evidence_only {
  warmup::cause what;
  warmup::detail::cause_evidence counts;
};
struct kind_only {
  warmup::op_kind kind;
};
}  // namespace

TEST_CASE("a table of causes with two rows counting samples, or of kinds short or out of order, is refused") {
  namespace d = warmup::detail;
  using warmup::cause;
  using warmup::op_kind;
  // cause.hpp refuses a cause_table where this is not 1 (static_assert): the join would not know
  // which cause the samples are filed under.
  static constexpr evidence_only two[] = {{cause::host_code, d::cause_evidence::cpu_samples},
                                          {cause::waiting, d::cause_evidence::cpu_samples}};
  STATIC_REQUIRE(d::rows_counting(two, d::cause_evidence::cpu_samples) == 2);
  STATIC_REQUIRE(d::rows_counting(d::cause_table, d::cause_evidence::cpu_samples) == 1);
  STATIC_REQUIRE(d::in_kind_order(d::kind_table));
  static constexpr kind_only short_one[] = {{op_kind::context}, {op_kind::alloc}};
  STATIC_REQUIRE_FALSE(d::in_kind_order(short_one));  // a kind without its row
  static constexpr kind_only swapped[] = {{op_kind::alloc}, {op_kind::context}, {op_kind::h2d}, {op_kind::d2h},
                                          {op_kind::d2d},   {op_kind::launch},  {op_kind::region}};
  STATIC_REQUIRE_FALSE(d::in_kind_order(swapped));
  // Every kind's name and NVTX colour are its own.
  for (std::size_t i = 0; i < warmup::op_kind_count; ++i)
    for (std::size_t j = i + 1; j < warmup::op_kind_count; ++j) {
      CHECK(d::kind_table[i].name != d::kind_table[j].name);
      CHECK(d::kind_table[i].nvtx_colour != d::kind_table[j].nvtx_colour);
    }
}
