// What an attribution's partition means, checked from its parts. `unattributed` is derived by
// the library as excess - named, so `named + unattributed == excess` holds whatever the causes
// are; these checks fail when a cause is counted twice, a time is lost, or the excess is wrong.
#pragma once

#include <chrono>
#include <string>

#include "catch.hpp"
#include "warmup/profile.hpp"
#include "warmup/detail/io/print.hpp"

namespace partition {

/// `a` split `calls` cold calls of a site whose host figures are `t`.
inline void check(const warmup::attribution& a, const warmup::timing& t) {
  using std::chrono::nanoseconds;
  nanoseconds causes{};
  for (const warmup::cause_time& c : a.causes) {
    CHECK(c.time > nanoseconds{0});  // a cause is listed only for time it owns
    causes += c.time;
  }
  CHECK(causes == a.named);              // the causes add up to what is named
  CHECK(a.named >= nanoseconds{0});      // each instant at most once: never more than the calls took
  CHECK(a.named <= a.call);
  const nanoseconds p50 = t.steady ? t.steady->p50 : nanoseconds{0};
  CHECK(a.excess == a.call - p50 * static_cast<long long>(a.calls));
  CHECK(a.unattributed == a.excess - a.named);
  // Named causes beyond the excess are said, not clamped.
  const std::string line = warmup::detail::why_line(a);
  CHECK((line.find("exceed the excess by") != std::string::npos) == (a.named > a.excess));
}

/// The same for a site's first call: one call, of the site's first host time. The call's window
/// is in steady-clock ns (CUPTI's), converted from the cycle counter at its end, the site's
/// figures at the snapshot's rate: the two agree within the clock's calibration error.
inline void check_first(const warmup::attribution& a, const warmup::timing& t) {
  CHECK(a.calls == 1);
  const auto gap = a.call > t.first ? a.call - t.first : t.first - a.call;
  CHECK(gap <= std::chrono::microseconds{1} + t.first / 1000);
  check(a, t);
}

}  // namespace partition
