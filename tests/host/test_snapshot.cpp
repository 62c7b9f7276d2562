// A live snapshot: its sites, report::find, site names kept to 4 KiB, the start time, the cause
// source flushed first.
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "warmup/profile.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/runtime/device_info.hpp"
#include "warmup/detail/runtime/environment.hpp"
#include "warmup/detail/runtime/identity.hpp"
#include "warmup/detail/runtime/site_reader.hpp"

#include "../support/sample_report.hpp"

using support::sample_report;

TEST_CASE("a live snapshot reports a host-only site with device null") {
  for (int i = 0; i < 3; ++i) { warmup::region_scope s{"report.live"}; }
  const warmup::report r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "report.live") != nullptr);
  const std::string j = warmup::to_json(r);
  CHECK(j.find("\"name\":\"report.live\",\"op\":\"region\",\"calls\":3") != std::string::npos);
  CHECK(r.library.nvtx_init.count() > 0);
}

TEST_CASE("a snapshot says the module loading and JIT cache the environment sets at the time") {
  const char* was = std::getenv("CUDA_MODULE_LOADING");
  const std::string kept = was != nullptr ? was : "";
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  const auto r = warmup::snapshot();
  CHECK(r.module_loading == "EAGER");
  CHECK(r.jit_cache == warmup::detail::jit_cache_settings());
  if (was != nullptr) ::setenv("CUDA_MODULE_LOADING", kept.c_str(), 1);
  else ::unsetenv("CUDA_MODULE_LOADING");
}

TEST_CASE("report::find tells sites apart by kind and name") {
  const warmup::report r = sample_report();
  REQUIRE(r.find(warmup::op_kind::h2d, "upload") != nullptr);
  CHECK(r.find(warmup::op_kind::h2d, "upload")->bytes->first == 1'000'000);
  CHECK(r.find(warmup::op_kind::context, "once") == &r.sites[0]);
  CHECK(r.find(warmup::op_kind::region, "upload") == nullptr);
  CHECK(r.find(warmup::op_kind::h2d, "nothing") == nullptr);
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

TEST_CASE("a start time in ISO 8601 UTC, to the millisecond") {
  using warmup::detail::iso_utc;
  CHECK(iso_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(iso_utc(999) == "1970-01-01T00:00:00.999Z");
  CHECK(iso_utc(86'399'999) == "1970-01-01T23:59:59.999Z");
  CHECK(iso_utc(1'795'816'418'123) == "2026-11-27T21:53:38.123Z");
  CHECK(iso_utc(-1) == "unknown");
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

TEST_CASE("the report's device status says why the device was not described, in each case") {
  warmup::detail::cuda_state st;
  CHECK(warmup::detail::device_status(st, false).rfind("not described: no scope was given a stream", 0) == 0);
  st.runtime.store(warmup::detail::cuda_state::available);
  CHECK(warmup::detail::device_status(st, true) == "ok");
  CHECK(warmup::detail::device_status(st, false) == "the current device could not be described");
  st.closed.store(true);
  CHECK(warmup::detail::device_status(st, false).rfind("not described: the program was exiting", 0) == 0);
  st.why_unavailable = "no CUDA driver";
  st.runtime.store(warmup::detail::cuda_state::unavailable);
  CHECK(warmup::detail::device_status(st, false) == "no CUDA driver");
}

TEST_CASE("a GPU's UUID is written as nvidia-smi writes it, each byte in its place") {
  const unsigned char bytes[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                   0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0xfe, 0xff};
  CHECK(warmup::detail::uuid_text(bytes) == "GPU-00010203-0405-0607-0809-0a0b0c0dfeff");
}

TEST_CASE("a device's description takes each figure from its own property") {
  cudaDeviceProp p{};
  std::snprintf(p.name, sizeof p.name, "%s", "Some GPU");
  for (int i = 0; i < 16; ++i) p.uuid.bytes[i] = static_cast<char>(i + 1);
  p.major = 9, p.minor = 7, p.multiProcessorCount = 132, p.totalGlobalMem = std::size_t{3} << 30;
  const warmup::device_description d = warmup::detail::description_of(2, p);
  CHECK(d.index == 2);
  CHECK(d.name == "Some GPU");
  CHECK(d.uuid == "GPU-01020304-0506-0708-090a-0b0c0d0e0f10");
  CHECK(d.compute_major == 9);
  CHECK(d.compute_minor == 7);
  CHECK(d.multiprocessors == 132);
  CHECK(d.memory_bytes == std::uint64_t{3} << 30);
}
