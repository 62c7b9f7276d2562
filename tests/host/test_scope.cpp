// Scopes on the host: what they count, how sites are identified, and what they survive.
#include "catch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/record/host_call.hpp"
#include "warmup/detail/runtime/registry.hpp"
#include "warmup/detail/runtime/site_reader.hpp"
#include "../support/settings_kept.hpp"

using namespace std::chrono_literals;
using warmup::op_kind;

TEST_CASE("a host scope measures at least the time spent inside it") {
  for (int i = 0; i < 5; ++i) {
    warmup::region_scope s{"scope.sleep"};
    std::this_thread::sleep_for(i == 0 ? 5ms : 1ms);  // sleep_for never returns early
  }
  const auto r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "scope.sleep");
  REQUIRE(s != nullptr);
  CHECK(s->calls == 5);
  CHECK(s->host.first >= 5ms);
  REQUIRE(s->host.steady);
  CHECK(s->host.steady->min >= 1ms);
  CHECK_FALSE(s->device);
}

// A tool's call (detail::host_call: an NVTX range's push and pop) as a scope: at least what lay
// between its begin and end, and no more than the caller saw pass around them.
TEST_CASE("a tool's call times what lies between its begin and its end") {
  warmup::detail::named_site* n = warmup::detail::lookup(warmup::op_kind::region, "scope.host_call");
  REQUIRE(n != nullptr);
  const auto before = std::chrono::steady_clock::now();
  warmup::detail::host_call call;
  call.begin(n->s, nullptr);
  std::this_thread::sleep_for(2ms);
  call.end();
  const auto around = std::chrono::steady_clock::now() - before;
  const auto r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "scope.host_call");
  REQUIRE(s != nullptr);
  CHECK(s->calls == 1);
  CHECK(s->host.first >= 2ms);
  CHECK(s->host.first <= around + 1ms);  // the clock's rate is good to 0.1%: 1 ms is room to spare
  CHECK_FALSE(s->bytes);                  // a tool's range moves no bytes
}

TEST_CASE("a site is its kind and its name, whatever the name's type") {
  const std::string dynamic = "scope.same";
  { warmup::region_scope a{"scope.same"}; }
  { warmup::region_scope b{std::string_view{dynamic}}; }
  { warmup::region_scope c{std::string("scope.") + "same"}; }  // a temporary
  { warmup::launch_scope d{"scope.same"}; }                    // another kind: another site
  const auto r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "scope.same") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "scope.same")->calls == 3);
  REQUIRE(r.find(op_kind::launch, "scope.same") != nullptr);
  CHECK(r.find(op_kind::launch, "scope.same")->calls == 1);
}

namespace {
int macro_site_user() {
  WARMUP_FUNC_SCOPE();
  WARMUP_SCOPE("scope.macro.inner");
  return 1;
}
}  // namespace

TEST_CASE("WARMUP_SCOPE and WARMUP_FUNC_SCOPE make one site per name") {
  int n = 0;
  for (int i = 0; i < 7; ++i) n += macro_site_user();
  const auto r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "macro_site_user") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "macro_site_user")->calls == 7);
  REQUIRE(r.find(warmup::op_kind::region, "scope.macro.inner") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "scope.macro.inner")->calls == 7);
  CHECK_FALSE(r.find(warmup::op_kind::region, "scope.macro.inner")->bytes);  // a region moves no bytes
  CHECK(n == 7);
}

TEST_CASE("sizes that vary are said to, though their total is the first size times the calls") {
  for (const std::size_t bytes : {2000u, 1000u, 3000u}) { warmup::h2d_scope up{"scope.upload.balanced", bytes}; }
  const auto r = warmup::snapshot();
  const auto* up = r.find(op_kind::h2d, "scope.upload.balanced");
  REQUIRE(up != nullptr);
  REQUIRE(up->bytes);
  CHECK(up->bytes->total == 3 * up->bytes->first);  // 6000 = 3 x 2000: the total alone cannot tell
  CHECK(up->bytes->sizes_vary);
  CHECK_FALSE(up->bytes->steady_gbps);
}

