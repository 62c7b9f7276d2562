/// @file
/// @brief Pools of CUDA event pairs, recorded by scopes and read back later without blocking.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "warmup/detail/clock.hpp"
#include "warmup/detail/cuda_runtime.hpp"
#include "warmup/detail/site.hpp"

namespace warmup::detail {

/// Whether reading device measurements may wait for the GPU.
enum class read_mode { poll, wait };

/// Sets the calling thread's stream-capture mode to relaxed for its lifetime, so that the
/// library's event queries never invalidate a capture another thread has under way.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() noexcept { ok_ = cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess; }
  ~relaxed_capture_mode() {
    if (ok_) (void)cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool ok_ = false;
};

/// Reacts to a failed call of the library's own on `device`. A stale handle (the device was
/// reset) retires that device's rings and timing starts again with fresh events; any other error
/// (a sticky fault of the program's kernels, say) stops device timing on the device for good.
inline void on_device_error(int device, cudaError_t e) noexcept {
  forget_own_error(e);
  cuda_state& st = cuda();
  if (e == cudaErrorInvalidResourceHandle || e == cudaErrorContextIsDestroyed) {
    st.generation[static_cast<std::size_t>(device)].fetch_add(1, std::memory_order_acq_rel);
    notice_board().raise(notice_kind::device_error,
                         "device " + std::to_string(device) + ": " + describe(e) +
                             "; the library's events were retired and are made anew");
    return;
  }
  if (!st.device_off[static_cast<std::size_t>(device)].exchange(true))
    notice_board().raise(notice_kind::device_error,
                         "device timing stopped on device " + std::to_string(device) + " after " +
                             describe(e) + " (left for the program to see); host timing goes on");
}

/// A ring of event pairs owned by one thread for one device. The owning thread reserves a slot
/// and records its start event at scope entry, records its end event at scope exit; any thread
/// drains finished slots oldest first, stopping at the first one the GPU has not reached. The
/// mutex is the owner's and is contended only while a snapshot drains this very ring.
class event_ring {
 public:
  static constexpr std::size_t initial_pairs = 32;
  static constexpr std::size_t max_pairs = 8192;

  event_ring(int device, unsigned generation) noexcept : device_(device), generation_(generation) {
    std::lock_guard<std::mutex> lock(mutex_);
    (void)grow_locked(initial_pairs);
  }
  event_ring(const event_ring&) = delete;
  event_ring& operator=(const event_ring&) = delete;
  // Events are never destroyed: rings live until the process ends, and destroying events during
  // static destruction could call into a runtime already torn down.

  int device() const noexcept { return device_; }
  unsigned generation() const noexcept { return generation_; }
  bool usable() const noexcept { return !slots_.empty(); }

  enum class start { recorded, full, failed };

  /// Reserves a slot and records its start event. `full`: no room even after reading back what
  /// the GPU has finished; `failed`: the record failed (on_device_error has said why). Either
  /// way the call is host-timed only.
  start begin(site* s, std::uint64_t index, cudaStream_t stream, std::uint64_t& seq) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (head_ - tail_ == slots_.size()) {
      drain_locked(read_mode::poll);
      if (head_ - tail_ == slots_.size() && !grow_locked(slots_.size())) return start::full;
    }
    slot& sl = at(head_);
    const cudaError_t e = cudaEventRecord(sl.start, stream);
    if (e != cudaSuccess) {
      on_device_error(device_, e);
      return start::failed;
    }
    sl.s = s;
    sl.index = index;
    sl.state = slot_state::open;
    seq = head_++;
    return start::recorded;
  }

