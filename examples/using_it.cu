// using_it: the README's "Using it" snippet, as a program (tests/docs/check_readme.py keeps the
// README's copy equal to the lines between the markers below). The "model" is one kernel that
// keeps the GPU busy for about 1 ms, fed by a 1 MiB upload each call.
#include <cuda_runtime.h>

#include <cstdio>
#include <iostream>
#include <vector>

#include <warmup/profile.hpp>

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct tiny_model {
  long long cycles = 1'800'000;  // about 1 ms at 1.8 GHz
  void forward(cudaStream_t stream) const { spin<<<1, 1, 0, stream>>>(cycles); }
};

}  // namespace

int main() {
  const std::size_t bytes = std::size_t{1} << 20;
  std::vector<char> h_in(bytes, 1);
  void* d_in = nullptr;
  cudaStream_t stream = nullptr;
  const tiny_model model;
  // [readme:using-it]
  {
    warmup::context_scope init{"init"};              // host time only
    cudaSetDevice(0);
  }
  cudaStreamCreate(&stream);
  cudaMalloc(&d_in, bytes);
  for (int i = 0; i < 100; ++i) {
    {
      warmup::h2d_scope up{"upload", bytes, stream};   // host + device time, bandwidth
      cudaMemcpyAsync(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice, stream);
    }                                                  // a scope times until its block ends
    {
      warmup::region_scope fwd{"forward", stream};     // host + device time
      model.forward(stream);
    }
  }
  cudaStreamSynchronize(stream);
  const warmup::report r = warmup::snapshot();       // or snapshot(warmup::device_wait::yes)
  warmup::print(r, std::cout);                       // the table
  std::cout << warmup::to_json(r) << '\n';           // JSON, schema warmup.report/3
  // [readme:end]
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::fprintf(stderr, "using_it: %s\n", cudaGetErrorString(e));
  cudaFree(d_in);
  if (stream != nullptr) cudaStreamDestroy(stream);
  return 0;
}
