// The log-linear histogram: every value lands in a bucket that contains it, buckets are at most
// 1/64 of their value wide, and memory stops growing once the range of values is covered.
#include "catch.hpp"

#include <new>
#include <random>

#include "warmup/detail/record/log_histogram.hpp"

#include "../support/failing_new.hpp"  // a histogram's blocks are aligned to 64 bytes

using warmup::detail::log_histogram;

TEST_CASE("a value whose block cannot be allocated is counted as lost, by either way of adding") {
  log_histogram h;
  support::failing.aligned = 1;
  h.add(1000);  // the first value of its power of two: its block is allocated, and fails
  CHECK(h.lost() == 1);
  support::failing.aligned = 1;
  h.add_single_writer(5000);
  CHECK(h.lost() == 2);
  h.add(1000);  // allocations work again: counted
  h.add_single_writer(5000);
  CHECK(h.lost() == 2);
  std::uint64_t counted = 0;
  h.for_each([&](std::uint64_t, std::uint64_t, std::uint64_t n) { counted += n; });
  CHECK(counted == 2);
}

TEST_CASE("every value lies inside its bucket, and buckets are narrow") {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t v = rng() >> (rng() % 64);
    const auto [b, k] = log_histogram::locate(v);
    REQUIRE(b < log_histogram::block_count);
    REQUIRE(k < log_histogram::sub_count);
    const std::uint64_t lo = log_histogram::lowest(b, k), hi = log_histogram::highest(b, k);
    REQUIRE(lo <= v);
    REQUIRE(v <= hi);
    if (v >= 64) REQUIRE(double(hi - lo + 1) <= double(lo) / 64.0);
  }
  // Small values are exact.
  for (std::uint64_t v = 0; v < 64; ++v) {
    const auto [b, k] = log_histogram::locate(v);
    CHECK(log_histogram::lowest(b, k) == v);
    CHECK(log_histogram::highest(b, k) == v);
  }
  const auto [b, k] = log_histogram::locate(UINT64_MAX);
  CHECK(log_histogram::highest(b, k) == UINT64_MAX);
}

TEST_CASE("counts add up and come out in increasing order") {
  log_histogram h;
  for (std::uint64_t v : {5ull, 5ull, 1000ull, 1'000'000ull, 64ull}) h.add(v);
  std::uint64_t total = 0, last = 0;
  bool ordered = true;
  h.for_each([&](std::uint64_t lo, std::uint64_t, std::uint64_t c) {
    ordered = ordered && lo >= last;
    last = lo;
    total += c;
  });
  CHECK(total == 5);
  CHECK(ordered);
  CHECK(h.lost() == 0);
}

TEST_CASE("10^7 values in a fixed range leave memory unchanged") {
  log_histogram h;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> d(900'000, 1'200'000);
  for (int i = 0; i < 100000; ++i) h.add(d(rng));
  const std::size_t after_warm = h.bytes();
  for (int i = 0; i < 10'000'000; ++i) h.add(d(rng));
  CHECK(h.bytes() == after_warm);
  std::uint64_t total = 0;
  h.for_each([&](std::uint64_t, std::uint64_t, std::uint64_t c) { total += c; });
  CHECK(total == 10'100'000);
}