  /// Records the end event of slot `seq` on the stream its start was recorded on.
  void end(std::uint64_t seq, cudaStream_t stream, bool after_idle) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    slot& sl = at(seq);
    sl.after_idle = after_idle;
    const cudaError_t e = cudaEventRecord(sl.end, stream);
    sl.state = e == cudaSuccess ? slot_state::recorded : slot_state::failed;
    if (e != cudaSuccess) on_device_error(device_, e);
  }

  /// Reads back every finished measurement into its site. Returns how many remain pending.
  std::size_t drain(read_mode mode) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    drain_locked(mode);
    return static_cast<std::size_t>(head_ - tail_);
  }

  std::atomic<bool> owned{true};

 private:
  enum class slot_state : std::uint8_t { free, open, recorded, failed };
  struct slot {
    cudaEvent_t start = nullptr;
    cudaEvent_t end = nullptr;
    site* s = nullptr;
    std::uint64_t index = 0;
    slot_state state = slot_state::free;
    bool after_idle = false;
  };

  slot& at(std::uint64_t seq) noexcept { return slots_[seq & (slots_.size() - 1)]; }

  bool stale() const noexcept {
    const cuda_state& st = cuda();
    return st.device_off[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed) ||
           st.generation[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed) !=
               generation_;
  }

  void drain_locked(read_mode mode) noexcept {
    while (tail_ != head_) {
      slot& sl = at(tail_);
      if (sl.state == slot_state::open) break;  // its scope has not ended yet
      if (sl.state == slot_state::recorded && !stale()) {
        const cudaError_t e = mode == read_mode::wait ? cudaEventSynchronize(sl.end)
                                                      : cudaEventQuery(sl.end);
        if (e == cudaErrorNotReady) break;
        float ms = 0.0f;
        const cudaError_t t = e == cudaSuccess ? cudaEventElapsedTime(&ms, sl.start, sl.end) : e;
        if (t == cudaSuccess) {
          const auto ns = static_cast<std::uint64_t>(std::llround(double(ms) * 1e6));
          if (series* d = sl.s->device_series()) d->record(sl.index, ns, sl.after_idle);
          place_on_timeline(sl, ns);
        } else {
          on_device_error(device_, t);
        }
      }
      sl.state = slot_state::free;
      ++tail_;
    }
  }

  /// Puts the call's device side on its site's timeline, timed from the device's anchor.
  void place_on_timeline(const slot& sl, std::uint64_t ns) noexcept {
    const cuda_state& st = cuda();
    cudaEvent_t anchor = st.anchor[static_cast<std::size_t>(device_)].load(std::memory_order_acquire);
    if (anchor == nullptr) return;
    timeline_entry* e = sl.s->line.find(sl.index);
    if (e == nullptr) return;
    float ms = 0.0f;
    const cudaError_t err = cudaEventElapsedTime(&ms, anchor, sl.start);
    if (err != cudaSuccess) return forget_own_error(err);
    const double start = double(st.anchor_host_ns[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed)) +
                         double(ms) * 1e6;
    e->device_start.store(static_cast<std::uint64_t>(std::max(1.0, start)), std::memory_order_relaxed);
    e->device_ns.store(ns, std::memory_order_relaxed);
  }

  /// Adds `pairs` event pairs (doubling the ring), keeping pending slots at their sequence
  /// numbers. Its cost is the library's and is reported apart.
  bool grow_locked(std::size_t pairs) noexcept {
    const std::size_t old_size = slots_.size();
    const std::size_t new_size = old_size + pairs;
    if (new_size > max_pairs) {
      notice_board().raise(notice_kind::ring_full,
                           "more than " + std::to_string(max_pairs) +
                               " device measurements were in flight on one thread; the excess "
                               "calls are host-timed only (snapshot() more often to avoid this)");
      return false;
    }
    const auto t0 = clock::now();
    try {
      std::vector<std::pair<cudaEvent_t, cudaEvent_t>> spare;  // pairs no pending call holds
      spare.reserve(new_size);
      {
        device_guard on(device_);
        for (std::size_t i = 0; i < pairs; ++i) {
          cudaEvent_t a = nullptr, b = nullptr;
          cudaError_t e = cudaEventCreate(&a);
          if (e == cudaSuccess && (e = cudaEventCreate(&b)) != cudaSuccess) (void)cudaEventDestroy(a);
          if (e != cudaSuccess) {
            for (auto& [x, y] : spare) {
              (void)cudaEventDestroy(x);
              (void)cudaEventDestroy(y);
            }
            on_device_error(device_, e);
            return false;
          }
          spare.emplace_back(a, b);
        }
      }
      // Pending calls keep their slot's events at their sequence number; every other pair,
      // old or new, fills the free slots.
      std::vector<slot> next(new_size);
      std::vector<bool> pending(old_size, false), placed(new_size, false);
      for (std::uint64_t q = tail_; q != head_; ++q) {
        next[q & (new_size - 1)] = slots_[q & (old_size - 1)];
        placed[q & (new_size - 1)] = true;
        pending[q & (old_size - 1)] = true;
      }
      for (std::size_t i = 0; i < old_size; ++i)
        if (!pending[i]) spare.emplace_back(slots_[i].start, slots_[i].end);
      std::size_t k = 0;
      for (std::size_t i = 0; i < new_size; ++i) {
        if (placed[i]) continue;
        next[i].start = spare[k].first;
        next[i].end = spare[k].second;
        ++k;
      }
      slots_.swap(next);
    } catch (...) {
      return false;
    }
    cuda_state& st = cuda();
    st.event_pool_ns.fetch_add(ns_between(t0, clock::now()), std::memory_order_relaxed);
    st.event_pairs.fetch_add(pairs, std::memory_order_relaxed);
    return true;
  }

  const int device_;
  const unsigned generation_;
  std::mutex mutex_;
  std::vector<slot> slots_;  // size is a power of two
  std::uint64_t head_ = 0, tail_ = 0;
};

}  // namespace warmup::detail
