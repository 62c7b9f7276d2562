/// @file
/// @brief `warmup::snapshot()` (snapshot.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/site_reader.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
/// What `report::attribution_source` says: the store's source, and where CUPTI could not run but
/// first calls are sampled, that their causes come from the CPU samples and the host signals.
inline std::string sources_ran(std::string source, bool sampling) {
  constexpr std::string_view fallback = "host signals only: ", falls_back = ": attribution falls back to host signals";
  if (sampling && source.compare(0, fallback.size(), fallback) == 0) {
    source.replace(0, fallback.size(), "CPU samples and host signals, no CUPTI: ");
    if (const std::size_t at = source.rfind(falls_back); at != std::string::npos && at + falls_back.size() == source.size())
      source.erase(at);  // the sentence CUPTI's message ends with, which the prefix now corrects
  }
  return source;
}
}  // namespace detail

WARMUP_DETAIL_RUNTIME report snapshot(device_wait wait) {
  const detail::busy_section busy;
  report r;
  const bool closed = detail::cuda().closed.load(std::memory_order_acquire);
  const std::size_t pending =
      closed ? 0 : detail::rings().drain_all(wait == device_wait::yes ? detail::read_mode::wait : detail::read_mode::poll);
  r.device_pending = pending;
  r.identity = detail::identity_now();
  if (const auto flush = detail::cause_records().flush.load(std::memory_order_acquire)) flush();
  const std::string sampling = detail::cause_records().sampling_status();
  r.attribution_source = detail::sources_ran(detail::cause_records().source_now(), sampling.rfind("every ", 0) == 0);
  r.cpu_sampling = detail::sampling_line(sampling, detail::cause_records().samples_lost());
  r.module_loading = detail::module_loading_mode();
  r.jit_cache = detail::jit_cache_settings();
  r.device = detail::describe_device(r.device_status);
  if (r.device && r.device->index >= 0 && r.device->index < detail::max_devices) {
    const std::uint64_t floor =
        detail::cuda().pair_floor_ns[static_cast<std::size_t>(r.device->index)].load(std::memory_order_relaxed);
    if (floor != 0) r.device->event_pair_floor = std::chrono::nanoseconds{static_cast<long long>(floor - 1)};
  }
  // A pair of clock readings now: the rate that converts every host figure comes from the
  // longest stretch the run has.
  detail::time_base& time = detail::host_time();
  time.calibrate(true);
  const detail::time_map conversion = time.map();
  r.host_clock = time.describe();
  for (detail::site* s : detail::sites().all()) {
    r.sites.push_back(detail::read_site(*s, conversion));
    r.library.site_bytes += s->bytes();
  }
  const detail::cuda_state& st = detail::cuda();
  r.library.nvtx_init = std::chrono::nanoseconds{detail::nvtx().init_ns};
  r.library.event_pools = std::chrono::nanoseconds{st.event_pool_ns.load()};
  r.library.event_pairs = st.event_pairs.load();
  r.library.device_probe = std::chrono::nanoseconds{static_cast<long long>(st.probe_ns.load())};
  detail::say_what_is_apart();
  r.notices = detail::notice_board().all();
  return r;
}
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
