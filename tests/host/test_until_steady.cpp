// warmup_until_steady's stopping rule on synthetic series (a fake clock advanced by each call's
// duration, so every stop is exact), its budgets and errors, and the host-only loop for real.
#include "catch.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "warmup/detail/record/series.hpp"
#include "warmup/detail/analysis/statistics.hpp"
#include "warmup/detail/analysis/steady_rule.hpp"
#include "warmup/profile.hpp"

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using warmup::steady_limits;
using warmup::steady_stop;
using warmup::detail::call_failure;
using warmup::detail::steady_loop;
using warmup::detail::steady_run;

namespace {
// A stream that reads as capturing a CUDA graph, without a GPU: see cudaStreamIsCapturing below.
cudaStream_t capturing_stream = nullptr;
}  // namespace

// This program's calls of cudaStreamIsCapturing bind to this definition (the program's own comes
// before the runtime's): `capturing_stream` is capturing; any other stream is the runtime's to say.
extern "C" cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* status) {
  if (capturing_stream != nullptr && stream == capturing_stream) {
    *status = cudaStreamCaptureStatusActive;
    return cudaSuccess;
  }
  using real_t = cudaError_t (*)(cudaStream_t, enum cudaStreamCaptureStatus*);
  static const real_t real = reinterpret_cast<real_t>(::dlsym(RTLD_NEXT, "cudaStreamIsCapturing"));
  return real != nullptr ? real(stream, status) : cudaErrorUnknown;
}

namespace {

// Runs the loop over `values` (ns, one per call; the last repeats once they run out) on a clock
// that each call advances by its value plus `gap` (the caller's own work between calls).
steady_run replay(const std::vector<std::uint64_t>& values, const steady_limits& limits, std::size_t fail_at = 0,
                  nanoseconds gap = nanoseconds{0}) {
  nanoseconds clock{1'000'000'000};
  std::size_t i = 0;
  return steady_loop(
      limits,
      [&]() -> call_failure {
        const std::uint64_t v = values[std::min(i, values.size() - 1)];
        clock += nanoseconds{static_cast<nanoseconds::rep>(v)};
        ++i;
        if (fail_at != 0 && i == fail_at) return {4, "the call failed"};
        return {};
      },
      [&] {
        const nanoseconds t = clock;
        clock += gap / 2;  // each reading costs a little, as a real clock's does
        return t;
      });
}

// A cold start (two slow calls) then `n` calls around 1 ms with relative noise `noise`.
std::vector<std::uint64_t> cold_then_steady(std::size_t n, double noise, unsigned seed = 7) {
  std::vector<std::uint64_t> v = {100'000'000, 50'000'000};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(1.0 - noise, 1.0 + noise);
  for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<std::uint64_t>(1e6 * u(rng)));
  return v;
}

}  // namespace

TEST_CASE("a loop stopped by its second call's failure still reports its first call's time") {
  const steady_run r = replay({100'000'000, 1'000'000}, steady_limits{}, 2);
  CHECK(r.why == steady_stop::error);
  CHECK(r.first_ns == 100'000'000);
}

TEST_CASE("a cold start then a tight steady state: steady once a full window follows the warm-up") {
  const steady_run r = replay(cold_then_steady(200, 0.01), steady_limits{});
  CHECK(r.why == steady_stop::steady);
  CHECK(r.verdict.warmup_calls == 2);
  CHECK(r.calls == 2 + steady_limits{}.steady_calls);  // the earliest the rule can hold
  CHECK(r.first_ns == 100'000'000);
  CHECK(r.verdict.p50 >= 990'000);
  CHECK(r.verdict.p50 <= 1'010'000);
  CHECK(r.verdict.p50_low <= r.verdict.p50);
  CHECK(r.verdict.p50_high >= r.verdict.p50);

  // A wider window waits for more calls, exactly as many.
  steady_limits wide;
  wide.steady_calls = 50;
  CHECK(replay(cold_then_steady(200, 0.01), wide).calls == 52);
}

TEST_CASE("the warm-up the rule sees is the report's warm-up for the same calls") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::vector<std::uint64_t> v = cold_then_steady(40, 0.05, seed);
    v.insert(v.begin() + 2, 20'000'000);  // a third, shorter cold call
    warmup::detail::series s;
    for (std::size_t i = 0; i < v.size(); ++i) s.record(i, v[i], false);
    const warmup::timing t = warmup::detail::summarize(s.read());
    CHECK(warmup::detail::judge_steady(v, 20, 0.05).warmup_calls == t.warmup_calls);
    CHECK(t.warmup_calls == 3);
  }
}

