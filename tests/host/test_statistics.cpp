// Warm-up detection and steady-state figures on series with known answers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "warmup/detail/series.hpp"
#include "warmup/detail/statistics.hpp"

using namespace warmup::detail;
using std::chrono::nanoseconds;

namespace {
warmup::timing summarize_values(const std::vector<std::uint64_t>& values) {
  series s;
  for (std::size_t i = 0; i < values.size(); ++i) s.record(i, values[i]);
  return summarize(s.read());
}

std::vector<std::uint64_t> noisy(std::size_t n, double mean, double sd, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<std::uint64_t> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<std::uint64_t>(std::max(1.0, d(rng))));
  return v;
}
}  // namespace

TEST_CASE("one slow first call is a warm-up of one") {
  std::vector<std::uint64_t> v = noisy(50, 1e6, 2e4, 1);
  v[0] = 20'000'000;
  const warmup::timing t = summarize_values(v);
  CHECK(t.calls == 50);
  CHECK(t.first == nanoseconds{20'000'000});
  CHECK(t.warmup_calls == 1);
  REQUIRE(t.steady);
  CHECK(t.steady->calls == 49);
  CHECK(t.steady->p50.count() == Approx(1e6).epsilon(0.05));
  REQUIRE(t.first_call_excess);
  CHECK(*t.first_call_excess == t.first - t.steady->p50);
}

TEST_CASE("a decaying warm-up of five calls is found whole") {
  std::vector<std::uint64_t> v = noisy(60, 1e6, 3e4, 2);
  const std::uint64_t head[] = {30'000'000, 20'000'000, 10'000'000, 5'000'000, 2'000'000};
  std::copy(std::begin(head), std::end(head), v.begin());
  CHECK(summarize_values(v).warmup_calls == 5);
}

TEST_CASE("a site that starts warm has no warm-up") {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const warmup::timing t = summarize_values(noisy(60, 1e6, 5e4, seed));
    INFO("seed " << seed);
    CHECK(t.warmup_calls <= 1);
  }
}

TEST_CASE("few calls give honest answers") {
  SECTION("one call: a first call and no steady state") {
    const warmup::timing t = summarize_values({5000});
    CHECK(t.calls == 1);
    CHECK(t.first == nanoseconds{5000});
    CHECK_FALSE(t.steady);
    CHECK_FALSE(t.first_call_excess);
  }
  SECTION("two calls") {
    const warmup::timing t = summarize_values({9000, 1000});
    CHECK(t.warmup_calls == 1);
    REQUIRE(t.steady);
    CHECK(t.steady->p50 == nanoseconds{1000});
    CHECK(*t.first_call_excess == nanoseconds{8000});
  }
  SECTION("three equal calls") {
    const warmup::timing t = summarize_values({1000, 1000, 1000});
    CHECK(t.warmup_calls == 0);
    REQUIRE(t.steady);
    CHECK(t.steady->calls == 3);
    CHECK(*t.first_call_excess == nanoseconds{0});
  }
  SECTION("no calls") {
    const warmup::timing t = summarize_values({});
    CHECK(t.calls == 0);
    CHECK_FALSE(t.steady);
  }
}

TEST_CASE("percentiles: exact within the first calls, within 0.78% beyond") {
  SECTION("exact nearest-rank on 64 calls") {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 1; i <= 64; ++i) v.push_back(1000 + i);
    const warmup::timing t = summarize_values(v);
    REQUIRE(t.steady);
    CHECK(t.warmup_calls == 0);
    CHECK(t.steady->p50 == nanoseconds{1032});
    CHECK(t.steady->p90 == nanoseconds{1058});  // ceil(0.9 * 64) = 58th value
    CHECK(t.steady->min == nanoseconds{1001});
    CHECK(t.steady->max == nanoseconds{1064});
  }
  SECTION("lognormal, 10^6 calls") {
    std::mt19937_64 rng(3);
    std::lognormal_distribution<double> d(13.0, 0.5);
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 1'000'000; ++i) v.push_back(static_cast<std::uint64_t>(d(rng)));
    const warmup::timing t = summarize_values(v);
    std::vector<std::uint64_t> sorted(v.begin() + static_cast<long>(t.warmup_calls), v.end());
    std::sort(sorted.begin(), sorted.end());
    const auto exact = [&](double q) {
      return double(sorted[static_cast<std::size_t>(std::ceil(q * double(sorted.size()))) - 1]);
    };
    REQUIRE(t.steady);
    CHECK(double(t.steady->p50.count()) == Approx(exact(0.5)).epsilon(0.0079));
    CHECK(double(t.steady->p90.count()) == Approx(exact(0.9)).epsilon(0.0079));
    CHECK(double(t.steady->p99.count()) == Approx(exact(0.99)).epsilon(0.0079));
    CHECK(t.steady->min.count() == static_cast<long long>(sorted.front()));
    CHECK(t.steady->max.count() == static_cast<long long>(sorted.back()));
  }
}