TEST_CASE("copies and allocations keep their bytes") {
  for (int i = 0; i < 4; ++i) { warmup::h2d_scope up{"scope.upload", std::size_t{1000} * (i + 1)}; }
  { warmup::alloc_scope a{"scope.alloc", std::size_t{1} << 20}; }
  { warmup::region_scope plain{"scope.bytes.plain"}; }
  const auto r = warmup::snapshot();
  const auto* up = r.find(op_kind::h2d, "scope.upload");
  REQUIRE(up != nullptr);
  REQUIRE(up->bytes);
  CHECK(up->bytes->first == 1000);
  CHECK(up->bytes->total == 10000);
  // Bytes per ns are GB/s (10^9 bytes a second): the first call's bytes over its time, and all
  // bytes over all the time.
  REQUIRE(up->bytes->first_gbps);
  CHECK(*up->bytes->first_gbps == 1000.0 / double(up->host.first.count()));
  CHECK(up->bytes->sizes_vary);  // 1000, 2000, 3000, 4000 bytes: no single steady bandwidth
  CHECK_FALSE(up->bytes->steady_gbps);
  REQUIRE(up->bytes->mean_gbps);
  CHECK(*up->bytes->mean_gbps == 10000.0 / double(up->host.total.count()));
  const auto* a = r.find(op_kind::alloc, "scope.alloc");
  REQUIRE(a != nullptr);
  REQUIRE(a->bytes);
  CHECK(a->bytes->total == (1u << 20));
  CHECK_FALSE(a->bytes->sizes_vary);
  const auto noted = [](const warmup::site_report& s, const std::string& start) {
    return std::any_of(s.notes.begin(), s.notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
  };
  CHECK(noted(*up, "bandwidth from host time (no call was device-timed)"));
  CHECK(noted(*up, "calls moved different numbers of bytes"));
  CHECK_FALSE(noted(*a, "calls moved different numbers of bytes"));
  CHECK_FALSE(noted(*up, "once steady, device-timed on a sample"));  // none was left out
  CHECK_FALSE(a->pool);  // its pool never read (no stream, no GPU): no pool figures at all
  CHECK_FALSE(up->pool);
  const auto* plain = r.find(warmup::op_kind::region, "scope.bytes.plain");
  REQUIRE(plain != nullptr);
  CHECK_FALSE(plain->bytes);
}

TEST_CASE("a copy's host memory, pinned and pageable, is read into a count of each") {
  { warmup::h2d_scope up{"scope.host_kinds", std::size_t{64}}; }
  warmup::detail::named_site* n = warmup::detail::lookup(op_kind::h2d, "scope.host_kinds");
  REQUIRE(n != nullptr);
  n->s->host_memory(false);  // as the scope records what the driver says of its host pointer
  n->s->host_memory(false);
  n->s->host_memory(true);
  const auto r = warmup::snapshot();
  const auto* s = r.find(op_kind::h2d, "scope.host_kinds");
  REQUIRE(s != nullptr);
  REQUIRE(s->bytes);
  CHECK(s->bytes->host_pageable_calls == 2);
  CHECK(s->bytes->host_pinned_calls == 1);
}

TEST_CASE("a copy whose calls took no measurable time has bytes and no bandwidth") {
  // Calls as a clock too coarse to see them records them: no time between their two readings.
  warmup::detail::named_site* n = warmup::detail::lookup(op_kind::h2d, "scope.no_time");
  REQUIRE(n != nullptr);
  for (int i = 0; i < 2; ++i) {
    const warmup::detail::call_ticket call = n->s->begin_call(&n->slot);
    const bool after_idle = n->s->end_host(call.index, 1000, 1000, 0);
    n->s->end_call(call, 0, after_idle, 4096, false, false);
  }
  const auto r = warmup::snapshot();
  const auto* s = r.find(op_kind::h2d, "scope.no_time");
  REQUIRE(s != nullptr);
  REQUIRE(s->bytes);
  CHECK(s->bytes->total == 8192);
  CHECK_FALSE(s->bytes->first_gbps);  // bytes over no time is no rate
  CHECK_FALSE(s->bytes->mean_gbps);
}

TEST_CASE("a copy's first call of 1 ns, the shortest a clock can see, has its bandwidth") {
  warmup::detail::site s(op_kind::h2d, "scope.one_ns", 0);
  for (int i = 0; i < 2; ++i) {
    const warmup::detail::call_ticket call = s.begin_call(nullptr);
    const bool after_idle = s.end_host(call.index, 1000, 1001, 1);
    s.end_call(call, 1, after_idle, 4096, false, false);
  }
  const warmup::site_report r = warmup::detail::read_site(s, warmup::detail::time_map{});  // 1 ns a tick
  REQUIRE(r.host.first.count() == 1);
  REQUIRE(r.bytes);
  REQUIRE(r.bytes->first_gbps);
  CHECK(*r.bytes->first_gbps == 4096.0);  // bytes per ns are GB/s
}

TEST_CASE("an exception through a scope is measured and counted") {
  for (int i = 0; i < 3; ++i) {
    try {
      warmup::region_scope s{"scope.throws"};
      if (i != 1) throw std::runtime_error("boom");
    } catch (const std::runtime_error&) {
    }
  }
  const auto r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "scope.throws");
  REQUIRE(s != nullptr);
  CHECK(s->calls == 3);
  CHECK(s->exceptions == 2);
}

namespace {
// Runs a whole scope in its destructor: during unwinding, the scope starts and ends with the
// same exception in flight, so nothing ends it.
struct scope_in_destructor {
  ~scope_in_destructor() { warmup::region_scope s{"scope.in_unwinding"}; }
};
}  // namespace

