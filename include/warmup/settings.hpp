/// @file
/// @brief Every run-time setting, one to one with the `WARMUP_*` environment variables.
///
/// | Variable                 | Function                                   | Range, default                |
/// |--------------------------|--------------------------------------------|-------------------------------|
/// | `WARMUP_ENABLE`          | `enable()`, `disable()`, `is_enabled()`    | on                            |
/// | `WARMUP_DEVICE_SAMPLING` | `set_device_sampling()`, `device_sampling_policy()` | adaptive              |
/// | `WARMUP_IDLE_MS`         | `set_idle_threshold()`, `idle_threshold()` | 1 ms to 1 h, 1 s              |
/// | `WARMUP_TIMELINE_CALLS`  | `set_timeline_calls()`, `timeline_calls()` | 1 to 100000, 16               |
/// | `WARMUP_ATTRIBUTION`     | `set_attribution()`, `attribution_enabled()` | off                         |
/// | `WARMUP_CPU_SAMPLING`    | `set_cpu_sampling()`, `cpu_sampling_interval()` | off; 100 us to 1 s, or on (1 ms) |
/// | `WARMUP_REPORT`          | `write_report()` (report_file.hpp)         | at exit, when set             |
/// | `WARMUP_CLOCK`           | none: read once, before the first scope    | `auto` (the cycle counter where trusted), `steady` |
///
/// The variables are read once, before `main` (detail/runtime/environment.hpp); each value is checked,
/// and one out of range or not understood is said on stderr and ignored. The functions take the
/// same ranges: a value outside is said once (a report notice) and the nearest bound used.
/// Every setting is thread-safe and applies to every copy of the library in the process.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "warmup/config.hpp"
#include "warmup/detail/record/process.hpp"

#if WARMUP_ENABLED
#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/record/recurrence.hpp"
#include "warmup/detail/record/timeline.hpp"
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The variables, in the table's order, and the settings they mirror.
struct setting_variable {
  std::string_view name;
  std::string_view function;
};
inline constexpr setting_variable variables[] = {
    {"WARMUP_REPORT", "write_report"},
    {"WARMUP_ENABLE", "enable"},
    {"WARMUP_DEVICE_SAMPLING", "set_device_sampling"},
    {"WARMUP_IDLE_MS", "set_idle_threshold"},
    {"WARMUP_TIMELINE_CALLS", "set_timeline_calls"},
    {"WARMUP_ATTRIBUTION", "set_attribution"},
    {"WARMUP_CPU_SAMPLING", "set_cpu_sampling"},
    {"WARMUP_CLOCK", "(none: chosen before the first scope)"},
};

/// Loads CUPTI and starts collecting cause records, or stops (detail/runtime/runtime.hpp). Returns
/// whether records are collected. Defined weakly by every file that compiles the runtime (see
/// detail/record/site.hpp, start_runtime_...): a file built light only declares it.
bool start_attribution(bool on) noexcept;

/// The ranges the variables and the functions share.
inline constexpr std::chrono::milliseconds idle_min{1}, idle_max{3'600'000};
inline constexpr std::uint32_t timeline_calls_min = 1, timeline_calls_max = 100'000;
inline constexpr std::chrono::microseconds cpu_sampling_min{100}, cpu_sampling_max{1'000'000}, cpu_sampling_on{1000};

/// Read by every scope at entry, before anything else: one relaxed load when off.
inline std::atomic<bool> measuring{true};
/// Whether warm sites are device-timed on a sample of calls (the default) or on every call.
inline std::atomic<bool> sample_device{true};

// The two switches above are this copy's of the library, read on the hot path; these set them
// in every copy of the process (detail/record/process.hpp), where there are several: shared
// libraries built with hidden visibility, plugins.
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

/// Says once that a setting was given a value outside its range.
#if WARMUP_ENABLED
[[gnu::cold]] inline void out_of_range(std::string_view call, std::string_view range) noexcept {
  WARMUP_TRY {
    notice_board().raise(notice_kind::bad_setting, std::string(call) + " is outside " + std::string(range) +
                                                       "; the nearest of those is used");
  } WARMUP_CATCH_ALL {
  }
}
#endif
}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE

