// The calling thread's CPU clock, for tests that spend a known amount of CPU however loaded the
// machine is.
#pragma once
#include <cstdint>
#include <ctime>

namespace warmup_test {

inline std::int64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

/// Busy for `ns` of this thread's CPU time.
inline void spend_cpu(std::int64_t ns) {
  const std::int64_t end = thread_cpu_ns() + ns;
  volatile std::uint64_t x = 0;
  while (thread_cpu_ns() < end) x = x + 1;
}

}  // namespace warmup_test
