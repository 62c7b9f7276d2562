// What the GPU test programs share: a kernel of known length, and the skip without a GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

namespace gpu_support {

// Spins for `ns` nanoseconds of the GPU's global timer.
__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// True where a GPU is visible; otherwise says why, for the caller to exit 77 (skipped).
inline bool gpu_present() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return true;
  std::printf("no GPU (%s): skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
  return false;
}

}  // namespace gpu_support
