// A sticky error from the program's own kernel (an illegal address): the library says so once,
// stops device timing, keeps every host measurement, and leaves the error for the program.
// Its own process, since the error ends the CUDA context. Exits 77 (skipped) without a GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "gpu_support.cuh"
#include "warmup/profile.hpp"

namespace {
__global__ void write_to(int* p) { *p = 1; }
__global__ void empty() {}

using gpu_support::expect;
}  // namespace

int main() {
  if (const int status = gpu_support::exit_unless_gpus(); status >= 0) return status;
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int i = 0; i < 10; ++i) {
    warmup::launch_scope k{"sticky.before", s};
    empty<<<1, 1, 0, s>>>();
  }
  cudaStreamSynchronize(s);
  // Read back before the fault: after a sticky error no event can be queried any more.
  (void)warmup::snapshot();
  {
    warmup::launch_scope k{"sticky.fault", s};
    write_to<<<1, 1, 0, s>>>(reinterpret_cast<int*>(0x10));  // an illegal address
  }
  const cudaError_t seen = cudaStreamSynchronize(s);
  expect(seen == cudaErrorIllegalAddress, "the program sees its own illegal address");
  for (int i = 0; i < 10; ++i) {
    warmup::launch_scope k{"sticky.after", s};  // device timing must stop, host timing go on
    empty<<<1, 1, 0, s>>>();
  }
  const warmup::report r = warmup::snapshot();
  const cudaError_t last = cudaGetLastError();
  expect(last == cudaErrorIllegalAddress, "the program's next cudaGetLastError still returns it");
  const auto* before = r.find(warmup::op_kind::launch, "sticky.before");
  const auto* after = r.find(warmup::op_kind::launch, "sticky.after");
  expect(before != nullptr && before->calls == 10 && before->device && before->device->calls == 10,
         "measurements made before the fault are all kept, device times too");
  expect(after != nullptr && after->calls == 10 && after->host.calls == 10, "host timing goes on after the fault");
  expect(after != nullptr && !after->device && after->device_untimed.unavailable == 10,
         "no device timing after the fault, and the report says why");
  std::size_t notices = 0;
  for (const auto& text : r.notices) notices += text.find("cudaErrorIllegalAddress") != std::string::npos;
  expect(notices == 1, "one notice names the error");
  std::printf("%s\n", gpu_support::failures() == 0 ? "all sticky-error checks passed" : "sticky-error checks FAILED");
  return gpu_support::failures() == 0 ? 0 : 1;
}