TEST_CASE("only an exception that ends a scope counts: not one already in flight, caught, or on another thread") {
  try {
    warmup::region_scope outer{"scope.unwound"};
    scope_in_destructor d;
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
    warmup::region_scope handler{"scope.in_handler"};  // the exception is caught: not uncaught
    std::thread other([] { warmup::region_scope s{"scope.other_thread"}; });
    other.join();
  }
  const auto r = warmup::snapshot();
  const auto count = [&](const char* name) {
    const auto* s = r.find(warmup::op_kind::region, name);
    REQUIRE(s != nullptr);
    CHECK(s->calls == 1);
    return s->exceptions;
  };
  CHECK(count("scope.unwound") == 1);
  CHECK(count("scope.in_unwinding") == 0);
  CHECK(count("scope.in_handler") == 0);
  CHECK(count("scope.other_thread") == 0);
}

TEST_CASE("threads sharing and not sharing sites lose and double-count no call") {
  constexpr int threads = 8, calls = 20000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t] {
      const std::string own = "scope.thread." + std::to_string(t);
      for (int i = 0; i < calls; ++i) {
        warmup::region_scope shared{"scope.shared"};
        warmup::launch_scope mine{own};
      }
    });
  // Snapshots while the threads run must neither block them nor break the counts.
  for (int i = 0; i < 20; ++i) (void)warmup::snapshot();
  for (auto& th : pool) th.join();
  const auto r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "scope.shared") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "scope.shared")->calls == std::uint64_t{threads} * calls);
  // Every call begun was recorded once, whichever lane of the series it went to.
  CHECK(r.find(warmup::op_kind::region, "scope.shared")->host.calls == std::uint64_t{threads} * calls);
  for (int t = 0; t < threads; ++t) {
    const auto* s = r.find(op_kind::launch, "scope.thread." + std::to_string(t));
    REQUIRE(s != nullptr);
    CHECK(s->calls == calls);
    CHECK(s->host.calls == calls);
  }
}

TEST_CASE("a slow call after the site idled is a cold recurrence, not steady noise") {
  const warmup_test::idle_threshold_kept kept;
  warmup::set_idle_threshold(std::chrono::milliseconds(30));
  const auto call = [](std::chrono::milliseconds inside) {
    warmup::region_scope s{"scope.cold_again"};
    if (inside.count() != 0) std::this_thread::sleep_for(inside);
  };
  for (int i = 0; i < 20; ++i) call(0ms);
  std::this_thread::sleep_for(40ms);  // idle for longer than the threshold
  call(100ms);                         // and slow again (longer than any stall of a loaded machine)
  for (int i = 0; i < 20; ++i) call(0ms);

  const auto r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "scope.cold_again");
  REQUIRE(s != nullptr);
  CHECK(s->calls == 41);
  CHECK(s->host.cold_recurrences == 1);
  REQUIRE(s->host.steady);
  CHECK(s->host.cold_excess >= 100ms - s->host.steady->p50);
  CHECK(s->host.steady->max < 100ms);  // kept out of every steady figure
}

TEST_CASE("expect_cold() makes every site's next call a candidate") {
  const auto call = [](std::chrono::milliseconds inside) {
    warmup::launch_scope s{"scope.after_reset"};
    if (inside.count() != 0) std::this_thread::sleep_for(inside);
  };
  // Calls of 2 ms: the steady band is wide against scheduling noise, even under a sanitizer. How
  // many of the first calls are read as warm-up is left to that noise; the cold call is not.
  for (int i = 0; i < 20; ++i) call(2ms);
  warmup::expect_cold();  // as after cudaDeviceReset()
  call(100ms);
  for (int i = 0; i < 20; ++i) call(2ms);
  const auto r = warmup::snapshot();
  const auto* s = r.find(op_kind::launch, "scope.after_reset");
  REQUIRE(s != nullptr);
  CHECK(s->host.cold_recurrences == 1);
  CHECK(s->host.warmup_calls < 20);
  REQUIRE(s->host.steady);
  CHECK(s->host.steady->max < 100ms);  // kept out of every steady figure
}

// expect_cold() marks the next call of every site that has had one; a site's very first call is
// a first call, never a cold recurrence, whether or not expect_cold() came before it. Played on a
// site's tracker (the epoch bumped as expect_cold() bumps it, and put back after: no other site
// records meanwhile, so none sees the change).
TEST_CASE("after expect_cold(), a site's first call is not a candidate; the next call after another is") {
  namespace d = warmup::detail;
  std::atomic<std::uint32_t>& epoch = d::recurrence().epoch;
  const std::uint32_t was = epoch.load();
  warmup::expect_cold();
  d::idle_tracker site;  // a site made after it
  // Ticks past the tracker's coarse step (2^20), so that the first call's end is kept.
  const std::uint64_t t0 = std::uint64_t{1} << 30;
  const bool first = site.candidate(t0, t0 + 100, 1.0);
  const bool second = site.candidate(t0 + 200, t0 + 300, 1.0);  // nothing said since: an ordinary call
  warmup::expect_cold();
  const bool after = site.candidate(t0 + 400, t0 + 500, 1.0);
  epoch.store(was);
  CHECK_FALSE(first);
  CHECK_FALSE(second);
  CHECK(after);
}

