// The scopes' clock: the cycle counter, converted from pairs of readings, agrees with the steady
// clock; a counter that disagrees is dropped; WARMUP_CLOCK=steady forces the steady clock.
#include "catch.hpp"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include <unistd.h>

#include "warmup/profile.hpp"
#include "warmup/detail/runtime/process_once.hpp"

using namespace std::chrono_literals;
using warmup::detail::clock_pair;
using warmup::detail::time_base;
using warmup::detail::time_source;

namespace {
bool steady_forced() {
  const char* v = std::getenv("WARMUP_CLOCK");
  return v != nullptr && std::strcmp(v, "steady") == 0;
}
}  // namespace

TEST_CASE("a scope's time agrees with the steady clock within 0.1% over 100 ms", "[clock]") {
  { warmup::region_scope first{"clock.hundred_ms"}; }  // the site made and its first call probed, outside the bracket
  // Two steady brackets: one outside the scope, one inside it. Whatever preempts the thread
  // between them widens the outer one and leaves the inner one inside the scope's time.
  std::chrono::steady_clock::time_point inner_start, inner_end;
  const auto before = std::chrono::steady_clock::now();
  {
    warmup::region_scope s{"clock.hundred_ms"};
    inner_start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(100ms);
    inner_end = std::chrono::steady_clock::now();
  }
  const auto after = std::chrono::steady_clock::now();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "clock.hundred_ms");
  REQUIRE(s != nullptr);
  REQUIRE(s->first_calls.size() == 2);
  // The scope's time lies between the two brackets, give or take 0.1%: no allowance for how
  // long the thread waited to run again.
  const double outside = double(std::chrono::duration_cast<std::chrono::nanoseconds>(after - before).count());
  const double inside = double(std::chrono::duration_cast<std::chrono::nanoseconds>(inner_end - inner_start).count());
  const double measured = double(s->first_calls[1].count());
  INFO("inside " << inside << " ns, measured " << measured << " ns, outside " << outside << " ns");
  CHECK(measured <= outside * 1.001);
  CHECK(measured >= inside * 0.999);
  INFO(r.host_clock);
  if (steady_forced()) {
    CHECK(r.host_clock == "steady_clock (WARMUP_CLOCK=steady)");
    CHECK(warmup::detail::host_time().source() == time_source::steady);
  } else if (warmup::detail::counter_unusable() == nullptr) {
    // Where the CPU allows it, the counter times the scopes, and the header says at what rate.
    CHECK(warmup::detail::host_time().source() == time_source::counter);
    CHECK(r.host_clock.rfind("cycle counter (", 0) == 0);
    CHECK(r.host_clock.find(" GHz against steady_clock over ") != std::string::npos);
  } else {
    CHECK(r.host_clock.rfind("steady_clock (", 0) == 0);
  }
}

