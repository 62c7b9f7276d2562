// A program with NVTX ranges around its GPU work and no warmup header, for the NVTX tool's
// device time (WARMUP_NVTX_DEVICE=on; tests/nvtx_tool/check_nvtx_device.py runs it under the
// tool). It times its own spin kernel and memset with CUDA events, outside every range, and
// prints both, so that the check compares the ranges' device times with them. Exits 77 without
// a GPU.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

__global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

#define CHECK_CUDA(call)                                                         \
  do {                                                                           \
    if (const cudaError_t e = (call); e != cudaSuccess) {                        \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));            \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

/// The median of five event-timed runs of `work` on `s`, in microseconds.
template <class F>
float median_us(cudaStream_t s, F work) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int i = 0; i < 5; ++i) {
    cudaEventRecord(a, s);
    work();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[2] * 1000.0f;
}

}  // namespace

int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::puts("skipped: no GPU");
    return 77;
  }
  constexpr long long cycles = 1'000'000;  // about 0.5 ms at 2 GHz
  constexpr std::size_t bytes = std::size_t{256} << 20;
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* buffer = nullptr;
  CHECK_CUDA(cudaMalloc(&buffer, bytes));
  // The same kernel launched through the driver, as Triton launches its kernels (the driver's
  // function taken from the runtime: no link to libcuda).
  cudaFunction_t function = nullptr;
  CHECK_CUDA(cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(&spin)));
  using launch_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 CUstream, void**, void**);
  void* launch_entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &launch_entry, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || launch_entry == nullptr) {
    std::fputs("cuLaunchKernel not found\n", stderr);
    return 1;
  }
  const auto launch = reinterpret_cast<launch_fn>(launch_entry);
  long long arg = cycles;
  void* args[] = {&arg};

  const float kernel_us = median_us(s, [&] { spin<<<1, 1, 0, s>>>(cycles); });
  const float memset_us = median_us(s, [&] { cudaMemsetAsync(buffer, 0, bytes, s); });

  constexpr int calls = 20;
  for (int i = 0; i < calls; ++i) {
    nvtxRangePushA("gpu.outer");
    nvtxRangePushA("gpu.inner");
    spin<<<1, 1, 0, s>>>(cycles);
    nvtxRangePop();
    CHECK_CUDA(cudaMemsetAsync(buffer, 0, bytes, s));  // the outer range's own work
    nvtxRangePop();

    nvtxRangePushA("gpu.driver_launch");
    if (launch(reinterpret_cast<CUfunction>(function), 1, 1, 1, 1, 1, 1, 0, s, args, nullptr) != CUDA_SUCCESS) {
      std::fputs("cuLaunchKernel failed\n", stderr);
      return 1;
    }
    nvtxRangePop();

    nvtxRangePushA("gpu.no_work");
    nvtxRangePop();

    const nvtxRangeId_t id = nvtxRangeStartA("gpu.started");
    spin<<<1, 1, 0, s>>>(cycles / 10);
    nvtxRangeEnd(id);
    CHECK_CUDA(cudaStreamSynchronize(s));
  }
  std::printf("kernel_us %.3f\nmemset_us %.3f\ncalls %d\n", kernel_us, memset_us, calls);
  CHECK_CUDA(cudaFree(buffer));
  return 0;
}
