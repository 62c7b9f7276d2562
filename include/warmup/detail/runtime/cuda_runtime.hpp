/// @file
/// @brief What the library asks of the CUDA runtime, and how it stays out of the program's way.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdlib>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "warmup/detail/cuda_driver.hpp"
#include "warmup/detail/runtime/notices.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline constexpr int max_devices = 64;

/// "cudaErrorX: text" for messages.
inline std::string describe(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

/// Errors that a failing call of the library's own can cause (a stale event, a device that went
/// away). Those the library clears from the runtime's last-error slot; any other error belongs to
/// the program (a sticky fault of its kernel, say) and is left where the program will see it.
inline bool library_caused(cudaError_t e) noexcept {
  switch (e) {
    case cudaErrorInvalidResourceHandle:
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevice:
    case cudaErrorContextIsDestroyed:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorNotReady:
      return true;
    default:
      return false;
  }
}

/// "cudaErrorX: text" for a driver result. The runtime's error codes are the driver's for every
/// error a library call can meet (400 invalid handle, 700 illegal address, 709 context
/// destroyed, ...), so a program reads the same name it gets from its own runtime calls.
inline std::string describe(CUresult r) { return describe(static_cast<cudaError_t>(r)); }

/// Called after a library call failed: the program's own pending error, if it had one, was
/// checked before the call (see device_timer), so the only error cleared here is the library's.
inline void forget_own_error(cudaError_t e) noexcept {
  if (library_caused(e)) (void)cudaGetLastError();
}

/// Process-wide state of device timing.
struct cuda_state {
  enum : int { unknown = 0, available = 1, unavailable = 2 };
  std::atomic<int> runtime{unknown};
  std::array<std::atomic<bool>, max_devices> device_off{};
  /// Bumped when a device's events went stale (a reset): rings of older generations are dropped.
  std::array<std::atomic<unsigned>, max_devices> generation{};
  std::string why_unavailable;  // written once, before runtime becomes unavailable
  std::mutex probe;             ///< one thread decides whether device timing is possible

  /// The driver's functions (detail/cuda_driver.hpp), copied here once device timing was found
  /// possible: this state and the rings are shared by every copy of the library in the process
  /// (detail/process.hpp) and may outlive a copy unloaded with dlclose; the functions are
  /// libcuda's, which outlives them all. Written before `runtime` becomes available.
  cuda_driver driver;

  /// Per device, an event whose host time is known: device timestamps go on the host timeline
  /// as that time plus the event's distance to the anchor.
  std::array<std::atomic<cudaEvent_t>, max_devices> anchor{};
  std::array<std::atomic<std::uint64_t>, max_devices> anchor_host_ns{};
  /// Per device, the event-pair floor in ns plus one (0: not measured); see measure_pair_floor.
  std::array<std::atomic<std::uint64_t>, max_devices> pair_floor_ns{};

  /// Set once the program is exiting and the library must make no further CUDA call.
  std::atomic<bool> closed{false};
  /// Set in a forked child whose parent had initialised CUDA: the driver is unusable there.
  std::atomic<bool> forked_after_init{false};
  /// Set in a child process, forked or started afresh by its parent (report_beside_parent): its
  /// report at exit goes to files of its own, beside its parent's.
  std::atomic<bool> beside_parent{false};
  /// Run at exit before the CUDA runtime's teardown (set when a report at exit is asked for).
  void (*register_before_teardown)() = nullptr;
  /// Called once the report at exit was written, by whichever copy wrote it: set by warmup's NVTX
  /// tool, which counts the ranges that end later (in no report) and tells its launcher.
  std::atomic<void (*)()> after_exit_report{nullptr};

  // The library's own costs, reported apart from every measurement.
  std::atomic<std::uint64_t> event_pool_ns{0};
  std::atomic<std::uint64_t> event_pairs{0};
  std::atomic<std::uint64_t> probe_ns{0};  ///< looking for a GPU where none could be used
};

inline cuda_state& cuda() noexcept {
  return shared<cuda_state, slot::cuda>();  // one per process, never destroyed: no CUDA call after teardown
}

/// Decides once whether device timing is possible. Runs inside the first device-timed scope of
/// the process: if that scope's work is the program's first CUDA call, the driver
/// initialisation this triggers is the one the program would have paid there anyway.
inline bool runtime_available() noexcept {
  cuda_state& st = cuda();
  if (st.closed.load(std::memory_order_acquire)) return false;
  const int r = st.runtime.load(std::memory_order_acquire);
  if (r != cuda_state::unknown) return r == cuda_state::available;
  std::lock_guard<std::mutex> lock(st.probe);
  if (st.runtime.load(std::memory_order_acquire) != cuda_state::unknown)
    return st.runtime.load() == cuda_state::available;
  // Device timing off for good, saying why (the text made inside the guard: it may allocate).
  const auto off = [&st](auto why) {
    WARMUP_TRY {
      st.why_unavailable = why();
    } WARMUP_CATCH_ALL {
    }
    st.runtime.store(cuda_state::unavailable, std::memory_order_release);
    notice_board().raise(notice_kind::no_device,
                         "device timing is off: " + st.why_unavailable + "; host timing goes on");
    return false;
  };
  if (st.forked_after_init.load(std::memory_order_relaxed))  // a child cannot use it: no CUDA call
    return off([] { return std::string("this process was forked from one that had initialised CUDA, which a child cannot use"); });
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (e != cudaSuccess) (void)cudaGetLastError();  // ours: nothing of the program's ran yet
    return off([e] {
      return e != cudaSuccess ? "cudaGetDeviceCount failed (" + describe(e) + ")" : std::string("no CUDA device is visible");
    });
  }
  // The runtime has loaded libcuda by now: the driver's table is there.
  const cuda_driver* drv = cuda_driver_table();
  if (drv == nullptr || !drv->has(driver_feature::device_timing))
    return off([] { return std::string("the CUDA driver lacks an entry point the library needs (driver too old?)"); });
  st.driver = *drv;
  st.runtime.store(cuda_state::available, std::memory_order_release);
  // The runtime has registered its own teardown by now; a handler registered after it runs
  // before it.
  if (st.register_before_teardown != nullptr) st.register_before_teardown();
  return true;
}

