/// @file
/// @brief The device timing calls detail/record/device_timer.hpp declares,
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/device_rings.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Starts the device measurement of call `index` of `sink` on `stream`. Returns a mark without
/// a ring, saying why (the call is then host-timed only), when there is no GPU, the stream is
/// being captured into a graph, the device's context does not exist yet, or a CUDA error
/// stands in the way. `carried` receives the time of the process's first driver probe (ticks of
/// the scopes' clock), which the program would otherwise have paid inside this same scope and so
/// belongs to its host time.
WARMUP_DETAIL_RUNTIME device_mark device_begin(device_sink* sink, std::uint64_t index, cudaStream_t stream,
                                std::uint64_t& carried) noexcept {
  device_mark m;
  cuda_state& st = cuda();
  if (st.runtime.load(std::memory_order_acquire) != cuda_state::available || st.closed.load(std::memory_order_relaxed)) {
    const time_base& time = host_time();
    const auto t0 = clock::now();
    const std::uint64_t k0 = time.now();
    const bool ok = runtime_available();
    const std::uint64_t k1 = time.now();
    const std::uint64_t probe_ns = ns_between(t0, clock::now());
    // Where a GPU answered, the probe initialised the driver that this scope's own CUDA call
    // would have: it belongs to the call. Where none did, the body did no GPU work that could
    // have paid it: it is the library's own cost.
    if (ok) carried = k1 > k0 ? k1 - k0 : 0;
    else st.probe_ns.fetch_add(probe_ns, std::memory_order_relaxed);
    if (!ok) {
      m.why = untimed::unavailable;
      return m;
    }
  }
  const bool implicit = is_implicit_stream(stream);
  event_ring* r = implicit ? ring_for_implicit(stream, m.why) : ring_for_explicit(stream, m.why);
  if (r == nullptr) return m;
  switch (r->begin(sink, index, stream, implicit, m.seq)) {
    case event_ring::start::recorded: m.ring = r; break;
    case event_ring::start::full: m.why = untimed::dropped; break;
    case event_ring::start::failed: m.why = untimed::unavailable; break;
  }
  return m;
}

WARMUP_DETAIL_RUNTIME void device_end_recorded(const device_mark& m, cudaStream_t stream, bool after_idle) noexcept {
  m.ring->end(m.seq, stream, after_idle);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
