// `warmup-report try`'s verdict rule (tools/warmup-report/try_verdict.hpp): complete separation
// of the runs and a margin of 10% or 50 us on the medians, or no verdict at all.
#include "catch.hpp"

#include <vector>

#include "../../tools/warmup-report/try_verdict.hpp"

using try_tool::verdict;
using try_tool::verdict_of;

namespace {
std::vector<double> ms(std::initializer_list<double> v) {
  std::vector<double> out;
  for (const double x : v) out.push_back(x * 1e6);
  return out;
}
}  // namespace

TEST_CASE("try: separated runs whose medians differ by more than 10% and 50 us are better or worse", "[try]") {
  CHECK(verdict_of(ms({150, 151, 152}), ms({10, 11, 12})) == verdict::better);
  CHECK(verdict_of(ms({150, 151, 152}), ms({400, 401, 402})) == verdict::worse);
  CHECK(try_tool::to_words(verdict::better) == "better");
  CHECK(try_tool::to_words(verdict::same) == "same within noise");
}

TEST_CASE("try: runs that overlap are the same within noise, however far apart the medians", "[try]") {
  // Medians 110 and 70 ms (36% apart), but one remedy run is above a cold run.
  CHECK(verdict_of(ms({100, 110, 120}), ms({60, 70, 115})) == verdict::same);
  CHECK(verdict_of(ms({60, 70, 115}), ms({100, 110, 120})) == verdict::same);
}

TEST_CASE("try: separated runs within 10% or within 50 us are the same within noise", "[try]") {
  CHECK(verdict_of(ms({100, 100.1, 100.2}), ms({95, 95.1, 95.2})) == verdict::same);   // 5%
  CHECK(verdict_of(ms({95, 95.1, 95.2}), ms({100, 100.1, 100.2})) == verdict::same);
  CHECK(verdict_of({100e3, 101e3, 102e3}, {60e3, 61e3, 62e3}) == verdict::same);      // 40%, but 40 us
  CHECK(verdict_of({100e3, 101e3, 102e3}, {40e3, 41e3, 42e3}) == verdict::better);    // 60 us
  CHECK(verdict_of(ms({100, 100.1, 100.2}), ms({89, 89.1, 89.2})) == verdict::better);  // 11%
}

TEST_CASE("try: fewer than three runs a side give no verdict", "[try]") {
  CHECK(verdict_of(ms({150, 151}), ms({10, 11, 12})) == verdict::too_few);
  CHECK(verdict_of(ms({150, 151, 152}), {}) == verdict::too_few);
}

TEST_CASE("try: a side's spread is its median, least and most", "[try]") {
  const try_tool::spread s = try_tool::spread_of({3, 1, 2, 10});
  CHECK(s.runs == 4);
  CHECK(s.median == 2.5);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
}