/// Whether the device's primary context exists, asked without creating it: creating it here
/// would move the program's context creation out of its own measurement.
inline bool context_exists(int device) noexcept {
  const cuda_driver& drv = cuda().driver;
  if (!drv.has(driver_feature::context_probe)) return true;
  CUdevice d{};
  if (drv.device_get(&d, device) != CUDA_SUCCESS) return false;
  unsigned flags = 0;
  int active = 0;
  if (drv.primary_ctx_state(d, &flags, &active) != CUDA_SUCCESS) return false;
  return active != 0;
}

/// Whether a CUDA context is current on the calling thread, asked of the driver only where the
/// library already found CUDA working (so never initialising it); empty where not known.
inline std::optional<bool> current_context_exists() noexcept {
  const cuda_state& st = cuda();
  if (st.runtime.load(std::memory_order_acquire) != cuda_state::available) return std::nullopt;
  CUcontext c = nullptr;
  if (st.driver.ctx_get_current(&c) != CUDA_SUCCESS) return std::nullopt;
  return c != nullptr;
}

/// The null stream, the legacy stream and the per-thread stream belong to the current device;
/// any other stream knows its own.
inline bool is_implicit_stream(cudaStream_t s) noexcept {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

/// Makes `device` current for the life of this object, and puts the previous device back.
class device_guard {
 public:
  explicit device_guard(int device) noexcept {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device)
      switched_ = cudaSetDevice(device) == cudaSuccess;
  }
  ~device_guard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
