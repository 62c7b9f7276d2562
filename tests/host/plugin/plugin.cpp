// A shared library no test program links: loading it inside a first call must show in that
// call's host signals, and CPU time spent in its code must be sampled as its own.
#include <ctime>

extern "C" int warmup_test_plugin_answer() { return 42; }

// Spins for `cpu_ns` of the calling thread's CPU time, nearly all of it in this library's code:
// the clock is read once every 2^16 rounds of arithmetic.
extern "C" unsigned long warmup_test_plugin_spin(long long cpu_ns) {
  const auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
  };
  const long long end = now() + cpu_ns;
  volatile unsigned long x = 1;
  do {
    for (int i = 0; i < (1 << 16); ++i) x = x * 2862933555777941757UL + 3037000493UL;
  } while (now() < end);
  return x;
}