TEST_CASE("calls that keep slowing down never settle: the call budget stops them") {
  std::vector<std::uint64_t> growing;
  for (std::uint64_t i = 1; i <= 100; ++i) growing.push_back(i * 1'000'000);
  steady_limits l;
  l.max_calls = 50;
  const steady_run r = replay(growing, l);
  CHECK(r.why == steady_stop::call_budget);
  CHECK(r.calls == 50);
  CHECK_FALSE(r.verdict.steady);
}

TEST_CASE("noise wider than the tolerance never settles; a looser tolerance accepts it") {
  steady_limits strict;
  strict.max_calls = 300;
  const std::vector<std::uint64_t> noisy = cold_then_steady(400, 0.5);
  CHECK(replay(noisy, strict).why == steady_stop::call_budget);
  steady_limits loose = strict;
  loose.tolerance = 0.5;
  const steady_run r = replay(noisy, loose);
  CHECK(r.why == steady_stop::steady);
  CHECK(r.calls == 22);
}

TEST_CASE("the time budget counts the whole loop, calls and the time between them") {
  std::vector<std::uint64_t> alternating;  // 10, 13, 10, 13 ms, ...: 26% apart, never within 5%
  for (std::uint64_t i = 0; i < 100; ++i) alternating.push_back(i % 2 == 0 ? 10'000'000 : 13'000'000);
  steady_limits l;
  l.max_time = milliseconds{95};
  const steady_run r = replay(alternating, l);
  CHECK(r.why == steady_stop::time_budget);
  CHECK(r.took >= milliseconds{95});
  CHECK(r.calls == 9);  // 5 x 10 ms + 4 x 13 ms = 102 ms after the 9th call; 89 ms after the 8th

  // Time between calls (the clock readings here) counts too: the budget ends sooner.
  const steady_run slower = replay(alternating, l, 0, milliseconds{4});
  CHECK(slower.why == steady_stop::time_budget);
  CHECK(slower.calls < r.calls);
}

