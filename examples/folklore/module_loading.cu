// module_loading: "the first launch of a kernel is slow", measured: lazy loading, eager loading
// and PTX JIT.
//
// Four distinct kernels are launched 20 rounds each; every kernel is its own site, so the report
// shows what each one's first launch cost on the host against its steady launches. Creating the
// context has its own scope, so its cost stays out of the first launch.
//
// Since CUDA 12.2 the driver loads a module when one of its kernels is first used, and each
// kernel at its own first use (CUDA_MODULE_LOADING=LAZY, the default); with EAGER it loads every
// module when the context is created. Built as PTX only (the module_loading_ptx target:
// compute_90 PTX, no SASS), the driver must also JIT-compile the kernels when they load, unless
// its JIT cache (CUDA_CACHE_PATH, default ~/.nv/ComputeCache) already holds them.
//
//   CUDA_MODULE_LOADING=EAGER module_loading          eager: the context pays
//   CUDA_MODULE_LOADING=LAZY module_loading           lazy: each first launch pays
//   CUDA_CACHE_DISABLE=1 module_loading_ptx           JIT at the first launch, every run
//   CUDA_CACHE_PATH=/tmp/jit module_loading_ptx       JIT once; the next run loads from the cache
//   module_loading --prewarm                          the four kernels loaded first (warmup::prewarm_kernels)
//   ... --json FILE                                   also write the JSON report to FILE
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <warmup/profile.hpp>

#include "folklore.hpp"

#ifndef FOLKLORE_PTX_ONLY
#define FOLKLORE_PTX_ONLY 0  // the build system sets 1 for the PTX-only twin
#endif

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = FOLKLORE_PTX_ONLY ? "module_loading_ptx" : "module_loading";
constexpr int n = 1 << 20;
constexpr int rounds = 20;

__global__ void fill(float* x, float v, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] = v;
}
__global__ void scale(float* x, float a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] *= a;
}
__global__ void saxpy(float* y, const float* x, float a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = a * x[i] + y[i];
}
__global__ void relu(float* x, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] = fmaxf(x[i], 0.0f);
}

const char* const kernel_sites[] = {"launch fill", "launch scale", "launch saxpy", "launch relu"};

const char* env(const char* name, const char* unset) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : unset;
}

void print_findings(const warmup::report& r) {
  const char* mode = env("CUDA_MODULE_LOADING", "LAZY (default)");
  if (const auto* init = r.find(warmup::op_kind::context, "cudaSetDevice + cudaFree(0)"))
    std::cout << "finding: creating the context (" << mode << "): " << fmt(init->host.first) << " once\n";
  std::chrono::nanoseconds first_sum{}, steady_sum{};
  for (const char* name : kernel_sites) {
    const auto* s = r.find(warmup::op_kind::launch, name);
    if (s == nullptr) continue;
    std::cout << "finding: the first " << name << " waits on the host (" << mode << "): " << first_vs_steady(s->host);
    if (s->device && s->device->steady)
      std::cout << "; on the device " << fmt(s->device->first) << " vs " << fmt(s->device->steady->p50);
    std::cout << '\n';
    first_sum += s->host.first;
    if (s->host.steady) steady_sum += s->host.steady->p50;
  }
  std::cout << "finding: the four first launches together (" << mode << (FOLKLORE_PTX_ONLY ? ", PTX only" : "")
            << "): first " << fmt(first_sum) << " vs steady " << fmt(steady_sum) << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  // What this run is: the loading mode and JIT cache come from the environment.
  std::printf("CUDA_MODULE_LOADING=%s\n", env("CUDA_MODULE_LOADING", "(unset: LAZY, the default since CUDA 12.2)"));
  std::printf("CUDA_CACHE_DISABLE=%s CUDA_CACHE_PATH=%s\n", env("CUDA_CACHE_DISABLE", "(unset)"),
              env("CUDA_CACHE_PATH", "(unset)"));
  std::printf("build: %s\n", FOLKLORE_PTX_ONLY ? "PTX only (compute_90, no SASS): the driver JIT-compiles at load"
                                               : "SASS for the target GPU (and PTX for newer ones)");
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemsetAsync(y, 0, n * sizeof(float), stream));
  // --prewarm: load (and, PTX only, JIT-compile) exactly these four kernels now.
  if (folklore::prewarm_mode) PREWARM(warmup::prewarm_kernels(&fill, &scale, &saxpy, &relu));

  const int block = 256, grid = (n + block - 1) / block;
  for (int round = 0; round < rounds; ++round) {
    // A scope per kernel, around the launch only: the host time is what the caller waited,
    // loading (and JIT) included; the device time is the kernel as the stream saw it.
    {
      warmup::launch_scope s{kernel_sites[0], stream};
      fill<<<grid, block, 0, stream>>>(x, 1.0f, n);
    }
    CHECK(cudaGetLastError());
    {
      warmup::launch_scope s{kernel_sites[1], stream};
      scale<<<grid, block, 0, stream>>>(x, 2.0f, n);
    }
    CHECK(cudaGetLastError());
    {
      warmup::launch_scope s{kernel_sites[2], stream};
      saxpy<<<grid, block, 0, stream>>>(y, x, 0.5f, n);
    }
    CHECK(cudaGetLastError());
    {
      warmup::launch_scope s{kernel_sites[3], stream};
      relu<<<grid, block, 0, stream>>>(y, n);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));  // each round starts on an idle stream
  }

  // y = 20 rounds of y + 0.5 * (1 * 2): every element should be 20.
  float y0 = 0;
  CHECK(cudaMemcpy(&y0, y, sizeof y0, cudaMemcpyDeviceToHost));
  if (y0 != float(rounds)) {
    std::fprintf(stderr, "%s: wrong result %g, expected %d\n", program, double(y0), rounds);
    return folklore::fail();
  }
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
