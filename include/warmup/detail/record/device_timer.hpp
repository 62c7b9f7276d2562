/// @file
/// @brief Device timing as a scope sees it: a mark taken as the call begins and closed as it
/// ends. Which event ring a call uses and what happens when it cannot be timed are the
/// runtime's (detail/runtime/device_timer-inl.hpp): a device-timed call already makes driver calls
/// of a few hundred ns, beside which a call into the runtime is noise.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

#include "warmup/config.hpp"
#include "warmup/detail/record/device_sink.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

class event_ring;

/// A device measurement in flight: the ring and slot its events came from; with no ring, why
/// the call is host-timed only.
struct device_mark {
  event_ring* ring = nullptr;
  std::uint64_t seq = 0;
  untimed why = untimed::none;
};

/// Starts the device measurement of call `index` of `sink` on `stream`. Returns a mark without
/// a ring, saying why (the call is then host-timed only), when there is no GPU, the stream is
/// being captured into a graph, the device's context does not exist yet, or a CUDA error
/// stands in the way. `carried` receives the time of the process's first driver probe (ticks of
/// the scopes' clock), which the program would otherwise have paid inside this same scope and so
/// belongs to its host time.
device_mark device_begin(device_sink* sink, std::uint64_t index, cudaStream_t stream, std::uint64_t& carried) noexcept;

/// Records the end event of a mark that has a ring.
void device_end_recorded(const device_mark& m, cudaStream_t stream, bool after_idle) noexcept;

WARMUP_HOT_INLINE void device_end(const device_mark& m, cudaStream_t stream, bool after_idle) noexcept {
  if (m.ring != nullptr) device_end_recorded(m, stream, after_idle);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
