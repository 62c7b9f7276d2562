/// @file
/// @brief What the event reader hands back to whoever asked for a device time, and why a call
/// got none: the one interface between sites and CUDA events.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Who receives a device-timed call's figures when its events are read back. The event ring
/// keeps this pointer and the call's index and knows nothing else of the site (detail/runtime/event_ring.hpp).
struct device_sink {
  /// Whether call `index` is on the timeline, so the reader also places it in time.
  virtual bool on_timeline(std::uint64_t index) const noexcept = 0;
  /// Call `index` took `ns` on the device; `start_ns` (steady-clock ns) is 0 when not placed.
  virtual void device_time(std::uint64_t index, std::uint64_t ns, bool after_idle, std::uint64_t start_ns) noexcept = 0;

 protected:
  ~device_sink() = default;
};

/// Why a call that asked for device timing got host time only.
enum class untimed : std::uint8_t {
  none,
  captured,     ///< its stream was being captured into a graph
  unavailable,  ///< no GPU, a CUDA error, no context yet
  dropped,      ///< no room left in the event ring
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
