// Compiled with WARMUP_DISABLE (bench/CMakeLists.txt): the same work with disabled scopes and
// with none, behind a call the optimiser cannot see through from the benchmark's file.
#include <benchmark/benchmark.h>

#include "warmup/profile.hpp"

int work_with_disabled_scopes(int x) {
  WARMUP_SCOPE("bench.disabled");
  warmup::launch_scope k{"bench.disabled.launch", cudaStream_t{}};
  benchmark::DoNotOptimize(x);
  return x + 1;
}

int work_without_scopes(int x) {
  benchmark::DoNotOptimize(x);
  return x + 1;
}
