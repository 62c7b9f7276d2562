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

#include <chrono>
#include <cstdint>
#include <string_view>

#include "warmup/config.hpp"
#include "warmup/detail/record/switches.hpp"


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
    {"WARMUP_NVTX_DOMAINS", "(none: the NVTX tool's, docs/nvtx-tool.md)"},
    {"WARMUP_NVTX_VARYING", "(none: the NVTX tool's, docs/nvtx-tool.md)"},
    {"WARMUP_NVTX_NEXT", "(none: the NVTX tool's, docs/nvtx-tool.md)"},
    {"WARMUP_NVTX_DEVICE", "(none: the NVTX tool's, docs/nvtx-tool.md)"},
    {"WARMUP_NVTX_STATUS", "(none: set by the NVTX tool's launchers, docs/nvtx-tool.md)"},
};

/// Loads CUPTI and starts collecting cause records, or stops (detail/runtime/settings-inl.hpp). Returns
/// whether records are collected. Defined weakly by every file that compiles the runtime (see
/// detail/record/site.hpp, start_runtime_...): a file built light only declares it.
bool start_attribution(bool on) noexcept;

/// The ranges the variables and the functions share.
inline constexpr std::chrono::milliseconds idle_min{1}, idle_max{3'600'000};
inline constexpr std::uint32_t timeline_calls_min = 1, timeline_calls_max = 100'000;
inline constexpr std::chrono::microseconds cpu_sampling_min{100}, cpu_sampling_max{1'000'000}, cpu_sampling_on{1000};

// The two switches (detail/record/switches.hpp) are this copy's of the library, read on the hot
// path; these set them in every copy of the process (detail/process.hpp), where there
// are several: shared libraries built with hidden visibility, plugins.
void set_measuring(bool on) noexcept;
void set_sampling(bool adaptive) noexcept;
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
void set_idle_threshold(std::chrono::nanoseconds idle) noexcept;

/// @brief The idle time after which a call is examined as a cold recurrence.
std::chrono::nanoseconds idle_threshold() noexcept;

/// @brief How many calls of each site, from its first, go on the timeline
/// (`WARMUP_TIMELINE_CALLS`; 16 by default, from 1 to 100000); later calls are sampled.
/// Applies to sites made after the call: set it before the first scope. Costs each site 40
/// bytes per call kept.
/// \code
///   warmup::set_timeline_calls(100);   // at the start of main
/// \endcode
void set_timeline_calls(std::uint32_t calls) noexcept;

/// @brief How many calls of each site a site made now keeps on the timeline.
std::uint32_t timeline_calls() noexcept;

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
bool set_attribution(bool on) noexcept;

/// @brief Samples where each first call's CPU time goes, by shared object
/// (`WARMUP_CPU_SAMPLING=<microseconds>`, or `on` for every 1 ms; 0 or `off` stops it): a tick on
/// the calling thread's CPU time (a perf_event task clock; a CPU-clock timer where that is refused)
/// interrupts it with SIGURG every `every` of CPU, during a site's first call only; each sample
/// stands for the CPU time the thread spent since the one before. The tick never fires while the
/// thread waits, so no blocking system call (poll, select, nanosleep...) is cut short with EINTR.
/// What no CUPTI record explains is then named by where the CPU was:
/// `host_code` causes such as "host code libcudnn_heuristic.so.9 80 ms", and "[kernel]" for CPU
/// time in system calls and page faults; in a Python process with `import warmup`, the
/// interpreter's time is `python_code` by module ("Python code torch._dynamo 1.2 s"). Costs about a
/// microsecond per sample, in first calls only; nothing otherwise. A program with a SIGURG
/// handler of its own keeps it: sampling then stays off and `report::cpu_sampling` says why;
/// SIGPROF is never touched. The sample is the
/// leaf frame: libc or the dynamic loader working for a library count as themselves.
/// Linux on x86-64 and Arm64.
/// \code
///   warmup::set_cpu_sampling(std::chrono::microseconds(500));   // before the first calls
/// \endcode
void set_cpu_sampling(std::chrono::microseconds every) noexcept;

/// @brief The CPU sampling interval in force (0: off).
std::chrono::microseconds cpu_sampling_interval() noexcept;

/// @brief Whether cause records are being collected now.
bool attribution_enabled() noexcept;

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
