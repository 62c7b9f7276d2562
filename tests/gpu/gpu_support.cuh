// What the GPU test programs share: a kernel of known length, the skip without a GPU, and
// the "ok/FAIL" lines of the programs that are not Catch2 tests.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "../support/host_gpu.hpp"

namespace gpu_support {

// Spins for `ns` nanoseconds of the GPU's global timer.
__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// -1 where CUDA can use `needed` GPUs; otherwise the exit status to end with, said on stdout: 77
// (skipped) where the host has fewer, 1 (failed) where it has them and CUDA cannot use them.
inline int exit_unless_gpus(int needed = 1) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n >= needed) return -1;
  return host_gpu::missing_status(e == cudaSuccess ? n : 0, needed,
                                  e != cudaSuccess ? cudaGetErrorString(e) : std::to_string(n) + " devices");
}

// Prints one check's outcome; `failures()` counts the failed ones, for the exit status.
inline int& failures() {
  static int n = 0;
  return n;
}
inline void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures() += !ok;
}

}  // namespace gpu_support
