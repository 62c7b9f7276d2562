/// @file
/// @brief The driver calls that read a stream-ordered pool's reserved bytes and what kind of
/// memory a pointer is, taken from the loaded libcuda: the memory probes' (detail/runtime/
/// memory_probe.hpp) and CUPTI's pool-growth records' (detail/analysis/cupti.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include <dlfcn.h>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The driver calls these signals make (and CUPTI's pool-growth callback, detail/analysis/cupti.hpp),
/// taken with dlsym from the libcuda the runtime loaded: no runtime call, so the runtime's
/// last-error slot is never touched.
struct memory_driver {
  CUresult(CUDAAPI* stream_get_device)(CUstream, CUdevice*) = nullptr;  // CUDA 12.8 and later
  CUresult(CUDAAPI* ctx_get_device)(CUdevice*) = nullptr;
  CUresult(CUDAAPI* device_get_mem_pool)(CUmemoryPool*, CUdevice) = nullptr;
  CUresult(CUDAAPI* mem_pool_get_attribute)(CUmemoryPool, CUmemPool_attribute, void*) = nullptr;
  CUresult(CUDAAPI* pointer_get_attribute)(void*, CUpointer_attribute, CUdeviceptr) = nullptr;

  /// Takes the calls from the loaded libcuda; false where it is not loaded or lacks the pool's.
  bool load() noexcept {
    void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == nullptr) return false;
    const auto take = [lib](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
    };
    take(stream_get_device, "cuStreamGetDevice");
    take(ctx_get_device, "cuCtxGetDevice");
    take(device_get_mem_pool, "cuDeviceGetMemPool");
    take(mem_pool_get_attribute, "cuMemPoolGetAttribute");
    take(pointer_get_attribute, "cuPointerGetAttribute");
    ::dlclose(lib);  // NOLOAD took a reference to a library that stays loaded
    return (stream_get_device != nullptr || ctx_get_device != nullptr) && device_get_mem_pool != nullptr &&
           mem_pool_get_attribute != nullptr;
  }

  /// The device's current pool (the one cudaMallocAsync draws from) for `stream`'s device.
  CUmemoryPool pool_of(CUstream stream) const noexcept {
    CUdevice dev{};
    const CUresult r = stream_get_device != nullptr ? stream_get_device(stream, &dev) : ctx_get_device(&dev);
    CUmemoryPool pool = nullptr;
    if (r != CUDA_SUCCESS || device_get_mem_pool(&pool, dev) != CUDA_SUCCESS) return nullptr;
    return pool;
  }

  std::optional<std::uint64_t> reserved(CUmemoryPool pool) const noexcept {
    cuuint64_t bytes = 0;
    if (pool == nullptr || mem_pool_get_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &bytes) != CUDA_SUCCESS)
      return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
