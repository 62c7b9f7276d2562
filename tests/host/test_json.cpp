// The JSON as written, read back as text (tests/json/ parses it with a real parser).
#include "catch.hpp"

#include <string>

#include "warmup/profile.hpp"

#include "../support/sample_report.hpp"

using support::sample_report;

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