/// @brief Stops measuring (`WARMUP_ENABLE=0`): from now on a scope costs one atomic load (under
/// 2 ns) and records nothing, emits no NVTX range and makes no CUDA call. What was measured
/// stays in the report. For a compile-time switch that removes even that, define
/// `WARMUP_DISABLE`.
/// \code
///   if (!profiling_requested) warmup::disable();
/// \endcode
inline void disable() noexcept { detail::set_measuring(false); }

/// @brief Measures again after `disable()`. Scopes already open when the switch flips are not
/// measured.
inline void enable() noexcept { detail::set_measuring(true); }

/// @brief Whether scopes measure now.
inline bool is_enabled() noexcept { return WARMUP_ENABLED && detail::measuring.load(std::memory_order_relaxed); }

/// @brief How device-timed scopes choose the calls they time on the device
/// (`WARMUP_DEVICE_SAMPLING=adaptive` or `every_call`).
enum class device_sampling {
  /// Every call while a site warms up (its first 64 calls) and again after its host time moves
  /// to a quarter or four times its typical value for eight calls in a row;
  /// once it is steady, 1 call in 2^k, k growing by one every 256 calls up to 1 in 64. Host
  /// time is still taken on every call. The default.
  adaptive,
  /// Every call, always: two event records per call.
  every_call,
};

/// @brief Chooses the device sampling policy (see `device_sampling`).
/// \code
///   warmup::set_device_sampling(warmup::device_sampling::every_call);
/// \endcode
inline void set_device_sampling(device_sampling s) noexcept { detail::set_sampling(s == device_sampling::adaptive); }

/// @brief The device sampling policy in force.
inline device_sampling device_sampling_policy() noexcept {
  return detail::sample_device.load(std::memory_order_relaxed) ? device_sampling::adaptive : device_sampling::every_call;
}

/// @brief Sets how long a site must have been idle before its next call is examined as a
/// possible cold recurrence (`WARMUP_IDLE_MS`; default 1 s, from 1 ms to 1 h). Such a call
/// that runs above the site's steady band is reported under `cold_recurrences`, not folded
/// into the steady p99. Costs an atomic store.
/// \code
///   warmup::set_idle_threshold(std::chrono::milliseconds(200));
/// \endcode
inline void set_idle_threshold(std::chrono::nanoseconds idle) noexcept {
#if WARMUP_ENABLED
  // 0 would make every call "after idling".
  constexpr std::chrono::nanoseconds lo = detail::idle_min, hi = detail::idle_max;
  if (idle < lo || idle > hi)
    detail::out_of_range("set_idle_threshold(" + std::to_string(idle.count()) + " ns)", "1 ms to 1 h");
  detail::recurrence().idle_ns.store(static_cast<std::uint64_t>(std::clamp(idle, lo, hi).count()), std::memory_order_relaxed);
#else
  (void)idle;
#endif
}

/// @brief The idle time after which a call is examined as a cold recurrence.
inline std::chrono::nanoseconds idle_threshold() noexcept {
#if WARMUP_ENABLED
  return std::chrono::nanoseconds{
      static_cast<std::chrono::nanoseconds::rep>(detail::recurrence().idle_ns.load(std::memory_order_relaxed))};
#else
  return std::chrono::nanoseconds{0};
#endif
}

/// @brief How many calls of each site, from its first, go on the timeline
/// (`WARMUP_TIMELINE_CALLS`; 16 by default, from 1 to 100000); later calls are sampled.
/// Applies to sites made after the call: set it before the first scope. Costs each site 40
/// bytes per call kept.
/// \code
///   warmup::set_timeline_calls(100);   // at the start of main
/// \endcode
inline void set_timeline_calls(std::uint32_t calls) noexcept {
#if WARMUP_ENABLED
  // A -1 passed here would otherwise ask each site for 172 GB.
  constexpr std::uint32_t lo = detail::timeline_calls_min, hi = detail::timeline_calls_max;
  if (calls < lo || calls > hi)
    detail::out_of_range("set_timeline_calls(" + std::to_string(calls) + ")", "1 to 100000");
  detail::timeline_config().first_calls.store(std::clamp(calls, lo, hi), std::memory_order_relaxed);
#else
  (void)calls;
#endif
}