// A site keeps its last end coarsely (once per 2^20 ticks), so that threads sharing it do not
// write its cache line on every call; an end exactly one step on is kept, and the idle gap of the
// next call runs from it.
TEST_CASE("the idle gap runs from the last end kept: an end exactly one coarse step on is kept") {
  warmup::detail::idle_tracker site;
  const std::uint64_t step = std::uint64_t{1} << 20, e1 = std::uint64_t{1} << 30;
  const std::uint64_t idle = warmup::detail::recurrence().idle_ns.load();
  REQUIRE(idle > 2 * step);
  CHECK_FALSE(site.candidate(e1 - 100, e1, 1.0));
  CHECK_FALSE(site.candidate(e1 + 10, e1 + step, 1.0));
  // The idle time after the first end, but less after the second: an ordinary call.
  CHECK_FALSE(site.candidate(e1 + idle, e1 + idle + 100, 1.0));
}

// The event reader hands a device time back with its start where the events gave one: the call's
// timeline entry gets both; a time without a start (0: not known) leaves the entry's device side
// unset, as "not yet".
TEST_CASE("a device time with its start lands on its call's timeline entry; one without a start does not") {
  warmup::detail::site s(op_kind::launch, "scope.device_timeline", 0);
  for (std::uint64_t i = 0; i < 3; ++i) (void)s.end_host(i, 1'000 * (i + 1), 1'000 * (i + 1) + 50, 50);
  s.device_time(0, 40, false, 123'000);
  s.device_time(1, 41, false, 0);
  const std::vector<warmup::detail::timeline_call> line = s.timeline_calls();
  const auto entry = [&](std::uint64_t index) -> const warmup::detail::timeline_call* {
    for (const auto& c : line)
      if (c.index == index) return &c;
    return nullptr;
  };
  REQUIRE(entry(0) != nullptr);
  REQUIRE(entry(1) != nullptr);
  REQUIRE(entry(2) != nullptr);
  CHECK(entry(0)->device_start == 123'000);
  CHECK(entry(0)->device_ns == 40);
  CHECK(entry(1)->device_start == 0);
  CHECK(entry(1)->device_ns == 0);
  CHECK(entry(2)->device_ns == 0);
  // The device series has both times all the same.
  REQUIRE(s.device_series_if_any() != nullptr);
  CHECK(s.device_series_if_any()->read().first.size() == 2);
}

// Where no NVTX tool is attached (NVTX hands back no domain), a scope makes no NVTX call: the
// push says no range was pushed, so the pop makes none either.
TEST_CASE("with no NVTX tool attached, a scope pushes no range") {
  namespace d = warmup::detail;
  const bool tool = d::nvtx_tool_domain.load() != nullptr;
  d::nvtx_name name;
  name.ascii = "scope.nvtx";
  const bool pushed = d::nvtx_push(name, op_kind::region, 0);
  d::nvtx_pop(pushed);
  CHECK(pushed == tool);
}

TEST_CASE("the timeline keeps a site's first calls and a bounded sample after them") {
  warmup::set_timeline_calls(8);
  for (int i = 0; i < 1000; ++i) { warmup::region_scope s{"scope.timeline"}; }
  warmup::set_timeline_calls(16);
  const auto r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "scope.timeline");
  REQUIRE(s != nullptr);
  CHECK(s->first_calls.size() == 64);
  REQUIRE(s->timeline.size() >= 8 + 8);
  CHECK(s->timeline.size() <= 8 + 16);
  for (std::uint64_t i = 0; i < 8; ++i) CHECK(s->timeline[i].index == i);
  CHECK(s->timeline.back().index >= 512);  // the sample reaches the latest stretch
  for (std::size_t i = 1; i < s->timeline.size(); ++i) {
    CHECK(s->timeline[i].index > s->timeline[i - 1].index);
    CHECK(s->timeline[i].host_start >= s->timeline[i - 1].host_start);
  }
  CHECK_FALSE(s->timeline.front().device_start);
  const std::string trace = warmup::to_trace(r);
  CHECK(trace.find("\"name\":\"scope.timeline\",\"cat\":\"region\",\"ph\":\"X\"") != std::string::npos);
  CHECK(trace.find("\"cname\":\"terrible\"") != std::string::npos);
}

TEST_CASE("warmup::disable() stops measuring, warmup::enable() resumes") {
  for (int i = 0; i < 3; ++i) { warmup::region_scope s{"scope.switch"}; }
  warmup::disable();
  CHECK_FALSE(warmup::is_enabled());
  for (int i = 0; i < 5; ++i) {
    warmup::region_scope s{"scope.switch"};
    warmup::region_scope never{"scope.switch.never"};
  }
  warmup::enable();
  CHECK(warmup::is_enabled());
  { warmup::region_scope s{"scope.switch"}; }
  const auto r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "scope.switch") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "scope.switch")->calls == 4);
  CHECK(r.find(warmup::op_kind::region, "scope.switch.never") == nullptr);  // not even registered while off
}

