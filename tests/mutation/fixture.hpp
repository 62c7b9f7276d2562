// A header for tools/mutate's self-test (tests/mutation/check_mutate.py): each construct below
// is one the generator must mutate, or must leave alone.
#pragma once
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#define FIXTURE_LIMIT (3 < 4)  // a preprocessor line: never mutated

namespace fixture {

struct pair_of_sizes {
  std::size_t low = 0;
  std::size_t high = 0;
};

static_assert(sizeof(int) >= 2, "never mutated");

constexpr int twice(int x) { return x + x; }  // constexpr: may run at compile time, never mutated

inline int clamp_low(int x, int low) {
  if (x < low) return low;  // "x < low" in a comment is not code
  return x;
}

inline std::size_t count_above(const std::vector<int>& v, int floor) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] > floor) n += 1;
  }
  return n;
}

inline std::string label(bool on) {
  const std::string s = on ? "a < b" : "off";  // the string's < is text
  return s;
}

inline std::size_t width(const pair_of_sizes& p) { return p.high - p.low; }

inline int first_of(int a, int b) { return a * 10 + b; }
inline int call_first(int a, int b) { return first_of(a, b); }

// Never called by the self-test's program: no run reaches its mutants.
inline int never_called(int x) {
  (void)x;  // no mutant: removing it changes nothing
  return x + 1;
}

// Never called either: __builtin_expect's expected value is a hint, which no mutant changes.
inline int hinted(int rare) { return __builtin_expect(rare, 0) ? rare + 2 : 3; }

}  // namespace fixture
