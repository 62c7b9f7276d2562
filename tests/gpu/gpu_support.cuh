// What the GPU test programs share: a kernel of known length, the skip without a GPU, and
// the "ok/FAIL" lines of the programs that are not Catch2 tests.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

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
