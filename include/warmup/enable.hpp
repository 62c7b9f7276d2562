/// @file
/// @brief Turning measurement off and on at run time, and how often warm sites are device-timed.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
/// Read by every scope at entry, before anything else: one relaxed load when off.
inline std::atomic<bool> measuring{true};
/// Whether warm sites are device-timed on a sample of calls (the default) or on every call.
inline std::atomic<bool> sample_device{true};

// The switches are this copy's of the library; these set them in every copy of the process
// (detail/process.hpp), where there are several: shared libraries built with hidden
// visibility, plugins.
inline void set_measuring(bool on) noexcept {
#if WARMUP_ENABLED
  broadcast(&process_anchor::measuring, &copy_entry::measuring, on, measuring);
#else
  measuring.store(on, std::memory_order_relaxed);
#endif
}
inline void set_sampling(bool adaptive) noexcept {
#if WARMUP_ENABLED
  broadcast(&process_anchor::sample_device, &copy_entry::sample_device, adaptive, sample_device);
#else
  sample_device.store(adaptive, std::memory_order_relaxed);
#endif
}
}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE

/// @brief Stops measuring: from now on a scope costs one atomic load (under 2 ns) and records
/// nothing, emits no NVTX range and makes no CUDA call. What was measured stays in the report.
/// For a compile-time switch that removes even that, define `WARMUP_DISABLE`.
/// \code
///   if (!profiling_requested) warmup::disable();
/// \endcode
inline void disable() noexcept { detail::set_measuring(false); }

/// @brief Measures again after `disable()`. Scopes already open when the switch flips are not
/// measured.
inline void enable() noexcept { detail::set_measuring(true); }

/// @brief Whether scopes measure now.
inline bool is_enabled() noexcept { return WARMUP_ENABLED && detail::measuring.load(std::memory_order_relaxed); }

/// @brief How device-timed scopes choose the calls they time on the device.
enum class device_sampling {
  /// Every call while a site warms up (its first 64 calls) and again after its host time moves
  /// to a quarter or four times its typical value for eight calls in a row;
  /// once it is steady, 1 call in 2^k, k growing by one every 256 calls up to 1 in 64. Host
  /// time is still taken on every call. The default.
  adaptive,
  /// Every call, always: two event records per call.
  every_call,
};

/// @brief Chooses the device sampling policy (see `device_sampling`). Thread-safe.
/// \code
///   warmup::set_device_sampling(warmup::device_sampling::every_call);
/// \endcode
inline void set_device_sampling(device_sampling s) noexcept {
  detail::set_sampling(s == device_sampling::adaptive);
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
