/// @file
/// @brief Pools of CUDA event pairs, recorded by scopes and read back later without blocking.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"
#include "warmup/detail/record/device_sink.hpp"
#include "warmup/detail/runtime/notices.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Whether reading device measurements may wait for the GPU.
enum class read_mode { poll, wait };

/// Sets the calling thread's stream-capture mode to relaxed for its lifetime, so that the
/// library's event queries never invalidate a capture another thread has under way. Driver
/// calls: the runtime's last-error slot stays the program's.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() noexcept {
    const auto exchange = cuda().driver.exchange_capture_mode;
    ok_ = exchange != nullptr && exchange(&mode_) == CUDA_SUCCESS;
  }
  ~relaxed_capture_mode() {
    if (ok_) (void)cuda().driver.exchange_capture_mode(&mode_);
  }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool ok_ = false;
};

/// Reacts to a failed call of the library's own on `device` (a runtime error code, or a driver
/// result: the codes agree). A stale handle (the device was reset) retires that device's rings
/// and timing starts again with fresh events; any other error (a sticky fault of the program's
/// kernels, say) stops device timing on the device for good. Runtime errors the library caused
/// are cleared from the runtime's last-error slot; driver calls never set it.
inline void on_device_error(int device, cudaError_t e, bool from_runtime = true) noexcept {
  if (from_runtime) forget_own_error(e);
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
inline void on_device_error(int device, CUresult r) noexcept {
  on_device_error(device, static_cast<cudaError_t>(r), false);
}

/// A ring of event pairs owned by one thread for one device. The owner reserves a slot and
/// records its start event at scope entry, its end event at scope exit, without a lock: it
/// alone moves `head_`. Any thread drains finished slots oldest first under the ring's mutex,
/// stopping at the first one the GPU has not reached, and alone moves `tail_`. The owner takes
/// the mutex only when the ring is full, to drain or grow it.
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
  /// The context the ring's events belong to (the device's primary context): a stream of any
  /// other context cannot record them.
  CUcontext context() const noexcept { return context_; }
  bool usable() const noexcept { return !slots_.empty() && context_ != nullptr; }

  enum class start { recorded, full, failed };

  /// Reserves a slot and records its start event; owner thread only. `implicit`: the stream is
  /// the null, legacy or per-thread stream, recorded through the runtime (which knows which
  /// one the program's compilation means); any other stream goes through the driver. `full`:
  /// no room even after reading back what the GPU has finished; `failed`: the record failed
  /// (on_device_error has said why). Either way the call is host-timed only.
  start begin(device_sink* sink, std::uint64_t index, cudaStream_t stream, bool implicit, std::uint64_t& seq) noexcept {
    const std::uint64_t h = head_.load(std::memory_order_relaxed);
    if (h - tail_.load(std::memory_order_acquire) == slots_.size()) {
      // Full: grow first, so that reading back stays off the program's path (snapshot() does
      // it); only a ring at its largest reads back here what the GPU has finished.
      const busy_section busy;
      std::lock_guard<std::mutex> lock(mutex_);
      if (slots_.size() < max_pairs) {
        if (grow_locked(slots_.size()) == growth::failed) return start::failed;
      } else {
        drain_locked(read_mode::poll);
        if (h - tail_.load(std::memory_order_relaxed) == slots_.size()) {
          (void)grow_locked(slots_.size());  // says, once, that the ring is at its limit
          return start::full;
        }
      }
    }
    slot& sl = at(h);
    if (!record(sl.start, stream, implicit)) return start::failed;
    sl.sink = sink;
    sl.index = index;
    sl.implicit = implicit;
    sl.state.store(slot_state::open, std::memory_order_relaxed);
    seq = h;
    head_.store(h + 1, std::memory_order_release);  // publishes the slot to drainers
    return start::recorded;
  }

  /// Records the end event of slot `seq` on the stream its start was recorded on; owner only.
  void end(std::uint64_t seq, cudaStream_t stream, bool after_idle) noexcept {
    slot& sl = at(seq);
    sl.after_idle = after_idle;
    const bool ok = record(sl.end, stream, sl.implicit);
    sl.state.store(ok ? slot_state::recorded : slot_state::failed, std::memory_order_release);
  }

  /// Hands every finished measurement back to its sink. Returns how many remain pending.
  std::size_t drain(read_mode mode) noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    drain_locked(mode);
    return static_cast<std::size_t>(head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_relaxed));
  }

  std::atomic<bool> owned{true};

 private:
  enum class slot_state : std::uint8_t { free, open, recorded, failed };
  struct slot;

 public:
  /// Host memory of one measurement in flight (its two CUDA events are the driver's).
  static const std::size_t slot_bytes;

 private:
  struct slot {
    cudaEvent_t start = nullptr;
    cudaEvent_t end = nullptr;
    device_sink* sink = nullptr;  ///< who gets the time back, and the call's index there
    std::uint64_t index = 0;
    std::atomic<slot_state> state{slot_state::free};
    bool after_idle = false;
    bool implicit = false;

    slot() = default;
    slot(const slot& o) noexcept { *this = o; }
    slot& operator=(const slot& o) noexcept {
      start = o.start, end = o.end, sink = o.sink, index = o.index, after_idle = o.after_idle, implicit = o.implicit;
      state.store(o.state.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
  };

  slot& at(std::uint64_t seq) noexcept { return slots_[seq & (slots_.size() - 1)]; }

  bool record(cudaEvent_t e, cudaStream_t stream, bool implicit) noexcept {
    if (implicit) {
      const cudaError_t err = cudaEventRecord(e, stream);
      if (err != cudaSuccess) on_device_error(device_, err);
      return err == cudaSuccess;
    }
    const CUresult r = cuda().driver.event_record(reinterpret_cast<CUevent>(e), reinterpret_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS) on_device_error(device_, r);
    return r == CUDA_SUCCESS;
  }

  bool stale() const noexcept {
    const cuda_state& st = cuda();
    return st.device_off[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed) ||
           st.generation[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed) !=
               generation_;
  }

  void drain_locked(read_mode mode) noexcept {
    const auto& drv = cuda().driver;
    const std::uint64_t head = head_.load(std::memory_order_acquire);
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    while (tail != head) {
      slot& sl = at(tail);
      const slot_state state = sl.state.load(std::memory_order_acquire);
      if (state == slot_state::open) break;  // its scope has not ended yet
      if (state == slot_state::recorded && !stale()) {
        const auto end = reinterpret_cast<CUevent>(sl.end);
        // Polling asks for the elapsed time straight away: it answers "not ready" until the end
        // event is reached, so one driver call a measurement, as a raw event pair read later.
        const CUresult r = mode == read_mode::wait ? drv.event_synchronize(end) : CUDA_SUCCESS;
        float ms = 0.0f;
        const CUresult t = r == CUDA_SUCCESS ? drv.event_elapsed(&ms, reinterpret_cast<CUevent>(sl.start), end) : r;
        if (t == CUDA_ERROR_NOT_READY) break;
        if (t == CUDA_SUCCESS) {
          const auto ns = static_cast<std::uint64_t>(std::llround(double(ms) * 1e6));
          sl.sink->device_time(sl.index, ns, sl.after_idle, sl.sink->on_timeline(sl.index) ? start_on_host_clock(sl) : 0);
        } else {
          on_device_error(device_, t);
        }
      }
      sl.state.store(slot_state::free, std::memory_order_relaxed);
      tail_.store(++tail, std::memory_order_release);  // hands the slot back to the owner
    }
  }

  /// When the call's start event was reached, in steady-clock ns, timed from the device's
  /// anchor event (within tens of microseconds); 0 when the device has no anchor.
  std::uint64_t start_on_host_clock(const slot& sl) const noexcept {
    const cuda_state& st = cuda();
    cudaEvent_t anchor = st.anchor[static_cast<std::size_t>(device_)].load(std::memory_order_acquire);
    if (anchor == nullptr) return 0;
    float ms = 0.0f;
    if (st.driver.event_elapsed(&ms, reinterpret_cast<CUevent>(anchor), reinterpret_cast<CUevent>(sl.start)) != CUDA_SUCCESS)
      return 0;
    const double at = double(st.anchor_host_ns[static_cast<std::size_t>(device_)].load(std::memory_order_relaxed)) +
                      double(ms) * 1e6;
    return static_cast<std::uint64_t>(std::max(1.0, at));
  }

  /// Adds `pairs` event pairs (doubling the ring), keeping pending slots at their sequence
  /// numbers. Its cost is the library's and is reported apart.
  enum class growth { done, at_limit, failed };
  growth grow_locked(std::size_t pairs) noexcept {
    const std::size_t old_size = slots_.size();
    const std::size_t new_size = old_size + pairs;
    if (new_size > max_pairs) {
      notice_board().raise(notice_kind::ring_full,
                           "more than " + std::to_string(max_pairs) +
                               " device measurements were in flight on one thread; the excess "
                               "calls are host-timed only (snapshot() more often to avoid this)");
      return growth::at_limit;
    }
    // Events are made through the runtime, whose failures land in the program's last-error
    // slot: with an error of the program's pending there, the library makes no such call.
    if (cudaPeekAtLastError() != cudaSuccess) return growth::failed;
    const auto t0 = clock::now();
    WARMUP_TRY {
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
            return growth::failed;
          }
          spare.emplace_back(a, b);
        }
        if (context_ == nullptr && cuda().driver.ctx_get_current(&context_) != CUDA_SUCCESS) context_ = nullptr;
      }
      // Pending calls keep their slot's events at their sequence number; every other pair,
      // old or new, fills the free slots.
      std::vector<slot> next(new_size);
      std::vector<bool> pending(old_size, false), placed(new_size, false);
      const std::uint64_t head = head_.load(std::memory_order_relaxed);
      for (std::uint64_t q = tail_.load(std::memory_order_relaxed); q != head; ++q) {
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
    } WARMUP_CATCH_ALL {
      return growth::failed;
    }
    cuda_state& st = cuda();
    st.event_pool_ns.fetch_add(ns_between(t0, clock::now()), std::memory_order_relaxed);
    st.event_pairs.fetch_add(pairs, std::memory_order_relaxed);
    return growth::done;
  }

  const int device_;
  const unsigned generation_;
  CUcontext context_ = nullptr;
  std::mutex mutex_;          // drainers, and the owner when the ring is full
  std::vector<slot> slots_;   // size is a power of two; resized only by the owner, under mutex_
  std::atomic<std::uint64_t> head_{0};  // written by the owner alone
  std::atomic<std::uint64_t> tail_{0};  // written under mutex_ alone
};

inline const std::size_t event_ring::slot_bytes = sizeof(event_ring::slot);

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
