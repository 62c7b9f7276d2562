/// @file
/// @brief Prewarm's steps compiled with the runtime (prewarm.hpp declares them): each a site of
/// its own, each returning a status.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/cuda_driver.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/scope.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME prewarm_status load_kernels(const void* const* kernels, std::size_t count) {
  const region_scope s{"warmup::prewarm_kernels"};
  const prewarm_step step{"warmup::prewarm_kernels(" + std::to_string(count) + " kernels)"};
  for (std::size_t i = 0; i < count; ++i) {
    const std::string which = "kernel " + std::to_string(i + 1) + " of " + std::to_string(count);
    if (kernels[i] == nullptr) return step.invalid(which + " is a null pointer");
    // Getting the handle loads the kernel's module and the kernel (and JIT-compiles PTX).
    cudaFunction_t f = nullptr;
    if (const cudaError_t e = cudaGetFuncBySymbol(&f, kernels[i]); e != cudaSuccess)
      return step.failed("cudaGetFuncBySymbol(" + which + ")", e);
    // Where the driver can say so (cuFuncIsLoaded, CUDA 12.4), make sure: a kernel still
    // unloaded is loaded here. Older drivers: cudaGetFuncBySymbol alone loads it.
#if CUDA_VERSION >= 12040
    const cuda_driver* drv = cuda_driver_table();
    CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_LOADED;
    if (drv != nullptr && drv->has(driver_feature::kernel_loading) &&
        drv->func_is_loaded(&state, reinterpret_cast<CUfunction>(f)) == CUDA_SUCCESS &&
        state == CU_FUNCTION_LOADING_STATE_UNLOADED) {
      if (const CUresult r = drv->func_load(reinterpret_cast<CUfunction>(f)); r != CUDA_SUCCESS)
        return step.failed("cuFuncLoad(" + which + ")", static_cast<cudaError_t>(r));
    }
#endif
  }
  return step.ok();
}

}  // namespace detail

WARMUP_DETAIL_RUNTIME prewarm_status prewarm_context(int device) {
  const context_scope s{"warmup::prewarm_context"};
  int dev = device;
  const detail::prewarm_step step{"warmup::prewarm_context(device " +
                                  (device < 0 ? std::string("current") : std::to_string(device)) + ")"};
  if (dev < 0) {
    if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return step.failed("cudaGetDevice", e);
  }
  if (const cudaError_t e = cudaInitDevice(dev, 0, 0); e != cudaSuccess) return step.failed("cudaInitDevice", e);
  return step.ok();
}

WARMUP_DETAIL_RUNTIME prewarm_status prewarm_pool(std::size_t bytes, cudaStream_t stream) {
  const alloc_scope s{"warmup::prewarm_pool", bytes, stream};
  const detail::prewarm_step step{"warmup::prewarm_pool(" + std::to_string(bytes) + " bytes)"};
  if (bytes == 0) return step.invalid("0 bytes: give the high-water size of the program's stream-ordered allocations");
  if (auto refused = step.refuse_capturing(stream)) return *refused;
  int dev = 0;
#if CUDART_VERSION >= 12080
  if (const cudaError_t e = cudaStreamGetDevice(stream, &dev); e != cudaSuccess)
    return step.failed("cudaStreamGetDevice", e);
#else
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return step.failed("cudaGetDevice", e);
#endif
  cudaMemPool_t pool = nullptr;
  if (const cudaError_t e = cudaDeviceGetMemPool(&pool, dev); e != cudaSuccess)
    return step.failed("cudaDeviceGetMemPool", e);
  std::uint64_t threshold = 0;
  if (const cudaError_t e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
      e != cudaSuccess)
    return step.failed("cudaMemPoolGetAttribute(release threshold)", e);
  if (threshold < bytes) {
    std::uint64_t raised = bytes;
    if (const cudaError_t e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &raised);
        e != cudaSuccess)
      return step.failed("cudaMemPoolSetAttribute(release threshold)", e);
  }
  void* p = nullptr;
  if (const cudaError_t e = cudaMallocAsync(&p, bytes, stream); e != cudaSuccess) return step.failed("cudaMallocAsync", e);
  if (const cudaError_t e = cudaFreeAsync(p, stream); e != cudaSuccess) return step.failed("cudaFreeAsync", e);
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return step.failed("cudaStreamSynchronize", e);
  return step.ok();
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
