/// @file
/// @brief The memory probes detail/record/memory_probe.hpp declares,
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/device_memory.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME std::optional<std::uint64_t> pool_reserved(cudaStream_t stream) noexcept {
  const cuda_driver* d = memory_calls();
  if (d == nullptr || !d->has(driver_feature::pool_reserve)) return std::nullopt;
  return d->reserved(d->pool_of(reinterpret_cast<CUstream>(stream)));
}

WARMUP_DETAIL_RUNTIME host_memory_kind classify_host_memory(const void* p) noexcept {
  const cuda_driver* d = memory_calls();
  if (p == nullptr || d == nullptr || !d->has(driver_feature::host_memory_kind)) return host_memory_kind::unknown;
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
