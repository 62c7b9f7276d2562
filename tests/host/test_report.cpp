// The table and the JSON, read back as text (tests/json/ parses the JSON with a real parser).
#include "catch.hpp"

#include <sstream>
#include <string>
#include <vector>

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
  CHECK(t.find("note: no steady state yet") != std::string::npos);
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
  // 3 + 2 x (8 timing fields + 12 steady fields + 2 x 5 attribution fields) + 10 bytes fields
  // + exceptions + 4 untimed reasons + 4 host signals (the lists left out) + 4 pool fields
  CHECK(head.size() == 3 + 2 * (8 + 12 + 2 * 5) + 10 + 1 + 4 + 4 + 4);
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
