/// @file
/// @brief The CUDA driver's functions the library calls: one table, filled once, one way (the
/// driver's own `cuGetProcAddress`, taken from the libcuda the program loaded).
///
/// Every part of the library that calls the driver reads this table: device timing
/// (detail/runtime/cuda_runtime.hpp keeps a copy in the process's shared state), the memory
/// probes (detail/runtime/device_memory.hpp), CUPTI's pool-growth callback
/// (detail/analysis/cupti_callbacks.hpp) and prewarm's kernel loading. Why the driver's lookup
/// and not the runtime's `cudaGetDriverEntryPointByVersion`: some callers must not call the
/// runtime at all (CUPTI's callbacks run inside the program's driver calls; a first call's
/// memory probe may come before the library asked the runtime anything, and asking would
/// initialise it), and a failed driver lookup leaves the runtime's last-error slot to the
/// program. A device-timed scope calls the driver's functions directly, not the runtime's
/// wrappers of them, because the wrappers cost several times as much (BENCHMARKS.md). Why
/// here, in the ground: CUPTI (analysis/) and the runtime both read it.
///
/// The table never loads or initialises the driver: where the program has not loaded libcuda,
/// `cuda_driver_table()` is nullptr and is looked for again at the next call, so the driver is
/// seen once the program loads it. Once found, it is filled once and kept (thread-safe: a
/// function-local static). A function the driver lacks turns off the features that need it,
/// each saying which one (`missing`); nothing is called through a null pointer.
///
/// @code
///   if (const warmup::detail::cuda_driver* d = warmup::detail::cuda_driver_table())
///     if (d->has(warmup::detail::driver_feature::host_memory_kind)) { /* d->pointer_get_attribute(...) */ }
/// @endcode
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include <dlfcn.h>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// What the library does with the driver; each needs the functions its rows name.
enum class driver_feature : std::uint8_t {
  device_timing,     ///< a scope's events on an explicit stream, the rings' reads
  context_probe,     ///< whether a device's primary context exists, without creating it
  memory_free,       ///< the free memory of the current device, for a first call
  pool_reserve,      ///< a stream-ordered pool's reserved bytes (pool growth)
  host_memory_kind,  ///< whether a copy's host memory is pinned or pageable
  kernel_loading,    ///< prewarm's check that a kernel is loaded (CUDA 12.4)
};
inline constexpr std::size_t driver_feature_count = 6;

/// The bit of a feature in a row's mask.
constexpr std::uint32_t needed_by(driver_feature f) noexcept { return std::uint32_t{1} << static_cast<unsigned>(f); }

#define WARMUP_DETAIL_DRIVER_TIMING needed_by(driver_feature::device_timing)
#define WARMUP_DETAIL_DRIVER_CONTEXT needed_by(driver_feature::context_probe)
#define WARMUP_DETAIL_DRIVER_FREE needed_by(driver_feature::memory_free)
#define WARMUP_DETAIL_DRIVER_POOL needed_by(driver_feature::pool_reserve)
#define WARMUP_DETAIL_DRIVER_HOST needed_by(driver_feature::host_memory_kind)
#define WARMUP_DETAIL_DRIVER_KERNEL needed_by(driver_feature::kernel_loading)

#if CUDA_VERSION >= 12040
#define WARMUP_DETAIL_DRIVER_KERNEL_ROWS(X)                                                             \
  X(func_is_loaded, "cuFuncIsLoaded", 12040, WARMUP_DETAIL_DRIVER_KERNEL, (CUfunctionLoadingState*, CUfunction)) \
  X(func_load, "cuFuncLoad", 12040, WARMUP_DETAIL_DRIVER_KERNEL, (CUfunction))
#else
#define WARMUP_DETAIL_DRIVER_KERNEL_ROWS(X)
#endif

