// main returns while its last kernel still runs: the report at exit (WARMUP_REPORT) must still
// hold that call's device time. Run by tests/gpu/check_exit_pending.py. Exits 77 without a GPU.
#include <cuda_runtime.h>

#include <cstdio>

#include "warmup/profile.hpp"

namespace {
__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::puts("no GPU: skipped");
    return 77;
  }
  cudaStream_t s;
  cudaStreamCreate(&s);
  {
    warmup::launch_scope k{"exit.pending_200ms", s};
    spin<<<1, 1, 0, s>>>(200'000'000);
  }
  return 0;  // no synchronisation: the kernel is still running
}