TEST_CASE("byte counts of any integer type; a negative one counts as 0 and is said once") {
  const int small = 1000;
  const long long large = 1LL << 40;
  const unsigned short tiny = 7;
  for (int i = 0; i < 3; ++i) {
    warmup::h2d_scope a{"bytes.int", small};
    warmup::d2h_scope b{"bytes.long_long", large};
    warmup::d2d_scope c{"bytes.ushort", tiny};
  }
  { warmup::alloc_scope zero{"bytes.zero", 0}; }  // a signed 0: no mistake, nothing said
  { warmup::alloc_scope neg{"bytes.negative", -5}; }
  const auto r = warmup::snapshot();
  REQUIRE(r.find(op_kind::h2d, "bytes.int") != nullptr);
  CHECK(r.find(op_kind::h2d, "bytes.int")->bytes->total == 3000);
  CHECK(r.find(op_kind::d2h, "bytes.long_long")->bytes->first == (1ULL << 40));
  CHECK(r.find(op_kind::d2d, "bytes.ushort")->bytes->total == 21);
  const auto* neg = r.find(op_kind::alloc, "bytes.negative");
  REQUIRE(neg != nullptr);
  CHECK(neg->calls == 1);
  CHECK_FALSE(neg->bytes);  // no bytes were counted
  bool said = false;
  for (const auto& n : r.notices) {
    said = said || n.find("negative byte count (-5)") != std::string::npos;
    CHECK(n.find("negative byte count (0)") == std::string::npos);
  }
  CHECK(said);
  REQUIRE(r.find(op_kind::alloc, "bytes.zero") != nullptr);
  CHECK(r.find(op_kind::alloc, "bytes.zero")->calls == 1);
}

TEST_CASE("byte totals saturate instead of wrapping, and the report says so") {
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() / 2;
  for (int i = 0; i < 4; ++i) warmup::h2d_scope s{"bytes.huge", huge};
  const auto r = warmup::snapshot();
  const auto* s = r.find(op_kind::h2d, "bytes.huge");
  REQUIRE(s != nullptr);
  REQUIRE(s->bytes);
  CHECK(s->bytes->total_saturated);
  CHECK(s->bytes->total == std::numeric_limits<std::uint64_t>::max());
  CHECK_FALSE(s->bytes->mean_gbps);     // no rate from a saturated total
  CHECK_FALSE(s->bytes->sizes_vary);    // every call moved the same bytes
}

TEST_CASE("bandwidth: copies say which clock it came from; allocations have none") {
  for (int i = 0; i < 40; ++i) {
    warmup::h2d_scope c{"bw.copy", std::size_t{1} << 20};
    warmup::alloc_scope a{"bw.alloc", std::size_t{1} << 20};
  }
  const auto r = warmup::snapshot();
  const auto* copy = r.find(op_kind::h2d, "bw.copy");
  const auto* alloc = r.find(op_kind::alloc, "bw.alloc");
  REQUIRE(copy != nullptr);
  REQUIRE(alloc != nullptr);
  CHECK(copy->bytes->gbps_clock == warmup::clock_domain::host);
  // Equal sizes: first, steady and mean, each bytes over the host time it came with (GB/s).
  const double mib = double(1u << 20);
  REQUIRE(copy->bytes->first_gbps);
  CHECK(*copy->bytes->first_gbps == mib / double(copy->host.first.count()));
  REQUIRE(copy->host.steady);
  REQUIRE(copy->bytes->steady_gbps);
  CHECK(*copy->bytes->steady_gbps == mib / double(copy->host.steady->p50.count()));
  REQUIRE(copy->bytes->mean_gbps);
  CHECK(*copy->bytes->mean_gbps == 40 * mib / double(copy->host.total.count()));
  CHECK(alloc->bytes->total == 40u << 20);
  CHECK_FALSE(alloc->bytes->gbps_clock);
  CHECK_FALSE(alloc->bytes->first_gbps);
  CHECK_FALSE(alloc->bytes->mean_gbps);
  std::ostringstream table;
  warmup::print(r, table);
  CHECK(table.str().find(" (host)") != std::string::npos);
}

TEST_CASE("timed() measures a callable as a site and hands back its result") {
  int calls = 0;
  for (int i = 0; i < 4; ++i) {
    const int got = warmup::timed("timed.value", [&] { return ++calls * 10; });
    CHECK(got == calls * 10);
  }
  warmup::timed<warmup::op::launch>("timed.void", [&] { ++calls; });
  std::string moved = warmup::timed("timed.move", [] { return std::string(100, 'x'); });
  CHECK(moved.size() == 100);
  CHECK(calls == 5);
  const auto r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "timed.value") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "timed.value")->calls == 4);
  REQUIRE(r.find(op_kind::launch, "timed.void") != nullptr);
  CHECK(r.find(op_kind::launch, "timed.void")->calls == 1);
}

