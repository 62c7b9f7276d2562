// main returns while its last kernel still runs: the report at exit (WARMUP_REPORT) must still
// hold that call's device time. Run by tests/gpu/check_exit_pending.py. Exits 77 without a GPU.
// With `init`, the process's first CUDA call is made first, inside a scope of its own (before
// asking whether there is a GPU, which would itself initialise the driver).
#include <cuda_runtime.h>

#include <cstring>

#include "gpu_support.cuh"
#include "warmup/profile.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "init") == 0) {
    warmup::context_scope first{"exit.first_cuda_call"};
    (void)cudaFree(nullptr);
  }
  if (const int status = gpu_support::exit_unless_gpus(); status >= 0) return status;
  cudaStream_t s;
  cudaStreamCreate(&s);
  {
    warmup::launch_scope k{"exit.pending_200ms", s};
    gpu_support::spin<<<1, 1, 0, s>>>(200'000'000);
  }
  return 0;  // no synchronisation: the kernel is still running
}
