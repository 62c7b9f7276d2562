// The table and the JSON, read back as text (tests/json/ parses the JSON with a real parser).
#include "catch.hpp"

#include <sstream>

#include "report_lookup.hpp"
#include "warmup/profile.hpp"

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
  once.notes = {"no steady state yet: too few calls"};
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
  bytes.bytes_first = 1'000'000;
  bytes.bytes_total = 3'000'000;
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
  CHECK(t.find("note: no steady state yet") != std::string::npos);
  CHECK(t.find("upload") != std::string::npos);
  CHECK(t.find("+2.00 ms") != std::string::npos);
  CHECK(t.find("0.3 / 1.0 / 0.6 (host)") != std::string::npos);
}

TEST_CASE("JSON: absent figures are null, never invented") {
  const std::string j = warmup::to_json(sample_report());
  CHECK(j.find("\"schema\":\"warmup.report/1\"") != std::string::npos);
  CHECK(j.find("\"device\":null") != std::string::npos);
  CHECK(j.find("\"name\":\"once\",\"op\":\"context\",\"calls\":1,\"host_ns\":{\"calls\":1,\"first\":120000000,"
               "\"warmup_calls\":0,\"total\":0,\"first_call_excess\":null,\"warmup_excess\":0,"
               "\"cold_recurrences\":{\"calls\":0,\"excess\":0},\"steady\":null},\"device_ns\":null,\"bytes\":null") !=
        std::string::npos);
  CHECK(j.find("\"bytes\":{\"first\":1000000,\"total\":3000000,\"first_gbps\":0.333,\"sizes_vary\":false,"
               "\"steady_gbps\":1,\"mean_gbps\":0.6,\"total_saturated\":false,\"gbps_clock\":\"host\"}") !=
        std::string::npos);
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

TEST_CASE("a live snapshot reports a host-only site with device_ns null") {
  for (int i = 0; i < 3; ++i) { warmup::region_scope s{"report.live"}; }
  const warmup::report r = warmup::snapshot();
  REQUIRE(find_site(r, "report.live") != nullptr);
  const std::string j = warmup::to_json(r);
  CHECK(j.find("\"name\":\"report.live\",\"op\":\"region\",\"calls\":3") != std::string::npos);
  CHECK(r.library.nvtx_init.count() > 0);
}