// Only allocation scopes read the pool, so only they hold its reading: other scopes' frames do
// not grow for it (the hot path of a launch or region scope is the one that matters).
static_assert(sizeof(warmup::launch_scope) == sizeof(warmup::region_scope), "scopes of equal duty, equal size");
static_assert(!warmup::enabled_at_compile_time || sizeof(warmup::launch_scope) < sizeof(warmup::alloc_scope),
              "the pool reading lives in allocation scopes only");

namespace {
const warmup::detail::site* find_site(op_kind k, std::string_view name) {
  for (const warmup::detail::site* s : warmup::detail::sites().all())
    if (s->op == k && s->name == name) return s;
  return nullptr;
}
void macro_calls(int n) {
  for (int i = 0; i < n; ++i) {
    WARMUP_SCOPE("scope.shard.macro");
  }
}
}  // namespace

TEST_CASE("threads that end give their shards back: a thread pool's churn keeps a site's shards few") {
  constexpr int generations = 100, calls = 500;  // more threads over time than a site has shards
  for (int g = 0; g < generations; ++g) {
    std::thread t([] {
      macro_calls(calls);
      for (int i = 0; i < calls; ++i) warmup::region_scope s{"scope.shard.named"};
    });
    t.join();
  }
  const auto r = warmup::snapshot();
  for (const char* name : {"scope.shard.macro", "scope.shard.named"}) {
    INFO(name);
    const auto* s = r.find(op_kind::region, name);
    REQUIRE(s != nullptr);
    CHECK(s->calls == std::uint64_t{generations} * calls);
    CHECK(s->host.calls == std::uint64_t{generations} * calls);
    CHECK(s->first_calls.size() == 64);  // the first 64 stay exact
    const auto* site = find_site(op_kind::region, name);
    REQUIRE(site != nullptr);
    CHECK(site->shard_count() == 1);  // one thread at a time: the same shard, given again
  }
}

namespace {
// Made before the thread's first named scope, so destroyed after the thread's table of names:
// its scopes find the table gone (and its small table by address cleared, since its entries
// pointed into it).
struct scopes_at_thread_end {
  ~scopes_at_thread_end() {
    for (int i = 0; i < 3; ++i) warmup::region_scope s{"scope.thread_end.named"};
    const std::string built = "scope.thread_end.built";
    warmup::region_scope t{built};
  }
};
}  // namespace

TEST_CASE("named scopes in a thread_local destructor after the thread's name table is gone are measured") {
  // The next case uses the same sites: counted from what they held before (any order of cases).
  const auto calls_of = [](const warmup::report& r, const char* name) {
    const auto* s = r.find(op_kind::region, name);
    return s == nullptr ? std::uint64_t{0} : std::uint64_t{s->calls};
  };
  const warmup::report before = warmup::snapshot();
  std::thread t([] {
    static thread_local scopes_at_thread_end late;
    (void)&late;
    for (int i = 0; i < 300; ++i) warmup::region_scope s{"scope.thread_end.named"};
  });
  t.join();
  const auto r = warmup::snapshot();
  CHECK(calls_of(r, "scope.thread_end.named") - calls_of(before, "scope.thread_end.named") == 303);
  CHECK(calls_of(r, "scope.thread_end.built") - calls_of(before, "scope.thread_end.built") == 1);
}

TEST_CASE("scopes at a thread's end take no shard: thread after thread, the site reuses the one it gave back") {
  for (int t = 0; t < 10; ++t)
    std::thread([] {
      static thread_local scopes_at_thread_end late;
      (void)&late;
      for (int i = 0; i < 300; ++i) warmup::region_scope s{"scope.thread_end.named"};  // past the window: a shard
    }).join();
  const auto* site = find_site(op_kind::region, "scope.thread_end.named");
  REQUIRE(site != nullptr);
  CHECK(site->shard_count() == 1);  // a shard held past the thread's end would never come back
}

namespace {
void macro_site_call() { WARMUP_SCOPE("scope.thread_end.macro"); }

// Made before the thread's table of names, so destroyed after it: a WARMUP_SCOPE the thread never
// ran before meets a site past its first calls, whose shard it cannot note for the thread's end.
struct macro_scopes_at_thread_end {
  ~macro_scopes_at_thread_end() {
    for (int i = 0; i < 300; ++i) macro_site_call();
  }
};
}  // namespace

TEST_CASE("a WARMUP_SCOPE first met after the thread's name table is gone keeps no shard past the thread") {
  for (int i = 0; i < 300; ++i) macro_site_call();  // past the window: this thread holds a shard
  for (int t = 0; t < 10; ++t)
    std::thread([] {
      static thread_local macro_scopes_at_thread_end late;
      (void)&late;
      warmup::region_scope s{"scope.thread_end.table"};  // the thread's name table, made after `late`
    }).join();
  const auto* site = find_site(op_kind::region, "scope.thread_end.macro");
  REQUIRE(site != nullptr);
  // The main thread's shard, and at most one more, taken and given back by each thread's end in
  // turn: a shard noted in a table already freed would never come back.
  CHECK(site->shard_count() <= 2);
  const auto r = warmup::snapshot();
  REQUIRE(r.find(op_kind::region, "scope.thread_end.macro") != nullptr);
  CHECK(r.find(op_kind::region, "scope.thread_end.macro")->calls == 300 + 10 * 300);
}

