// The host side of examples/make: plain C++, built light (the Makefile's -DWARMUP_LIGHT).
#include <warmup/profile.hpp>

#include <cuda_runtime.h>

void launch_scale(float* data, int n, cudaStream_t stream);  // kernels.cu

int main() {
  const int n = 1 << 20;
  float* data = nullptr;
  {
    warmup::alloc_scope a{"allocate", n * sizeof(float)};
    (void)cudaMalloc(&data, n * sizeof(float));  // fails without a GPU: the report says so
  }
  for (int i = 0; i < 20; ++i) {
    WARMUP_SCOPE("step");
    launch_scale(data, n, nullptr);
  }
  (void)cudaFree(data);
}  // WARMUP_REPORT=stderr ./app: the report at exit
