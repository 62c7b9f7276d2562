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
#include "warmup/detail/analysis/memory_driver.hpp"
#include "warmup/detail/record/memory_probe.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

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

WARMUP_DETAIL_RUNTIME std::optional<std::uint64_t> pool_reserved(cudaStream_t stream) noexcept {
  const memory_driver* d = memory_calls();
  if (d == nullptr) return std::nullopt;
  return d->reserved(d->pool_of(reinterpret_cast<CUstream>(stream)));
}

WARMUP_DETAIL_RUNTIME host_memory_kind classify_host_memory(const void* p) noexcept {
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
