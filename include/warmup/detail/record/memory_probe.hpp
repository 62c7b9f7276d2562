/// @file
/// @brief Cheap, always-on memory signals that need no CUPTI, as a scope asks for them: how
/// much a stream-ordered pool reserved before and after an allocation scope (pool growth), and
/// whether a copy's host memory is pinned or pageable (pageable memory is staged by the driver
/// through a pinned buffer of its own). Driver calls, outside the measured time, made by the
/// runtime (detail/runtime/memory_probe-inl.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Bytes the device's current pool (the one cudaMallocAsync draws from) holds reserved now, for
/// the device of `stream`; empty where it cannot be read without side effects.
std::optional<std::uint64_t> pool_reserved(cudaStream_t stream) noexcept;

/// What kind of memory a copy's host pointer points at.
enum class host_memory_kind : std::uint8_t { unknown, pinned, pageable, device };

host_memory_kind classify_host_memory(const void* p) noexcept;

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
