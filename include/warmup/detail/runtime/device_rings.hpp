/// @file
/// @brief Device timing for scopes: the rings of CUDA events, which ring a call uses, and what
/// happens when it cannot (device_timer-inl.hpp defines the calls detail/record/device_timer.hpp
/// declares with them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>
#include <vector>

#include "warmup/detail/record/device_timer.hpp"
#include "warmup/detail/runtime/event_ring.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The least time an event pair reads with nothing between its events, on `device`: every
/// device duration carries it, which weighs on a short kernel's (BENCHMARKS.md gives it). The
/// best of a few empty pairs on the library's private stream, measured once, outside every
/// measurement.
inline void measure_pair_floor(int device, cudaStream_t s) noexcept {
  cudaEvent_t a = nullptr, b = nullptr;
  cudaError_t err = cudaEventCreate(&a);
  if (err == cudaSuccess) err = cudaEventCreate(&b);
  float best = -1;
  for (int i = 0; i < 5 && err == cudaSuccess; ++i) {
    float ms = 0;
    err = cudaEventRecord(a, s);
    if (err == cudaSuccess) err = cudaEventRecord(b, s);
    if (err == cudaSuccess) err = cudaEventSynchronize(b);
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, a, b);
    if (err == cudaSuccess && (best < 0 || ms < best)) best = ms;
  }
  if (a != nullptr) (void)cudaEventDestroy(a);
  if (b != nullptr) (void)cudaEventDestroy(b);
  if (err != cudaSuccess) forget_own_error(err);
  if (best >= 0)
    cuda().pair_floor_ns[static_cast<std::size_t>(device)].store(static_cast<std::uint64_t>(double(best) * 1e6) + 1,
                                                                 std::memory_order_relaxed);
}

/// Records an event on a private stream and waits for it alone (never for the program's work),
/// once per device, when the device's first ring is made: outside every measurement, and
/// counted with the event pools.
inline void make_anchor(int device) noexcept {
  cuda_state& st = cuda();
  if (st.anchor[static_cast<std::size_t>(device)].load(std::memory_order_acquire) != nullptr) return;
  const auto t0 = clock::now();
  device_guard on(device);
  cudaStream_t s = nullptr;
  cudaEvent_t e = nullptr;
  cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  if (err == cudaSuccess) err = cudaEventCreate(&e);
  if (err == cudaSuccess) err = cudaEventRecord(e, s);
  if (err == cudaSuccess) err = cudaEventSynchronize(e);
  const auto host = clock::now();
  if (err == cudaSuccess) measure_pair_floor(device, s);
  if (s != nullptr) (void)cudaStreamDestroy(s);
  if (err != cudaSuccess) {
    forget_own_error(err);
    return;  // no device timeline: durations are still measured
  }
  st.anchor_host_ns[static_cast<std::size_t>(device)].store(ns_since_epoch(host), std::memory_order_relaxed);
  st.anchor[static_cast<std::size_t>(device)].store(e, std::memory_order_release);
  st.event_pool_ns.fetch_add(ns_between(t0, clock::now()), std::memory_order_relaxed);
}

/// Every ring ever made, so snapshots can drain rings of threads that have exited. Rings are
/// never freed; a thread's rings are handed to the next thread that needs one for that device.
class ring_list {
 public:
  event_ring* claim(int device, unsigned generation) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      for (event_ring* r : rings_) {
        bool free = false;
        if (r->device() == device && r->generation() == generation &&
            r->owned.compare_exchange_strong(free, true))
          return r;
      }
      make_anchor(device);
      auto* r = new event_ring(device, generation);
      if (!r->usable()) {
        delete r;
        return nullptr;
      }
      rings_.push_back(r);
      return r;
    } WARMUP_CATCH_ALL {
      return nullptr;
    }
  }

  /// Drains every ring; returns the number of measurements still pending.
  std::size_t drain_all(read_mode mode) noexcept {
    const busy_section busy;
    std::vector<event_ring*> rings;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      rings = rings_;
    } WARMUP_CATCH_ALL {
      return 0;
    }
    if (rings.empty()) return 0;
    std::size_t pending = 0;
    relaxed_capture_mode relaxed;  // driver calls from here on: the runtime's error slot is untouched
    for (event_ring* r : rings) pending += r->drain(mode);
    return pending;
  }

  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Drops every ring without a CUDA call; caller holds the lock and is the only thread (a
  /// forked child, where the parent's events cannot be used).
  void forget_locked() noexcept { rings_.clear(); }

 private:
  std::mutex mutex_;
  std::vector<event_ring*> rings_;
};

