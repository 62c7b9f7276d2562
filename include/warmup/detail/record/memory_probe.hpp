/// @file
/// @brief Cheap, always-on memory signals that need no CUPTI: how much a stream-ordered pool
/// reserved before and after an allocation scope (pool growth), and whether a copy's host
/// memory is pinned or pageable (pageable memory is staged by the driver through a pinned
/// buffer of its own). Driver calls only, outside the measured time; the runtime's last-error
/// slot stays the program's.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include <dlfcn.h>

#include "warmup/config.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"

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

/// nullptr until the CUDA runtime was seen working (device_timer.hpp), so that no probe of ours
/// is the program's first CUDA call, or where libcuda lacks the calls.
inline const memory_driver* memory_calls() noexcept {
  if (cuda().runtime.load(std::memory_order_acquire) != cuda_state::available) return nullptr;
  static const std::optional<memory_driver> d = []() -> std::optional<memory_driver> {
    memory_driver m;
    if (!m.load()) return std::nullopt;
    return m;
  }();
  return d ? &*d : nullptr;
}

/// Bytes the device's current pool (the one cudaMallocAsync draws from) holds reserved now, for
/// the device of `stream`; empty where it cannot be read without side effects.
inline std::optional<std::uint64_t> pool_reserved(cudaStream_t stream) noexcept {
  const memory_driver* d = memory_calls();
  if (d == nullptr) return std::nullopt;
  return d->reserved(d->pool_of(reinterpret_cast<CUstream>(stream)));
}

/// What kind of memory a copy's host pointer points at.
enum class host_memory_kind : std::uint8_t { unknown, pinned, pageable, device };

inline host_memory_kind classify_host_memory(const void* p) noexcept {
  const memory_driver* d = memory_calls();
  if (p == nullptr || d == nullptr || d->pointer_get_attribute == nullptr) return host_memory_kind::unknown;
  unsigned type = 0;
  const CUresult r = d->pointer_get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                              static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)));
  if (r == CUDA_ERROR_INVALID_VALUE) return host_memory_kind::pageable;  // unknown to the driver
  if (r != CUDA_SUCCESS) return host_memory_kind::unknown;                // no context, say
  return type == CU_MEMORYTYPE_HOST ? host_memory_kind::pinned : host_memory_kind::device;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