// The band's median is the calls' middle value, whatever their order: here the calls in the
// middle of the run are slow ones, while most are fast.
TEST_CASE("the warm-up the rule sees is judged from the calls' values, not their order") {
  std::vector<std::uint64_t> calls{10'000};
  calls.insert(calls.end(), 6, 100);
  calls.insert(calls.end(), 6, 9'000);
  calls.insert(calls.end(), 11, 100);
  // Sorted, the median is 100 and the band's top 125: the first call alone is the warm-up.
  CHECK(warmup::detail::judge_steady(calls, 8, 0.05).warmup_calls == 1);
}

// Conway's rule: a warm-up call is slower than every later call; a slow call after the fast
// ones (a late spike) keeps the calls under it out of the warm-up.
TEST_CASE("the warm-up the rule sees ends at the first call not slower than every later one") {
  std::vector<std::uint64_t> calls{5'000, 300, 300};
  calls.insert(calls.end(), 20, 100);
  calls.push_back(400);
  // The band's top is 125 ns: three leading calls above it, of which only the first is slower
  // than the spike of 400 ns.
  CHECK(warmup::detail::judge_steady(calls, 8, 0.05).warmup_calls == 1);
}

// Steady where the median's interval is within the tolerance, its edge included: 8 calls, whose
// interval is their fastest and slowest (75 and 125 ns) about a p50 of 100 ns, at 25%.
TEST_CASE("the p50's interval at exactly the tolerance is steady") {
  const std::vector<std::uint64_t> calls{100, 75, 100, 100, 100, 100, 100, 100, 125};
  const auto v = warmup::detail::judge_steady(calls, 8, 0.25);
  CHECK(v.p50 == 100);
  CHECK(v.p50_low == 75);
  CHECK(v.p50_high == 125);
  CHECK(v.steady);
  CHECK_FALSE(warmup::detail::judge_steady(calls, 8, 0.24).steady);
}

TEST_CASE("a failing call stops the loop with what failed") {
  const steady_run r = replay(cold_then_steady(50, 0.01), steady_limits{}, 3);
  CHECK(r.why == steady_stop::error);
  CHECK(r.calls == 3);
  CHECK(r.failure.error == 4);
  CHECK(r.failure.what == "the call failed");
}

TEST_CASE("limits that cannot work are refused before any call") {
  const auto refused = [](steady_limits l, const std::string& why) {
    int calls = 0;
    const steady_run r = steady_loop(
        l, [&]() -> call_failure { ++calls; return {}; }, [] { return nanoseconds{0}; });
    CHECK(calls == 0);
    CHECK(r.why == steady_stop::error);
    CHECK(r.failure.what.find(why) != std::string::npos);
  };
  steady_limits l;
  l.max_calls = 0;
  refused(l, "max_calls is 0");
  l = {};
  l.max_time = nanoseconds{-5};
  refused(l, "max_time is not positive");
  l = {};
  l.steady_calls = 5;
  refused(l, "steady_calls is below 6");
  for (double t : {0.0, -0.1, std::nan(""), std::numeric_limits<double>::infinity()}) {
    l = {};
    l.tolerance = t;
    refused(l, "tolerance is not a positive number");
  }
}

TEST_CASE("warmup_until_steady on host work: each call a region in the report, errors in the status") {
  int calls = 0;
  steady_limits l;
  l.max_calls = 40;
  volatile std::uint64_t sink = 0;
  const warmup::steady_result r = warmup::warmup_until_steady("until_steady.host", [&] {
    ++calls;
    for (int i = 0; i < 20000; ++i) sink = sink + i;
  }, l);
  CHECK(r.why != steady_stop::error);
  CHECK(r.status.ok());
  CHECK(r.status.message.empty());  // a message only where something failed
  CHECK(r.calls == std::size_t(calls));
  CHECK(r.calls <= 40);
  CHECK(r.took >= r.first);
  const warmup::report rep = warmup::snapshot();
  const auto* s = rep.find(warmup::op_kind::region, "until_steady.host");
  REQUIRE(s != nullptr);
  CHECK(s->calls == r.calls);

  // A function that returns a CUDA error stops the loop there; the site keeps that call too.
  int n = 0;
  const warmup::steady_result e = warmup::warmup_until_steady("until_steady.error", [&] {
    return ++n == 3 ? cudaErrorNotReady : cudaSuccess;
  });
  CHECK(e.why == steady_stop::error);
  CHECK(e.calls == 3);
  CHECK(e.status.error == cudaErrorNotReady);
  CHECK(e.status.message == "warmup_until_steady(\"until_steady.error\"): the function returned cudaErrorNotReady: " +
                                std::string(cudaGetErrorString(cudaErrorNotReady)));
  const warmup::report after = warmup::snapshot();  // kept: find() points into it
  const auto* es = after.find(warmup::op_kind::region, "until_steady.error");
  REQUIRE(es != nullptr);
  CHECK(es->calls == 3);
}

TEST_CASE("prewarm steps refuse what cannot work, with a sentence and no CUDA call failing") {
  using kernel = void(int*);
  const warmup::prewarm_status k = warmup::prewarm_kernels(static_cast<kernel*>(nullptr));
  CHECK(k.error == cudaErrorInvalidValue);
  CHECK(k.message == "warmup::prewarm_kernels(1 kernels): kernel 1 of 1 is a null pointer");
  const warmup::prewarm_status none = warmup::prewarm_kernels();
  CHECK(none.ok());  // nothing to load is nothing to fail
  const warmup::prewarm_status p = warmup::prewarm_pool(0);
  CHECK(p.error == cudaErrorInvalidValue);
  CHECK(p.message.rfind("warmup::prewarm_pool(0 bytes): 0 bytes", 0) == 0);
  warmup::pinned_buffer b{0};
  CHECK_FALSE(b);
  CHECK(b.status().error == cudaErrorInvalidValue);
  // Moved-from buffers own nothing; a moved-to one owns what the other had.
  warmup::pinned_buffer moved{std::move(b)};
  CHECK_FALSE(moved);
  CHECK(moved.status().error == cudaErrorInvalidValue);
}

// A stream capturing a graph is refused before any call: a call and its synchronisation would
// end the program's capture (or record the loop into its graph).
TEST_CASE("warmup_until_steady refuses a stream that is capturing a graph, before any call") {
  int x = 0;
  capturing_stream = reinterpret_cast<cudaStream_t>(&x);  // never handed to the runtime
  int calls = 0;
  const warmup::steady_result r = warmup::warmup_until_steady("until_steady.capturing", [&] { ++calls; }, capturing_stream);
  capturing_stream = nullptr;
  CHECK(calls == 0);
  CHECK(r.calls == 0);
  CHECK(r.why == steady_stop::error);
  CHECK(r.status.error == cudaErrorInvalidValue);
  CHECK(r.status.message == "warmup_until_steady(\"until_steady.capturing\"): the stream is capturing a CUDA graph: "
                            "prewarm before the capture, on a stream that is not");
  const warmup::report rep = warmup::snapshot();
  CHECK(rep.find(warmup::op_kind::region, "until_steady.capturing") == nullptr);  // no call, no site
}

TEST_CASE("an exception from the function propagates, and the call it ended is in the report") {
  int n = 0;
  bool thrown = false;
  try {
    (void)warmup::warmup_until_steady("until_steady.throws", [&] {
      if (++n == 3) throw std::runtime_error("model failed to load");
    });
  } catch (const std::runtime_error& e) {
    thrown = std::string(e.what()) == "model failed to load";
  }
  CHECK(thrown);
  CHECK(n == 3);
  const warmup::report rep = warmup::snapshot();
  const auto* s = rep.find(warmup::op_kind::region, "until_steady.throws");
  REQUIRE(s != nullptr);
  CHECK(s->calls == 3);
}

TEST_CASE("the rule is judged after every call at first, then sparsely: a long loop stays O(n log n)") {
  for (std::size_t n = 1; n <= 512; ++n) CHECK(warmup::detail::judged_after(n));
  std::size_t judged = 512;
  for (std::size_t n = 513; n <= 1'000'000; ++n) judged += warmup::detail::judged_after(n);
  CHECK(judged == 1210);  // 512, 63 to 1024, 64 a doubling to 2^19, 59 from there to 10^6
  for (std::size_t n = 1'000'001; n <= std::size_t{1} << 20; ++n) judged += warmup::detail::judged_after(n);
  CHECK(judged == 1216);  // as docs/reading-the-report.md counts them
  // A series that settles late still stops within 1.6% of the call where it settled.
  std::vector<std::uint64_t> v(2000, 5'000'000);
  for (std::size_t i = 0; i < 1000; ++i) v[i] = 5'000'000 + (i % 2) * 2'000'000;  // unsettled for 1000 calls
  steady_limits l;
  l.max_calls = 5000;
  const steady_run r = replay(v, l);
  CHECK(r.why == steady_stop::steady);
  // The window's median interval first holds at call 1010 (its last 20 calls hold five slow
  // ones at most: ranks 6 and 15 are both fast); judged every 8th call there.
  CHECK(r.calls >= 1010);
  CHECK(r.calls <= 1010 + 1010 / 64);
}

TEST_CASE("what warmup_until_steady returns: the first call, the warm-up, the p50 inside its interval") {
  // A slow first call (20 ms asleep), then calls of about 1 ms, distinct from it by far: every
  // figure of the result is told apart from the others.
  int calls = 0;
  steady_limits l;
  l.max_calls = 200;
  const warmup::steady_result r = warmup::warmup_until_steady("until_steady.figures", [&] {
    std::this_thread::sleep_for(milliseconds(++calls == 1 ? 20 : 1));
  }, l);
  REQUIRE(r.why != steady_stop::error);
  CHECK(r.calls == std::size_t(calls));
  CHECK(r.first >= milliseconds(20));
  CHECK(r.p50 >= milliseconds(1));
  CHECK(r.p50 < milliseconds(15));
  CHECK(r.first > r.p50);
  CHECK(r.warmup_calls >= 1);  // the first call is part of the warm-up
  CHECK(r.warmup_calls < r.calls);
  CHECK(r.took >= r.first + (r.calls - 1) * milliseconds(1));
  CHECK(r.status.took == r.took);
  if (r.steady()) {
    CHECK(r.p50_low <= r.p50);
    CHECK(r.p50 <= r.p50_high);
    CHECK(r.p50_low >= milliseconds(1));
  }
}