/// The table's rows: (member, the driver's name, the ABI version whose signature the member's
/// type spells, the features that need it, the parameters). Every function returns CUresult.
/// cuStreamGetCtx at 12000: before it gained a green-context argument. cuStreamGetDevice (12.8)
/// is needed by nothing: the pool's device comes from the context where it is missing.
#define WARMUP_DETAIL_DRIVER_FUNCTIONS(X)                                                                          \
  X(stream_get_ctx, "cuStreamGetCtx", 12000, WARMUP_DETAIL_DRIVER_TIMING, (CUstream, CUcontext*))                   \
  X(stream_is_capturing, "cuStreamIsCapturing", 12000, WARMUP_DETAIL_DRIVER_TIMING, (CUstream, CUstreamCaptureStatus*)) \
  X(event_record, "cuEventRecord", 12000, WARMUP_DETAIL_DRIVER_TIMING, (CUevent, CUstream))                         \
  X(event_elapsed, "cuEventElapsedTime", 12080, WARMUP_DETAIL_DRIVER_TIMING, (float*, CUevent, CUevent))            \
  X(event_synchronize, "cuEventSynchronize", 12000, WARMUP_DETAIL_DRIVER_TIMING, (CUevent))                         \
  X(ctx_get_current, "cuCtxGetCurrent", 12000, WARMUP_DETAIL_DRIVER_TIMING | WARMUP_DETAIL_DRIVER_FREE, (CUcontext*)) \
  X(exchange_capture_mode, "cuThreadExchangeStreamCaptureMode", 12000, WARMUP_DETAIL_DRIVER_TIMING,                 \
    (CUstreamCaptureMode*))                                                                                         \
  X(device_get, "cuDeviceGet", 12000, WARMUP_DETAIL_DRIVER_CONTEXT, (CUdevice*, int))                               \
  X(primary_ctx_state, "cuDevicePrimaryCtxGetState", 12000, WARMUP_DETAIL_DRIVER_CONTEXT, (CUdevice, unsigned*, int*)) \
  X(mem_get_info, "cuMemGetInfo", 12000, WARMUP_DETAIL_DRIVER_FREE, (std::size_t*, std::size_t*))                   \
  X(stream_get_device, "cuStreamGetDevice", 12080, 0, (CUstream, CUdevice*))                                        \
  X(ctx_get_device, "cuCtxGetDevice", 12000, WARMUP_DETAIL_DRIVER_POOL, (CUdevice*))                                \
  X(device_get_mem_pool, "cuDeviceGetMemPool", 12000, WARMUP_DETAIL_DRIVER_POOL, (CUmemoryPool*, CUdevice))         \
  X(mem_pool_get_attribute, "cuMemPoolGetAttribute", 12000, WARMUP_DETAIL_DRIVER_POOL,                              \
    (CUmemoryPool, CUmemPool_attribute, void*))                                                                     \
  X(pointer_get_attribute, "cuPointerGetAttribute", 12000, WARMUP_DETAIL_DRIVER_HOST,                               \
    (void*, CUpointer_attribute, CUdeviceptr))                                                                      \
  WARMUP_DETAIL_DRIVER_KERNEL_ROWS(X)

/// A function's address by its driver name at an ABI version, or nullptr: the shape of
/// cuGetProcAddress, so that a test can hand the table a driver of its own.
using driver_lookup = void* (*)(const char* name, int version, void* context) noexcept;

/// The driver's functions, and which features are off for want of one.
struct cuda_driver {
#define WARMUP_DETAIL_MEMBER(member, name, version, features, params) CUresult(CUDAAPI* member) params = nullptr;
  WARMUP_DETAIL_DRIVER_FUNCTIONS(WARMUP_DETAIL_MEMBER)
#undef WARMUP_DETAIL_MEMBER

  /// Per feature, the first function it needs that the driver lacks; nullptr: the feature is on.
  /// A table not (yet) filled from a driver has every feature off.
  const char* lacking[driver_feature_count];
  cuda_driver() noexcept {
    for (const char*& l : lacking) l = "(the driver was not looked up)";
  }

  bool has(driver_feature f) const noexcept { return lacking[static_cast<std::size_t>(f)] == nullptr; }
  /// The driver's name of the function that turned `f` off, or nullptr.
  const char* missing(driver_feature f) const noexcept { return lacking[static_cast<std::size_t>(f)]; }

  /// Fills every row through `lookup`; a feature is off where one of its functions is missing.
  static cuda_driver look_up(driver_lookup lookup, void* context) noexcept {
    cuda_driver d;
    for (const char*& l : d.lacking) l = nullptr;
    const auto take = [&](auto& fn, const char* name, int version, std::uint32_t features) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lookup(name, version, context));
      if (fn != nullptr) return;
      for (std::size_t f = 0; f < driver_feature_count; ++f)
        if ((features & (std::uint32_t{1} << f)) != 0 && d.lacking[f] == nullptr) d.lacking[f] = name;
    };