TEST_CASE("more threads at once than a site has shards: the rest share a lane, no call lost") {
  constexpr int threads = 80, calls = 2000;
  static_assert(threads > int(warmup::detail::site::max_shards));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([] {
      for (int i = 0; i < calls; ++i) warmup::region_scope s{"scope.shard.crowd"};
    });
  for (int i = 0; i < 5; ++i) (void)warmup::snapshot();
  for (auto& th : pool) th.join();
  const auto r = warmup::snapshot();
  const auto* s = r.find(op_kind::region, "scope.shard.crowd");
  REQUIRE(s != nullptr);
  CHECK(s->calls == std::uint64_t{threads} * calls);
  CHECK(s->host.calls == std::uint64_t{threads} * calls);
  const auto* site = find_site(op_kind::region, "scope.shard.crowd");
  REQUIRE(site != nullptr);
  CHECK(site->shard_count() <= warmup::detail::site::max_shards);
  // Indexes stay unique: the timeline holds no call twice.
  std::vector<std::uint64_t> seen;
  for (const auto& c : s->timeline) seen.push_back(c.index);
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
}

TEST_CASE("a name buffer reused at the same address for another name finds the other site") {
  // Lengths on each path of the comparison: under 4, 4 to 7, 8 to 16, and longer.
  for (const std::string base : {"ab", "abcde", "abcdefghijk", "abcdefghijklmnopqrstuvwxyz"}) {
    INFO(base);
    std::string name = base;  // one buffer, two names of one length
    for (int i = 0; i < 3; ++i) warmup::region_scope s{name};
    name.back() = '!';
    for (int i = 0; i < 5; ++i) warmup::region_scope s{name};
    name.front() = '?';
    for (int i = 0; i < 7; ++i) warmup::region_scope s{name};
    const auto r = warmup::snapshot();
    std::string last = base, front = base;
    last.back() = '!';
    front.back() = '!';
    front.front() = '?';
    REQUIRE(r.find(op_kind::region, base) != nullptr);
    CHECK(r.find(op_kind::region, base)->calls == 3);
    REQUIRE(r.find(op_kind::region, last) != nullptr);
    CHECK(r.find(op_kind::region, last)->calls == 5);
    REQUIRE(r.find(op_kind::region, front) != nullptr);
    CHECK(r.find(op_kind::region, front)->calls == 7);
  }
}

TEST_CASE("a thread refused a shard takes one once another thread gives its back") {
  using warmup::detail::shard_slot;
  warmup::detail::site& s = *warmup::detail::find_or_add_site(op_kind::region, "scope.shard.retry");
  for (int i = 0; i < 10'000; ++i) (void)s.begin_call(nullptr);  // past the first calls: shards are given
  // Every shard taken, each by a thread that waits; its slot outlives it (its end writes there).
  constexpr std::size_t holders = warmup::detail::site::max_shards;
  std::vector<shard_slot> slots(holders);
  std::vector<std::thread> pool;
  std::atomic<std::size_t> holding{0}, with_shard{0};
  std::atomic<int> release{-1};  // the holder that may end; holders() + 1: all
  for (std::size_t t = 0; t < holders; ++t)
    pool.emplace_back([&, t] {
      with_shard += s.begin_call(&slots[t]).from != nullptr;
      ++holding;
      while (release.load() != int(t) && release.load() != int(holders) + 1) std::this_thread::yield();
    });  // the thread's end gives its shard back
  while (holding.load() != holders) std::this_thread::yield();
  REQUIRE(with_shard.load() == holders);
  static shard_slot mine;  // noted by this thread for its end: must outlive the test
  CHECK(s.begin_call(&mine).from == nullptr);  // none left: the shared lane
  CHECK(mine.refused);
  CHECK(s.begin_call(&mine).from == nullptr);  // none freed meanwhile: no new try
  release = 0;
  pool[0].join();
  CHECK(s.begin_call(&mine).from != nullptr);  // one was given back: taken
  CHECK_FALSE(mine.refused);
  release = int(holders) + 1;
  for (std::size_t t = 1; t < holders; ++t) pool[t].join();
  CHECK(s.shard_count() == holders);
}

TEST_CASE("a thread takes blocks of calls from the first call past the exact ones, not one later") {
  namespace d = warmup::detail;
  d::site& s = *d::find_or_add_site(op_kind::region, "scope.shard.first_block");
  const std::uint64_t exact = std::max<std::uint64_t>(d::series::window, d::timeline_config().first_calls.load());
  static d::shard_slot slot;  // noted by this thread for its end: must outlive the test
  std::uint64_t one_by_one = 0;
  while (one_by_one <= exact && s.begin_call(&slot).from == nullptr) ++one_by_one;
  CHECK(one_by_one == exact);  // calls 0 to exact - 1 counted one by one, exact
}

TEST_CASE("names compared by their characters: every length, a difference at every place") {
  // same_chars compares 4 to 16 bytes in two overlapping words; other lengths byte by byte.
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string a(n, 'a');
    CHECK(warmup::detail::same_chars(a.data(), std::string(a).data(), n));
    for (std::size_t at = 0; at < n; ++at) {
      std::string b = a;
      b[at] = 'b';
      INFO("length " << n << ", differing at " << at);
      CHECK_FALSE(warmup::detail::same_chars(a.data(), b.data(), n));
    }
  }
}

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

