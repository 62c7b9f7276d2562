// What an attribution's partition means, checked from its parts. `unattributed` is derived by
// the library as excess - named, so `named + unattributed == excess` holds whatever the causes
// are; these checks fail when a cause is counted twice, a time is lost, or the excess is wrong.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>

#include "catch.hpp"
#include "warmup/profile.hpp"
#include "warmup/detail/io/table_writer.hpp"

namespace partition {

/// The table's "why" lines for `a` (a site's first call when `calls` is 1), one string.
inline std::string why_text(const warmup::attribution& a, const warmup::timing& t) {
  using warmup::detail::slow_calls;
  std::string text;
  for (const std::string& l : warmup::detail::why_lines(a, a.calls == 1 ? slow_calls::first : slow_calls::recurrences,
                                                        t.steady.has_value()))
    text += l + "\n";
  return text;
}

/// The line of `text` that starts, after its indent, with `start`; empty if none.
inline std::string line_starting(const std::string& text, const std::string& start) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    if (line.find_first_not_of(' ') != std::string::npos && line.compare(line.find_first_not_of(' '), start.size(), start) == 0)
      return line;
    at = end + 1;
  }
  return {};
}

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
  // Named causes beyond the excess are said, not clamped; a call at or under the p50 has no
  // excess to split.
  const std::string text = why_text(a, t);
  if (a.excess.count() > 0)
    CHECK((text.find("exceed the excess by") != std::string::npos) == (a.named > a.excess));
  else
    CHECK(text.find("no excess to explain") != std::string::npos);
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
