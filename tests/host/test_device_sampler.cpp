// The adaptive device-sampling policy: every call while warming up, then thinning while steady,
// back to every call when the site changes.
#include "catch.hpp"

#include "warmup/detail/record/device_sampler.hpp"

using warmup::detail::device_sampler;

namespace {
int timed_among(const device_sampler& s, std::uint64_t from, std::uint64_t n) {
  int timed = 0;
  for (std::uint64_t i = from; i < from + n; ++i) timed += s.wants(i);
  return timed;
}
}  // namespace

TEST_CASE("every call of the first 64 is device-timed") {
  device_sampler s;
  CHECK(timed_among(s, 0, 64) == 64);
}

TEST_CASE("a steady site thins to 1 call in 64, and a change brings back every call") {
  device_sampler s;
  std::uint64_t i = 0;
  for (; i < 64 + 256 * 8; ++i) s.observe(i, 1000 + (i % 7));
  CHECK(timed_among(s, i, 640) == 10);  // 1 in 64
  for (int k = 0; k < 7; ++k, ++i) s.observe(i, 5000);  // seven slow calls: noise
  CHECK(timed_among(s, i, 640) == 10);
  s.observe(i++, 5000);  // the eighth in a row: the site changed
  CHECK(timed_among(s, i, 64) == 64);
  for (std::uint64_t end = i + 256 * 8; i < end; ++i) s.observe(i, 5000 + (i % 5));
  CHECK(timed_among(s, i, 640) == 10);  // steady again, at the new level
  for (std::uint64_t k = 0; k < 1000; ++k, ++i) s.observe(i, k % 3 == 0 ? 11000 : 5000);  // 2x noise
  CHECK(timed_among(s, i, 640) == 10);  // is not a change
  for (int k = 0; k < 8; ++k, ++i) s.observe(i, 1000);  // the old level is a quarter of the new one
  CHECK(timed_among(s, i, 64) == 64);  // a change: the typical time had moved to 5000
}

// A change is a call over four times the typical time or under a quarter of it, both ends
// counted exactly: here a typical 4,500 ns, and calls of 1,000 ns (under 1,125).
TEST_CASE("calls under a quarter of the typical time are a change, as calls over four times it are") {
  device_sampler s;
  std::uint64_t i = 0;
  for (; i < 64 + 256 * 8; ++i) s.observe(i, 4500);
  CHECK(timed_among(s, i, 640) == 10);
  for (int k = 0; k < 8; ++k, ++i) s.observe(i, 1000);
  CHECK(timed_among(s, i, 64) == 64);
}

TEST_CASE("a normal call between slow ones starts the count of slow calls again") {
  device_sampler s;
  std::uint64_t i = 0;
  for (; i < 64 + 256 * 8; ++i) s.observe(i, 1000 + (i % 7));
  for (int k = 0; k < 7; ++k, ++i) s.observe(i, 5000);  // seven slow calls
  s.observe(i++, 1000);                                  // a normal one: the count starts again
  for (int k = 0; k < 7; ++k, ++i) s.observe(i, 5000);  // seven more: not eight in a row
  CHECK(timed_among(s, i, 640) == 10);                   // still 1 in 64
  s.observe(i++, 5000);                                  // the eighth in a row
  CHECK(timed_among(s, i, 64) == 64);
}

// The warm-up's calls (the exact window) teach the sampler nothing: the typical time is the
// warm site's. Warm-up calls three times slower than the steady ones, then a change to five
// times the steady time: a change against the steady time, though not against the warm-up's.
TEST_CASE("the warm-up's calls do not set the typical time: a change soon after them is seen") {
  device_sampler s;
  std::uint64_t i = 0;
  for (; i < 64; ++i) s.observe(i, 3000);               // warm-up
  for (; i < 257; ++i) s.observe(i, 1000 + (i % 7));    // steady; at call 256, 1 in 2
  CHECK(timed_among(s, i, 64) == 32);
  for (int k = 0; k < 8; ++k, ++i) s.observe(i, 5000);  // eight in a row, over 4x the steady time
  CHECK(timed_among(s, i, 64) == 64);
}

// The first call after the window sets the typical time at once: the calls after it are judged
// against it, even where the next few differ from it (a typical time learnt late, from a fast
// call, would make ordinary calls later look like a change).
TEST_CASE("the first call after the warm-up sets the typical time") {
  device_sampler s;
  std::uint64_t i = 0;
  for (; i < 64; ++i) s.observe(i, 1000);
  for (; i < 257; ++i) s.observe(i, i == 71 ? 300 : 1000);  // one fast call, within the band
  CHECK(timed_among(s, i, 64) == 32);                        // at call 256, 1 in 2
  for (int k = 0; k < 8; ++k, ++i) s.observe(i, 2200);       // slower, but under 4x the typical 1000
  CHECK(timed_among(s, i, 64) == 32);                        // not a change
}