namespace {
// When this process began on the steady clock, from /proc/self/stat (field 22, clock ticks since
// boot); nothing where that file cannot be read (the tests run on Linux, where it can).
std::optional<std::chrono::steady_clock::time_point> process_began() {
  std::FILE* f = std::fopen("/proc/self/stat", "r");
  if (f == nullptr) return std::nullopt;
  char line[4096] = {};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  const char* p = read ? std::strrchr(line, ')') : nullptr;  // the name may hold spaces
  if (p == nullptr) return std::nullopt;
  unsigned long long ticks = 0;
  // After ") ": state is field 3; starttime is field 22, the 20th from there.
  for (int field = 3; field <= 22 && p != nullptr; ++field) {
    p = std::strchr(p + 1, ' ');
    if (p != nullptr && field == 22) ticks = std::strtoull(p + 1, nullptr, 10);
  }
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (ticks == 0 || hz <= 0) return std::nullopt;
  return std::chrono::steady_clock::time_point{std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::nanoseconds{static_cast<long long>(ticks * (1'000'000'000ull / static_cast<unsigned long long>(hz)))})};
}
}  // namespace

TEST_CASE("the timeline's host starts convert to the steady clock's origin", "[clock]") {
  const auto before = std::chrono::steady_clock::now();
  { warmup::region_scope s{"clock.placed"}; }
  const auto after = std::chrono::steady_clock::now();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "clock.placed");
  REQUIRE(s != nullptr);
  REQUIRE(s->timeline.size() == 1);
  const auto origin = warmup::detail::process_start();
  CHECK(s->timeline[0].host_start >= (before - origin) - 2us);
  CHECK(s->timeline[0].host_start <= (after - origin) + 2us);
  // The origin is the library's start in this process: after the process began (the kernel's
  // start time, in clock ticks since boot, which steady_clock counts from too where the machine
  // never slept), not the steady clock's own epoch; and the same at every call.
  CHECK(origin <= before);
  CHECK(warmup::detail::process_start() == origin);
  const auto began = process_began();
  REQUIRE(began);
  CHECK(origin >= *began - 20ms);
  CHECK(origin <= *began + 60s);  // the library starts as the test program loads
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("a TSC the kernel calls invariant (nonstop_tsc) is one the library calls invariant", "[clock]") {
  // The kernel sets nonstop_tsc from the same CPUID bit (0x80000007, EDX bit 8).
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  REQUIRE(f != nullptr);
  bool nonstop = false;
  char line[8192];
  while (!nonstop && std::fgets(line, sizeof line, f) != nullptr)
    nonstop = std::strncmp(line, "flags", 5) == 0 && std::strstr(line, " nonstop_tsc") != nullptr;
  std::fclose(f);
  const char* why = warmup::detail::counter_unusable();
  INFO("nonstop_tsc " << nonstop << "; the library: " << (why ? why : "usable"));
  if (nonstop) CHECK(why == nullptr);  // the same bit, read from the same leaf
  else WARN("nothing to compare: this machine's kernel does not call its TSC invariant");
}

TEST_CASE("the counter is refused by a CPU that has no power leaf or whose TSC's bit is clear", "[clock]") {
  using warmup::detail::counter_unusable;
  CHECK(std::string(counter_unusable(0x80000006u, ~0u)) == "the CPU does not say whether its TSC is invariant");
  CHECK(std::string(counter_unusable(0x80000008u, ~(1u << 8))) == "the CPU's TSC is not invariant");
  CHECK(counter_unusable(0x80000007u, 1u << 8) == nullptr);
}
#endif

TEST_CASE("pairs that agree are kept, and give the rate", "[clock]") {
  time_base t;
  t.start_counter({1'000, 50'000, 20});
  CHECK(t.source() == time_source::counter);
  CHECK(t.ns_per_tick() == 0);  // one pair: no rate yet
  // A moment converts through that one pair already: the pair's own moment exactly.
  const auto one = t.map();
  REQUIRE(one.count == 1);
  CHECK(one.to_ns(1'000) == 50'000);
  // 2 ticks a ns (2 GHz), over 1 s.
  CHECK(t.add({1'000 + 2'000'000'000, 50'000 + 1'000'000'000, 20}, true));
  CHECK(t.ns_per_tick() == Approx(0.5).epsilon(1e-9));
  // A pair 0.02% off after 10 s more (steady_clock slewed by NTP) is within what is allowed.
  CHECK(t.add({1'000 + 22'000'000'000ull, 50'000 + 11'002'000'000ull, 20}, true));
  // A pair no later than the last on the steady clock teaches nothing: not kept, nothing dropped.
  CHECK_FALSE(t.add({1'000 + 22'000'000'001ull, 50'000 + 11'002'000'000ull, 20}, true));
  CHECK(t.source() == time_source::counter);
  const auto m = t.map();
  REQUIRE(m.count == 3);
  // Moments convert through the pairs around them, exactly at the pairs.
  CHECK(m.to_ns(1'000) == 50'000);
  CHECK(m.to_ns(1'000 + 2'000'000'000) == 50'000 + 1'000'000'000);
  CHECK(m.to_ns(1'000 + 1'000'000'000) == 50'000 + 500'000'000);
  // Durations at the rate over the whole run.
  CHECK(m.ns(2'000) == 1'000);
  CHECK(t.describe().find("1.9996 GHz against steady_clock over 11.002 s (3 pairs)") != std::string::npos);
}

TEST_CASE("a pair that disagrees drops the counter; later ticks still convert", "[clock]") {
  time_base t;
  t.start_counter({0, 1'000'000, 10});
  REQUIRE(t.add({2'000'000'000, 1'001'000'000, 10}, true));  // 2 GHz
  // The counter jumps by 5 s worth (a virtual machine moved to another host).
  CHECK_FALSE(t.add({2'000'000'000 + 12'000'000'000ull, 2'001'000'000, 10}, true));
  CHECK(t.source() == time_source::steady_after_counter);
  CHECK(t.describe().find("disagreed with steady_clock by 5000000 us over 1.000 s") != std::string::npos);
  CHECK(t.describe().find("calls before it converted at 2.0000 GHz") != std::string::npos);  // the good pairs' rate
  // From now on the scopes read the steady clock in the counter's ticks, through the last good
  // pair: a moment read now converts back to the steady clock's now.
  const auto m = t.map();
  const std::uint64_t ticks = t.now();
  const std::uint64_t steady = warmup::detail::steady_ns();
  CHECK(double(m.to_ns(ticks)) == Approx(double(steady)).margin(1e6));
  CHECK(t.recent().to_ns(ticks) == m.to_ns(ticks));
  // No further pair changes a dropped counter.
  CHECK_FALSE(t.add({30'000'000'000ull, 20'000'000'000ull, 10}, true));
}

TEST_CASE("after the counter is dropped, a moment before its last good pair reads as that pair: never earlier", "[clock]") {
  // Pairs stamped 100 s ahead of the steady clock's now (a pair is read from both clocks at
  // once, so only a hostile or a restored state has one in the future).
  // A 25 MHz counter (an Arm generic timer's rate: 40 ns a tick), so that a wrapped difference
  // over the rate is a number of ticks an integer holds, not one whose conversion is undefined.
  const std::uint64_t ahead = warmup::detail::steady_ns() + 100'000'000'000ull;
  time_base t;
  t.start_counter({0, ahead, 10});
  REQUIRE(t.add({25'000'000, ahead + 1'000'000'000, 10}, true));
  REQUIRE_FALSE(t.add({25'000'000 + 300'000'000, ahead + 2'000'000'000, 10}, true));
  REQUIRE(t.source() == time_source::steady_after_counter);
  CHECK(t.ns_per_tick() == Approx(40.0));
  CHECK(t.now() == 25'000'000);  // the last good pair's ticks, not a wrapped difference
}

TEST_CASE("a counter that goes back, or runs at an implausible rate, is dropped", "[clock]") {
  time_base back;
  back.start_counter({5'000'000, 1'000'000, 10});
  CHECK_FALSE(back.add({4'000'000, 3'000'000, 10}, true));
  CHECK(back.source() == time_source::steady_after_counter);
  CHECK(back.describe().find("stood still or went back") != std::string::npos);
  CHECK(back.ns_per_tick() == 1.0);  // one pair only, no rate measured: the nominal 1 ns a tick

  time_base slow;
  slow.start_counter({0, 0, 10});
  CHECK_FALSE(slow.add({10, 2'000'000'000, 10}, true));  // 10 ticks in 2 s: 5 Hz
  CHECK(slow.source() == time_source::steady_after_counter);
  CHECK(slow.describe().find("implausible") != std::string::npos);
}

TEST_CASE("pairs are spaced out and thinned: a long run keeps at most 64", "[clock]") {
  time_base t;
  t.start_counter({0, 0, 10});
  std::size_t kept = 0;
  // A pair offered every 100 us for 100 s, unforced: kept only where one is due.
  for (std::uint64_t ns = 100'000; ns <= 100'000'000'000ull; ns += 100'000)
    kept += t.add({ns * 3, ns, 10}, false) ? 1 : 0;
  const auto m = t.map();
  CHECK(m.count <= time_base::max_pairs);
  CHECK(kept > 100);  // one a second once the baseline passed 4 s
  CHECK(kept < 400);
  CHECK(m.ns(3'000'000) == 1'000'000);
  CHECK(m.to_ns(150'000'000'000ull) == 50'000'000'000ull);
}

TEST_CASE("the steady clock, forced or chosen, converts nothing", "[clock]") {
  time_base t;
  t.start("WARMUP_CLOCK=steady");
  CHECK(t.source() == time_source::steady);
  CHECK(t.describe() == "steady_clock (WARMUP_CLOCK=steady)");
  const std::uint64_t a = t.now();
  const std::uint64_t b = warmup::detail::steady_ns();
  CHECK(b >= a);
  CHECK(b - a < 1'000'000'000);
  const auto m = t.map();
  CHECK(m.ns(123'456'789) == 123'456'789);
  CHECK(m.to_ns(987'654'321) == 987'654'321);
  CHECK_FALSE(t.add({1, 2, 3}, true));  // nothing to calibrate
}

TEST_CASE("a cold call's end reads one pair: the one it converts with is the one kept", "[clock]") {
  time_base t;
  t.start(steady_forced() ? "forced" : nullptr);
  if (t.source() != time_source::counter) return;  // no trusted counter here: nothing is read
  std::this_thread::sleep_for(1ms);  // the next pair is due 10 us after the first
  const time_base::converter c = t.recent_calibrated();
  const auto m = t.map();
  REQUIRE(m.count == 2);
  CHECK(m.pairs[1].ticks == c.at.ticks);  // a second read would be later
  CHECK(m.pairs[1].ns == c.at.ns);
  // Due or not, the next converts from a pair of its own; kept only where due.
  const time_base::converter soon = t.recent_calibrated();
  CHECK(soon.at.ticks > c.at.ticks);
  const auto later = t.map();
  if (later.count == 3) CHECK(later.pairs[2].ticks == soon.at.ticks);
}

// A snapshot calibrates at once (`always`): on the counter, a pair is read and kept; on the
// steady clock there is nothing to calibrate.
TEST_CASE("a snapshot's calibration keeps a pair on the counter, and none on the steady clock", "[clock]") {
  time_base steady;
  steady.start("WARMUP_CLOCK=steady");
  steady.calibrate(true);
  CHECK(steady.map().count == 0);
  CHECK(steady.source() == time_source::steady);

  time_base counter;
  counter.start(steady_forced() ? "forced" : nullptr);
  if (counter.source() != time_source::counter) return;  // no trusted counter here
  REQUIRE(counter.map().count == 1);
  const std::uint64_t first_ns = counter.map().pairs[0].ns;
  // 2 ms of the steady clock past the first pair: the rate is plausible however the pairings fell.
  while (warmup::detail::steady_ns() < first_ns + 2'000'000) {
  }
  counter.calibrate(true);
  const auto m = counter.map();
  CHECK(counter.source() == time_source::counter);
  REQUIRE(m.count == 2);
  CHECK(m.pairs[1].ns >= first_ns + 2'000'000);
  CHECK(counter.ns_per_tick() > 0);
}

TEST_CASE("a converter of recent moments: ticks before the steady clock's origin read as 0, never wrapped", "[clock]") {
  time_base::converter c;
  c.at = clock_pair{1000, 500, 10};  // tick 1000 was 500 ns after the steady clock's origin
  c.rate = 2.0;                      // 2 ns a tick
  c.identity = false;
  CHECK(c.to_ns(1000) == 500);
  CHECK(c.to_ns(1100) == 700);
  CHECK(c.to_ns(751) == 2);
  CHECK(c.to_ns(750) == 0);  // exactly the origin
  CHECK(c.to_ns(600) == 0);  // before it: 0, not a wrapped or invented moment
  CHECK(c.to_ns(0) == 0);
  c.rate = 0;  // no rate yet: the pair's own moment
  CHECK(c.to_ns(0) == 500);
  c.identity = true;  // the steady clock: ticks are ns
  CHECK(c.to_ns(123) == 123);
}

TEST_CASE("the steady clock's span between two moments: their distance, 0 where the second is not later") {
  using warmup::detail::ns_between;
  const std::chrono::steady_clock::time_point a{std::chrono::nanoseconds{5'000}}, b{std::chrono::nanoseconds{7'500}};
  CHECK(ns_between(a, b) == 2'500);
  CHECK(ns_between(b, a) == 0);
  CHECK(ns_between(a, a) == 0);
  CHECK(ns_between(a, a + std::chrono::nanoseconds{1}) == 1);  // the shortest span is kept, not rounded away
}