// A sanitizer's allocator ends the process where memory runs out, rather than failing the call.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WARMUPTEST_ALLOCATOR_ENDS_PROCESS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define WARMUPTEST_ALLOCATOR_ENDS_PROCESS 1
#endif
#endif

#if !defined(WARMUPTEST_ALLOCATOR_ENDS_PROCESS)
namespace {
// The process's address space now, in bytes (/proc/self/statm's first field, in pages); 0 if unread.
std::size_t address_space_now() {
  char text[128] = {};
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return 0;
  return static_cast<std::size_t>(std::strtoull(text, nullptr, 10)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Touches 256 KiB of stack, so that the stack's mapping holds what the calls after need.
[[gnu::noinline]] void grow_stack() {
  volatile char pad[256 * 1024];
  for (std::size_t i = 0; i < sizeof pad; i += 512) pad[i] = 0;
}

// In a process whose address space may not grow (RLIMIT_AS at its size): takes every block
// malloc can still give, largest first, so that the next allocation of any size fails.
void take_all_memory() {
  static void* volatile taken = nullptr;  // a volatile store: no compiler may drop a call
  for (std::size_t size = std::size_t{1} << 24; size > 2048; size /= 2)
    while ((taken = std::malloc(size)) != nullptr) {
    }
  for (std::size_t size = 2048; size >= 1; --size)
    while ((taken = std::malloc(size)) != nullptr) {
    }
}
}  // namespace
#endif

// A named scope whose site cannot be made (the registry's allocation failed) gets no site: it
// measures nothing and must not touch one. Memory is made to run out in a forked child.
TEST_CASE("a named scope whose site cannot be made, memory being out, measures nothing and lives") {
#if defined(WARMUPTEST_ALLOCATOR_ENDS_PROCESS)
  WARN("under a sanitizer, running out of memory ends the process: nothing to check");
#else
  { warmup::region_scope s{"scope.memory_out.before"}; }
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (!warmup::detail::measuring.load()) _exit(3);
    grow_stack();
    rlimit limit{};
    const std::size_t now = address_space_now();
    if (now == 0 || ::getrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    limit.rlim_cur = now;
    if (::setrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    take_all_memory();
    { warmup::region_scope s{"scope.memory_out"}; }
    // Memory is still out: the scope's own lookup found no site either.
    _exit(warmup::detail::lookup(op_kind::region, "scope.memory_out") == nullptr ? 0 : 5);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("the child's wait status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#endif
}

TEST_CASE("what a scope takes follows its kind's row: copies and allocations a byte count, h2d and d2h a host pointer") {
  namespace d = warmup::detail;
  namespace op = warmup::op;
  // Checked when the test runs, so that a planted mutant of a row compiles and fails here.
  CHECK((d::takes_bytes<op::h2d> && d::takes_bytes<op::d2h> && d::takes_bytes<op::d2d> && d::takes_bytes<op::alloc>));
  CHECK_FALSE((d::takes_bytes<op::context> || d::takes_bytes<op::launch> || d::takes_bytes<op::region>));
  CHECK((d::has_host_side<op::h2d> && d::has_host_side<op::d2h>));
  CHECK_FALSE((d::has_host_side<op::d2d> || d::has_host_side<op::alloc>));
  CHECK(d::reads_pool<op::alloc>);
  CHECK_FALSE((d::reads_pool<op::h2d> || d::reads_pool<op::region>));
  CHECK((warmup::is_copy(op_kind::h2d) && warmup::is_copy(op_kind::d2h) && warmup::is_copy(op_kind::d2d)));
  CHECK_FALSE((warmup::is_copy(op_kind::alloc) || warmup::is_copy(op_kind::launch)));
  // A device-to-device copy reports its bandwidth, as every copy does (the row's `copies`).
  for (int i = 0; i < 3; ++i) warmup::d2d_scope c{"kinds.d2d", std::size_t{1} << 20};
  const auto r = warmup::snapshot();
  const auto* c = r.find(op_kind::d2d, "kinds.d2d");
  REQUIRE((c != nullptr && c->bytes));
  CHECK(c->bytes->first_gbps);
}
