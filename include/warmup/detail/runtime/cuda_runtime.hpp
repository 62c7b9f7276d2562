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
#include <string>
#include <type_traits>

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

  using primary_ctx_state_fn = CUresult(CUDAAPI*)(CUdevice, unsigned*, int*);
  using device_get_fn = CUresult(CUDAAPI*)(CUdevice*, int);
  primary_ctx_state_fn primary_ctx_state = nullptr;
  device_get_fn device_get = nullptr;
  /// cuMemGetInfo, for the memory a first call takes (site::first_call_begins); optional.
  CUresult(CUDAAPI* mem_get_info)(std::size_t*, std::size_t*) = nullptr;

  /// The driver calls on the hot path of a scope on an explicit stream. They cost a third of
  /// their runtime wrappers (cuStreamIsCapturing 29 ns against 80 ns, BENCHMARKS.md) and
  /// never touch the runtime's last-error slot, which stays the program's alone.
  struct driver_calls {
    CUresult(CUDAAPI* stream_get_ctx)(CUstream, CUcontext*) = nullptr;
    CUresult(CUDAAPI* stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
    CUresult(CUDAAPI* event_record)(CUevent, CUstream) = nullptr;
    CUresult(CUDAAPI* event_elapsed)(float*, CUevent, CUevent) = nullptr;
    CUresult(CUDAAPI* event_synchronize)(CUevent) = nullptr;
    CUresult(CUDAAPI* ctx_get_current)(CUcontext*) = nullptr;
    CUresult(CUDAAPI* exchange_capture_mode)(CUstreamCaptureMode*) = nullptr;
    bool complete() const noexcept {
      return stream_get_ctx && stream_is_capturing && event_record && event_elapsed &&
             event_synchronize && ctx_get_current && exchange_capture_mode;
    }
  } driver;

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
  /// Set in any forked child: its report at exit goes to files of its own.
  std::atomic<bool> forked{false};
  /// Run at exit before the CUDA runtime's teardown (set when a report at exit is asked for).
  void (*register_before_teardown)() = nullptr;

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
  if (st.forked_after_init.load(std::memory_order_relaxed)) {
    // CUDA cannot be used in a child forked after its parent initialised it: no CUDA call.
    WARMUP_TRY {
      st.why_unavailable = "this process was forked from one that had initialised CUDA, which a child cannot use";
    } WARMUP_CATCH_ALL {
    }
    st.runtime.store(cuda_state::unavailable, std::memory_order_release);
    notice_board().raise(notice_kind::no_device,
                         "device timing is off: " + st.why_unavailable + "; host timing goes on");
    return false;
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (e != cudaSuccess) (void)cudaGetLastError();  // ours: nothing of the program's ran yet
    WARMUP_TRY {
      st.why_unavailable = e != cudaSuccess ? "cudaGetDeviceCount failed (" + describe(e) + ")"
                                            : std::string("no CUDA device is visible");
    } WARMUP_CATCH_ALL {
    }
    st.runtime.store(cuda_state::unavailable, std::memory_order_release);
    notice_board().raise(notice_kind::no_device,
                         "device timing is off: " + st.why_unavailable + "; host timing goes on");
    return false;
  }
  // Each at the ABI version whose signature the pointer type spells (12000: before
  // cuStreamGetCtx gained a green-context argument).
  const auto entry = [](const char* name, auto& fn, unsigned version) {
    cudaDriverEntryPointQueryResult q{};
    void* p = nullptr;
    if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    else
      (void)cudaGetLastError();  // ours: the program has made no CUDA call that could fail yet
  };
  entry("cuDevicePrimaryCtxGetState", st.primary_ctx_state, 12000);
  entry("cuDeviceGet", st.device_get, 12000);
  entry("cuMemGetInfo", st.mem_get_info, 12000);
  entry("cuStreamGetCtx", st.driver.stream_get_ctx, 12000);
  entry("cuStreamIsCapturing", st.driver.stream_is_capturing, 12000);
  entry("cuEventRecord", st.driver.event_record, 12000);
  entry("cuEventElapsedTime", st.driver.event_elapsed, 12080);
  entry("cuEventSynchronize", st.driver.event_synchronize, 12000);
  entry("cuCtxGetCurrent", st.driver.ctx_get_current, 12000);
  entry("cuThreadExchangeStreamCaptureMode", st.driver.exchange_capture_mode, 12000);
  if (!st.driver.complete()) {
    WARMUP_TRY {
      st.why_unavailable = "the CUDA driver lacks an entry point the library needs (driver too old?)";
    } WARMUP_CATCH_ALL {
    }
    st.runtime.store(cuda_state::unavailable, std::memory_order_release);
    notice_board().raise(notice_kind::no_device,
                         "device timing is off: " + st.why_unavailable + "; host timing goes on");
    return false;
  }
  st.runtime.store(cuda_state::available, std::memory_order_release);
  // The runtime has registered its own teardown by now; a handler registered after it runs
  // before it.
  if (st.register_before_teardown != nullptr) st.register_before_teardown();
  return true;
}

/// Whether the device's primary context exists, asked without creating it: creating it here
/// would move the program's context creation out of its own measurement.
inline bool context_exists(int device) noexcept {
  const cuda_state& st = cuda();
  if (st.primary_ctx_state == nullptr || st.device_get == nullptr) return true;
  CUdevice d{};
  if (st.device_get(&d, device) != CUDA_SUCCESS) return false;
  unsigned flags = 0;
  int active = 0;
  if (st.primary_ctx_state(d, &flags, &active) != CUDA_SUCCESS) return false;
  return active != 0;
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
