/// @file
/// @brief Cheap, always-on memory signals that need no CUPTI: how much a stream-ordered pool
/// reserved before and after an allocation scope (pool growth), whether a copy's host memory is
/// pinned or pageable (pageable memory is staged by the driver through a pinned buffer of its
/// own), and the device memory a first call takes. Driver calls only (detail/cuda_driver.hpp),
/// outside the measured time; the runtime's last-error slot stays the program's.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

#include "warmup/config.hpp"
#include "warmup/detail/cuda_driver.hpp"
#include "warmup/detail/record/memory_probe.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The driver's functions where the CUDA runtime was seen working (device_rings.hpp), so that no
/// probe of ours is the program's first CUDA call; nullptr before, or where it cannot be used.
inline const cuda_driver* memory_calls() noexcept {
  const cuda_state& st = cuda();
  return st.runtime.load(std::memory_order_acquire) == cuda_state::available ? &st.driver : nullptr;
}

/// The free memory of the current context's device, where one is current; empty otherwise.
inline std::optional<std::uint64_t> free_in_current_context(const cuda_driver& d) noexcept {
  if (!d.has(driver_feature::memory_free)) return std::nullopt;
  CUcontext c = nullptr;
  std::size_t free = 0, total = 0;
  if (d.ctx_get_current(&c) != CUDA_SUCCESS || c == nullptr || d.mem_get_info(&free, &total) != CUDA_SUCCESS)
    return std::nullopt;
  return free;
}

/// The free memory of the calling thread's current device, asked of the driver only where a
/// context is current (so never making one), and never a synchronisation; empty otherwise.
/// Before the library has looked for CUDA (the process's first device-timed scope, whose start
/// comes before its look): asked only where the program has loaded the driver (the table is
/// nullptr before); a driver not yet initialised answers CUDA_ERROR_NOT_INITIALIZED and stays
/// so. Nothing is loaded or initialised here.
inline std::optional<std::uint64_t> device_memory_free() noexcept {
  const cuda_state& st = cuda();
  const int known = st.runtime.load(std::memory_order_acquire);
  if (known == cuda_state::unknown) {
    const cuda_driver* d = cuda_driver_table();
    return d != nullptr ? free_in_current_context(*d) : std::nullopt;
  }
  if (known != cuda_state::available) return std::nullopt;
  return free_in_current_context(st.driver);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
