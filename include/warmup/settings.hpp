/// @file
/// @brief Every run-time setting, one to one with the `WARMUP_*` environment variables.
///
/// Each variable, what it takes, its default and its function are one row of
/// `detail::setting_table` (at the end of this file); docs/environment.md has the same table in words.
///
/// The variables are read once, before `main` (detail/runtime/environment.hpp); each value is checked,
/// and one out of range or not understood is said on stderr and ignored. The functions take the
/// same ranges: a value outside is said once (a report notice) and the nearest bound used.
/// Every setting is thread-safe and applies to every copy of the library in the process.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "warmup/config.hpp"
#include "warmup/detail/record/switches.hpp"


WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Loads CUPTI and starts collecting cause records, or stops (detail/runtime/settings-inl.hpp). Returns
/// whether records are collected. Defined weakly by every file that compiles the runtime (see
/// detail/record/site.hpp, start_runtime_...): a file built light only declares it.
bool start_attribution(bool on) noexcept;

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

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Every `WARMUP_*` variable, in `setting_table`'s order.
enum class setting : std::uint8_t {
  report, enable, device_sampling, idle_ms, timeline_calls, attribution, cpu_sampling, clock,
  nvtx_domains, nvtx_varying, nvtx_next, nvtx_device, nvtx_status,
};

/// What a variable's value may be. Every value is checked against its row before it is used
/// (detail/runtime/environment.hpp, `read_setting`), by the library and the NVTX tool alike.
enum class value_kind : std::uint8_t {
  text,              ///< taken as it is (a path, a list), by what uses it
  on_off,            ///< 1, on, true, yes or 0, off, false, no, in any case: 1 or 0
  choice,            ///< exactly one of the row's `words` (comma-separated): its index
  number,            ///< a whole number from `lo` to `hi`, in the row's unit (`words`)
  on_off_or_number,  ///< a number as above, or on (`on`) or off (0)
};

/// Who reads a variable: the library, before `main`, or the NVTX tool (docs/nvtx-tool.md), at its first call.
enum class read_by : std::uint8_t { library, nvtx_tool };

/// One setting: its variable, what it takes, its default, who reads it and the function that
/// sets it from code. A new setting is its enumerator and its row (in_setting_order refuses a
/// row out of order), its function if it has one, and its line in docs/environment.md, which
/// `check_readme.py environment` checks against this row.
struct setting_row {
  setting id;
  std::string_view variable;
  value_kind kind;
  std::int64_t lo, hi, on;        ///< a number's range; on_off_or_number's "on"
  std::string_view words;         ///< a choice's words, comma-separated; a number's unit
  std::int64_t fallback;          ///< the value where the variable is unset or refused
  std::string_view what;          ///< what it sets, in a message: "<what> stays <fallback>"
  read_by reader;
  std::string_view function;      ///< the function that sets it from code; empty where none
  void (*apply)(std::int64_t);    ///< the library's: applies a value read before `main`
};

// clang-format off
inline constexpr setting_row setting_table[] = {
    {setting::report, "WARMUP_REPORT", value_kind::text, 0, 0, 0, "", 0, "", read_by::library, "write_report", nullptr},
    {setting::enable, "WARMUP_ENABLE", value_kind::on_off, 0, 1, 1, "", 1, "measuring", read_by::library, "enable",
     [](std::int64_t v) { if (v == 0) set_measuring(false); }},
    {setting::device_sampling, "WARMUP_DEVICE_SAMPLING", value_kind::choice, 0, 1, 0, "adaptive,every_call", 0,
     "device sampling", read_by::library, "set_device_sampling", [](std::int64_t v) { set_sampling(v == 0); }},
    {setting::idle_ms, "WARMUP_IDLE_MS", value_kind::number, 1, 3'600'000, 0, "milliseconds", 1000, "the idle threshold",
     read_by::library, "set_idle_threshold", [](std::int64_t v) { set_idle_threshold(std::chrono::milliseconds(v)); }},
    {setting::timeline_calls, "WARMUP_TIMELINE_CALLS", value_kind::number, 1, 100'000, 0, "calls", 16,
     "each site's timeline", read_by::library, "set_timeline_calls",
     [](std::int64_t v) { set_timeline_calls(static_cast<std::uint32_t>(v)); }},
    {setting::attribution, "WARMUP_ATTRIBUTION", value_kind::on_off, 0, 1, 1, "", 0, "attribution", read_by::library,
     "set_attribution", [](std::int64_t v) { if (v == 1) (void)set_attribution(true); }},
    {setting::cpu_sampling, "WARMUP_CPU_SAMPLING", value_kind::on_off_or_number, 100, 1'000'000, 1000, "microseconds", 0,
     "CPU sampling", read_by::library, "set_cpu_sampling",
     [](std::int64_t v) { if (v > 0) set_cpu_sampling(std::chrono::microseconds(v)); }},
    {setting::clock, "WARMUP_CLOCK", value_kind::choice, 0, 1, 0, "auto,steady", 0, "the host clock", read_by::library, "",
     nullptr},  // read once, before the first scope (runtime/environment.hpp)
    {setting::nvtx_domains, "WARMUP_NVTX_DOMAINS", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},
    {setting::nvtx_varying, "WARMUP_NVTX_VARYING", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},
    {setting::nvtx_next, "WARMUP_NVTX_NEXT", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},
    {setting::nvtx_device, "WARMUP_NVTX_DEVICE", value_kind::on_off, 0, 1, 1, "", 0, "the ranges' device time",
     read_by::nvtx_tool, "", nullptr},
    {setting::nvtx_status, "WARMUP_NVTX_STATUS", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},
};
// clang-format on

/// Whether every row names its own setting, in the enum's order.
template <std::size_t N>
constexpr bool in_setting_order(const setting_row (&table)[N]) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].id) != i) return false;
  return true;
}
static_assert(in_setting_order(setting_table), "warmup: setting_table must list the settings in the enum's order");

/// Setting `s`'s row (a setting without a row does not compile).
template <setting S>
constexpr const setting_row& row_of() noexcept {
  static_assert(static_cast<std::size_t>(S) < sizeof setting_table / sizeof setting_table[0], "warmup: this setting has no row in setting_table");
  return setting_table[static_cast<std::size_t>(S)];
}
}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
