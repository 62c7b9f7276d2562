/// @file
/// @brief The settings' definitions (settings.hpp declares them), compiled with the runtime.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "warmup/config.hpp"
#include "warmup/settings.hpp"

#if WARMUP_ENABLED
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/record/recurrence.hpp"
#include "warmup/detail/record/timeline.hpp"
#include "warmup/detail/runtime/notices.hpp"
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME void set_measuring(bool on) noexcept {
#if WARMUP_ENABLED
  broadcast(&process_anchor::measuring, &copy_entry::measuring, on, measuring);
#else
  measuring.store(on, std::memory_order_relaxed);
#endif
}
WARMUP_DETAIL_RUNTIME void set_sampling(bool adaptive) noexcept {
#if WARMUP_ENABLED
  broadcast(&process_anchor::sample_device, &copy_entry::sample_device, adaptive, sample_device);
#else
  sample_device.store(adaptive, std::memory_order_relaxed);
#endif
}

/// Says once that a setting was given a value outside its row's range.
#if WARMUP_ENABLED
[[gnu::cold]] inline void out_of_range(std::string_view call, const setting_row& r) noexcept {
  WARMUP_TRY {
    notice_board().raise(notice_kind::bad_setting, std::string(call) + " is outside " + std::to_string(r.lo) + " to " +
                                                       std::to_string(r.hi) + " " + std::string(r.words) +
                                                       "; the nearest of those is used");
  } WARMUP_CATCH_ALL {
  }
}
#endif
}  // namespace detail

WARMUP_DETAIL_RUNTIME void set_idle_threshold(std::chrono::nanoseconds idle) noexcept {
#if WARMUP_ENABLED
  // 0 would make every call "after idling".
  constexpr const detail::setting_row& r = detail::row_of<detail::setting::idle_ms>();
  constexpr std::chrono::nanoseconds lo = std::chrono::milliseconds(r.lo), hi = std::chrono::milliseconds(r.hi);
  if (idle < lo || idle > hi) detail::out_of_range("set_idle_threshold(" + std::to_string(idle.count()) + " ns)", r);
  detail::recurrence().idle_ns.store(static_cast<std::uint64_t>(std::clamp(idle, lo, hi).count()), std::memory_order_relaxed);
#else
  (void)idle;
#endif
}

WARMUP_DETAIL_RUNTIME std::chrono::nanoseconds idle_threshold() noexcept {
#if WARMUP_ENABLED
  return std::chrono::nanoseconds{
      static_cast<std::chrono::nanoseconds::rep>(detail::recurrence().idle_ns.load(std::memory_order_relaxed))};
#else
  return std::chrono::nanoseconds{0};
#endif
}

WARMUP_DETAIL_RUNTIME void set_timeline_calls(std::uint32_t calls) noexcept {
#if WARMUP_ENABLED
  // A -1 passed here would otherwise ask each site for 172 GB.
  constexpr const detail::setting_row& r = detail::row_of<detail::setting::timeline_calls>();
  constexpr auto lo = static_cast<std::uint32_t>(r.lo), hi = static_cast<std::uint32_t>(r.hi);
  if (calls < lo || calls > hi) detail::out_of_range("set_timeline_calls(" + std::to_string(calls) + ")", r);
  detail::timeline_config().first_calls.store(std::clamp(calls, lo, hi), std::memory_order_relaxed);
#else
  (void)calls;
#endif
}

WARMUP_DETAIL_RUNTIME std::uint32_t timeline_calls() noexcept {
#if WARMUP_ENABLED
  return detail::timeline_config().first_calls.load(std::memory_order_relaxed);
#else
  return 0;
#endif
}

WARMUP_DETAIL_RUNTIME bool set_attribution(bool on) noexcept {
#if WARMUP_ENABLED
  return detail::start_attribution(on);
#else
  (void)on;
  return false;
#endif
}

WARMUP_DETAIL_RUNTIME void set_cpu_sampling(std::chrono::microseconds every) noexcept {
#if WARMUP_ENABLED
  using std::chrono::microseconds;
  constexpr const detail::setting_row& r = detail::row_of<detail::setting::cpu_sampling>();
  constexpr microseconds lo{r.lo}, hi{r.hi};
  if (every.count() != 0 && (every < lo || every > hi))
    detail::out_of_range("set_cpu_sampling(" + std::to_string(every.count()) + " us)", r);
  const microseconds used = every.count() == 0 ? microseconds{0} : std::clamp(every, lo, hi);
  detail::cause_store& store = detail::cause_records();
  store.sampler.interval_ns.store(static_cast<std::uint64_t>(used.count()) * 1000u, std::memory_order_relaxed);
  if (!detail::cpu_sampling_supported) {
    if (used.count() != 0) store.set_sampling_status("off: not supported on this platform (Linux x86-64 and Arm64)");
    return;
  }
  store.set_sampling_status(used.count() == 0 ? std::string("off")
                                              : "every " + std::to_string(used.count()) + " us of CPU time in first calls");
#else
  (void)every;
#endif
}

WARMUP_DETAIL_RUNTIME std::chrono::microseconds cpu_sampling_interval() noexcept {
#if WARMUP_ENABLED
  return std::chrono::microseconds{
      static_cast<long long>(detail::cause_records().sampler.interval_ns.load(std::memory_order_relaxed) / 1000u)};
#else
  return std::chrono::microseconds{0};
#endif
}

WARMUP_DETAIL_RUNTIME bool attribution_enabled() noexcept {
#if WARMUP_ENABLED
  return detail::cause_records().collecting.load(std::memory_order_acquire);
#else
  return false;
#endif
}

WARMUP_END_NAMESPACE

#if WARMUP_ENABLED
WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME bool start_attribution(bool on) noexcept {
  cause_store& store = cause_records();
  if (!on) {
    flush_causes();
    cupti_stop();
    store.flush.store(nullptr, std::memory_order_release);
    store.set_source(false, "off: set_attribution(false)");
    return false;
  }
  const cupti_start_result started = cupti_start(&deliver_cause);
  if (started.status == cupti_status::running) {
    store.flush.store(&flush_causes, std::memory_order_release);
    store.set_source(true, "cupti");
    // CUPTI is stopped before the runtime's teardown, report at exit or not.
    cuda().register_before_teardown = [] { (void)std::atexit(read_back_before_teardown); };
    return true;
  }
  WARMUP_TRY {
    store.set_source(false, "host signals only: " + started.message);
    notice_board().raise(notice_kind::attribution, started.message);
  } WARMUP_CATCH_ALL {
  }
  return false;
}

}  // namespace detail
WARMUP_END_NAMESPACE
#endif

#include "warmup/detail/header_end.hpp"