#define WARMUP_DETAIL_TAKE(member, name, version, features, params) take(d.member, name, version, features);
    WARMUP_DETAIL_DRIVER_FUNCTIONS(WARMUP_DETAIL_TAKE)
#undef WARMUP_DETAIL_TAKE
#if CUDA_VERSION < 12040
    d.lacking[static_cast<std::size_t>(driver_feature::kernel_loading)] = "cuFuncLoad";  // not in these headers
#endif
    return d;
  }

  /// The device's current pool (the one cudaMallocAsync draws from) for `stream`'s device;
  /// nullptr where it cannot be read. Needs pool_reserve.
  CUmemoryPool pool_of(CUstream stream) const noexcept {
    CUdevice dev{};
    const CUresult r = stream_get_device != nullptr ? stream_get_device(stream, &dev) : ctx_get_device(&dev);
    CUmemoryPool pool = nullptr;
    if (r != CUDA_SUCCESS || device_get_mem_pool(&pool, dev) != CUDA_SUCCESS) return nullptr;
    return pool;
  }

  /// The bytes `pool` holds reserved now. Needs pool_reserve.
  std::optional<std::uint64_t> reserved(CUmemoryPool pool) const noexcept {
    cuuint64_t bytes = 0;
    if (pool == nullptr || mem_pool_get_attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &bytes) != CUDA_SUCCESS)
      return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
  }
};

#undef WARMUP_DETAIL_DRIVER_TIMING
#undef WARMUP_DETAIL_DRIVER_CONTEXT
#undef WARMUP_DETAIL_DRIVER_FREE
#undef WARMUP_DETAIL_DRIVER_POOL
#undef WARMUP_DETAIL_DRIVER_HOST
#undef WARMUP_DETAIL_DRIVER_KERNEL
#undef WARMUP_DETAIL_DRIVER_KERNEL_ROWS
#undef WARMUP_DETAIL_DRIVER_FUNCTIONS

/// cuGetProcAddress as the table's lookup; `context` is the driver's function.
inline void* driver_proc_address(const char* name, int version, void* context) noexcept {
  using get_proc_address_fn = CUresult(CUDAAPI*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  const auto get = reinterpret_cast<get_proc_address_fn>(context);
  void* p = nullptr;
  CUdriverProcAddressQueryResult q{};
  if (get(name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || q != CU_GET_PROC_ADDRESS_SUCCESS)
    return nullptr;
  return p;
}

/// A lookup that finds nothing: the table of a driver too old to have cuGetProcAddress_v2.
inline void* driver_lacks_everything(const char*, int, void*) noexcept { return nullptr; }

/// @brief The driver's functions, looked up once the program has loaded libcuda; nullptr before
/// (and looked for again at the next call: dlopen with RTLD_NOLOAD, which never loads it).
inline const cuda_driver* cuda_driver_table() noexcept {
  static std::atomic<const cuda_driver*> found{nullptr};
  if (const cuda_driver* d = found.load(std::memory_order_acquire)) return d;
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  void* get = ::dlsym(lib, "cuGetProcAddress_v2");
  ::dlclose(lib);  // NOLOAD took a reference to a library that stays loaded
  // A driver that does not answer a lookup yet is asked again later, not written off for good.
  if (get != nullptr && driver_proc_address("cuDriverGetVersion", 12000, get) == nullptr) return nullptr;
  static const cuda_driver table =
      get != nullptr ? cuda_driver::look_up(&driver_proc_address, get) : cuda_driver::look_up(&driver_lacks_everything, nullptr);
  found.store(&table, std::memory_order_release);
  return &table;
}

/// Whether a CUDA driver is installed at all, for a message only: loads libcuda.so.1 where the
/// program has not (and lets it go again), so call it only where nothing else will use it, as
/// after CUPTI refused to start.
inline bool cuda_driver_installed() noexcept {
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) lib = ::dlopen("libcuda.so.1", RTLD_LAZY);
  if (lib == nullptr) return false;
  ::dlclose(lib);
  return true;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