inline ring_list& rings() noexcept {
  return shared<ring_list, slot::rings>();
}

/// The calling thread's ring for each device, and the one it used last (most threads time work
/// on one device: the fast path compares one context). At thread exit the rings go back to the
/// list.
struct thread_rings {
  std::array<event_ring*, max_devices> by_device{};
  event_ring* last = nullptr;
  ~thread_rings() {
    for (event_ring* r : by_device)
      if (r != nullptr) r->owned.store(false, std::memory_order_release);
  }
};

inline thread_rings& my_rings() noexcept {
  thread_local thread_rings t;
  return t;
}

/// The calling thread's ring for `device`, claimed or replaced when missing or stale; nullptr if
/// none can be had. Runtime calls: only with no error of the program's pending (checked by the
/// caller). `implicit`: on the null stream the context may not exist yet, and making events
/// would create it and take the program's context creation out of its own measurement.
inline event_ring* ring_for_device(int device, bool implicit) noexcept {
  event_ring*& mine = my_rings().by_device[static_cast<std::size_t>(device)];
  const unsigned generation =
      cuda().generation[static_cast<std::size_t>(device)].load(std::memory_order_acquire);
  if (mine != nullptr && mine->generation() == generation) return mine;
  if (mine != nullptr) mine->owned.store(false, std::memory_order_release);
  mine = nullptr;
  if (implicit && !context_exists(device)) return nullptr;
  return mine = rings().claim(device, generation);
}

inline bool current(const event_ring* r) noexcept {
  const cuda_state& st = cuda();
  const auto d = static_cast<std::size_t>(r->device());
  return r->generation() == st.generation[d].load(std::memory_order_relaxed) &&
         !st.device_off[d].load(std::memory_order_relaxed);
}

/// An explicit stream: driver calls only (the stream's context, its capture state: BENCHMARKS.md
/// gives their cost), a fraction of their runtime wrappers', and the runtime's last-error slot,
/// which driver calls never touch, stays the program's alone.
inline event_ring* ring_for_explicit(cudaStream_t stream, untimed& why) noexcept {
  const cuda_state& st = cuda();
  const auto cu_stream = reinterpret_cast<CUstream>(stream);
  CUcontext ctx = nullptr;
  if (st.driver.stream_get_ctx(cu_stream, &ctx) != CUDA_SUCCESS) {
    why = untimed::unavailable;  // not a live stream
    return nullptr;
  }
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (st.driver.stream_is_capturing(cu_stream, &capture) != CUDA_SUCCESS) {
    why = untimed::unavailable;
    return nullptr;
  }
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    // Events recorded now would become graph nodes, not measurements.
    why = untimed::captured;
    return nullptr;
  }
  thread_rings& mine = my_rings();
  event_ring* r = mine.last;
  if (r != nullptr && r->context() == ctx && current(r)) return r;
  for (event_ring* other : mine.by_device)  // a device this thread has timed before
    if (other != nullptr && other->context() == ctx && current(other)) return mine.last = other;
  // A stream of another device than last time, or of a reset device: find its ring. Runtime
  // calls from here on, so not over an error of the program's.
  int device = -1;
  if (cudaPeekAtLastError() == cudaSuccess) {
    const cudaError_t e = cudaStreamGetDevice(stream, &device);
    if (e != cudaSuccess) forget_own_error(e), device = -1;
  }
  r = device >= 0 && device < max_devices ? ring_for_device(device, false) : nullptr;
  // A stream of a context other than the device's primary one cannot record the ring's events.
  if (r == nullptr || r->context() != ctx || !current(r)) {
    why = untimed::unavailable;
    return nullptr;
  }
  return mine.last = r;
}

/// The null, legacy or per-thread stream: runtime calls, which resolve it as the program's own
/// compilation means it, and so only with no error of the program's pending.
inline event_ring* ring_for_implicit(cudaStream_t stream, untimed& why) noexcept {
  if (cudaPeekAtLastError() != cudaSuccess) {
    why = untimed::unavailable;
    return nullptr;
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(stream, &capture);
  if (e != cudaSuccess || capture != cudaStreamCaptureStatusNone) {
    if (e != cudaSuccess) forget_own_error(e);
    why = untimed::captured;
    return nullptr;
  }
  int device = 0;
  e = cudaGetDevice(&device);
  if (e != cudaSuccess) forget_own_error(e);
  event_ring* r = e == cudaSuccess && device >= 0 && device < max_devices ? ring_for_device(device, true) : nullptr;
  if (r == nullptr || !current(r)) {
    why = untimed::unavailable;
    return nullptr;
  }
  return r;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
