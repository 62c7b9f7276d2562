// The CUDA side of examples/make: built by nvcc, light like the rest.
#include <warmup/profile.hpp>

__global__ void scale(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

void launch_scale(float* data, int n, cudaStream_t stream) {
  warmup::launch_scope k{"scale", stream};
  scale<<<(n + 255) / 256, 256, 0, stream>>>(data, n);
}