/// @brief How many calls of each site a site made now keeps on the timeline.
inline std::uint32_t timeline_calls() noexcept {
#if WARMUP_ENABLED
  return detail::timeline_config().first_calls.load(std::memory_order_relaxed);
#else
  return 0;
#endif
}

/// @brief Names the causes of every first call and cold recurrence (`WARMUP_ATTRIBUTION=1`): loads
/// CUPTI at run time (no link dependency) and joins its records (module and library loads, lazy
/// kernel loads, JIT, allocations, pool growth, synchronisation) to the calls they fell in; the
/// report gains `first_call_causes` and `cold_causes` and the table a "why:" line. Best set by
/// the variable, which starts it before `main` and so before the program's first CUDA call:
/// turned on later, it misses the context's creation and what was loaded before. Returns
/// whether records are being collected; where not (CUPTI missing, or its one subscriber slot
/// taken by Nsight or another profiler), `report::attribution_source` says why and the host
/// signals (`first_call_host`) remain. Off, it costs nothing.
/// \code
///   warmup::set_attribution(true);   // first thing in main, before any CUDA call
/// \endcode
inline bool set_attribution(bool on) noexcept {
#if WARMUP_ENABLED
  return detail::start_attribution(on);
#else
  (void)on;
  return false;
#endif
}

/// @brief Samples where each first call's CPU time goes, by shared object
/// (`WARMUP_CPU_SAMPLING=<microseconds>`, or `on` for every 1 ms; 0 or `off` stops it): a timer
/// interrupts the calling thread with SIGPROF every `every`, during a site's first call only;
/// each sample stands for the CPU time the thread spent since the one before (none while it
/// waited). What no CUPTI record explains is then named by where the CPU was:
/// `host_code` causes such as "host code libcudnn_heuristic.so.9 80 ms". Costs about a
/// microsecond per sample, in first calls only; nothing otherwise. A program or profiler with a
/// SIGPROF handler of its own keeps it: sampling then stays off and `report::cpu_sampling` says
/// why. Like any SIGPROF profiler, a sample may make a system call that SA_RESTART does not
/// restart (poll, epoll_wait, nanosleep) return EINTR inside a first call; hence opt-in. The sample is the
/// leaf frame: libc or the dynamic loader working for a library count as themselves.
/// Linux on x86-64 and Arm64.
/// \code
///   warmup::set_cpu_sampling(std::chrono::microseconds(500));   // before the first calls
/// \endcode
inline void set_cpu_sampling(std::chrono::microseconds every) noexcept {
#if WARMUP_ENABLED
  using std::chrono::microseconds;
  if (every.count() != 0 && (every < detail::cpu_sampling_min || every > detail::cpu_sampling_max))
    detail::out_of_range("set_cpu_sampling(" + std::to_string(every.count()) + " us)", "100 us to 1 s");
  const microseconds used =
      every.count() == 0 ? microseconds{0} : std::clamp(every, detail::cpu_sampling_min, detail::cpu_sampling_max);
  detail::cause_store& store = detail::cause_records();
  store.sampler.interval_ns.store(static_cast<std::uint64_t>(used.count()) * 1000u, std::memory_order_relaxed);
  if (!detail::cpu_sampling_supported) {
    if (used.count() != 0) store.set_sampling_status("off: not supported on this platform (Linux x86-64 and Arm64)");
    return;
  }
  store.set_sampling_status(used.count() == 0 ? std::string("off")
                                              : "every " + std::to_string(used.count()) + " us in first calls, weighted by CPU time");
#else
  (void)every;
#endif
}

/// @brief The CPU sampling interval in force (0: off).
inline std::chrono::microseconds cpu_sampling_interval() noexcept {
#if WARMUP_ENABLED
  return std::chrono::microseconds{
      static_cast<long long>(detail::cause_records().sampler.interval_ns.load(std::memory_order_relaxed) / 1000u)};
#else
  return std::chrono::microseconds{0};
#endif
}

/// @brief Whether cause records are being collected now.
inline bool attribution_enabled() noexcept {
#if WARMUP_ENABLED
  return detail::cause_records().collecting.load(std::memory_order_acquire);
#else
  return false;
#endif
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
