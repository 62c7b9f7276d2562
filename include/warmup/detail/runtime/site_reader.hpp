/// @file
/// @brief One site read and summarised into its report, for `warmup::snapshot()` (snapshot-inl.hpp),
/// which reads back device measurements and assembles the report. What it reads comes from files of their own:
/// the run (identity.hpp), its GPU (device_info.hpp), the CUDA variables (environment.hpp), the
/// figures (analysis/statistics.hpp), the causes (analysis/attribution.hpp, cause_store.hpp), the notes (io/notes.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"

#include "warmup/report.hpp"
#include "warmup/snapshot.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/analysis/statistics.hpp"
#include "warmup/detail/io/notes.hpp"
#include "warmup/detail/record/site.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/runtime/device_info.hpp"
#include "warmup/detail/runtime/device_rings.hpp"
#include "warmup/detail/runtime/environment.hpp"
#include "warmup/detail/runtime/identity.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/runtime/nvtx_domain.hpp"
#include "warmup/detail/runtime/registry.hpp"
#include "warmup/detail/runtime/site_state.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// One site's report; `time` converts its host figures, recorded in ticks, to ns.
inline site_report read_site(const site& s, const time_map& time) {
  site_report r;
  r.name = s.name;
  r.op = s.op;
  series_data host_data = s.host_data();
  scale(host_data, time.rate);
  r.host = summarize(host_data);
  r.calls = r.host.calls;
  if (const series* d = s.device_series_if_any()) {
    timing t = summarize(d->read());
    if (t.calls != 0) r.device = t;
  }
  const site_counts n = s.counts();
  const std::uint64_t total = n.bytes_overflow ? UINT64_MAX : n.bytes_total;
  if (total != 0) {
    transfer x;
    x.first = n.bytes_first;
    x.total = total;
    x.total_saturated = n.bytes_overflow;
    const bool total_matches = r.calls != 0 && total % r.calls == 0 && total / r.calls == x.first;
    x.sizes_vary = n.bytes_vary || (!n.bytes_overflow && !total_matches);
    // Bandwidth for copies only: an allocation's bytes over its time is no rate of anything.
    if (is_copy(s.op)) {
      const timing& t = r.device ? *r.device : r.host;
      x.gbps_clock = r.device ? clock_domain::device : clock_domain::host;
      // Bytes per nanosecond are GB/s.
      if (t.first.count() > 0) x.first_gbps = double(x.first) / double(t.first.count());
      if (!x.sizes_vary && t.steady && t.steady->p50.count() > 0)
        x.steady_gbps = double(x.first) / double(t.steady->p50.count());
      if (!n.bytes_overflow && t.total.count() > 0 && t.calls == r.calls) x.mean_gbps = double(total) / double(t.total.count());
    }
    x.host_pinned_calls = n.host_pinned;
    x.host_pageable_calls = n.host_pageable;
    r.bytes = x;
  }
  if (n.pool_read != 0) r.pool = pool_growth{n.pool_read, n.pool_grew, n.pool_grown, n.pool_first_grown};
  for (const auto& c : host_data.first) r.first_calls.push_back(std::chrono::nanoseconds{static_cast<long long>(c.ns)});
  const std::uint64_t origin = ns_since_epoch(process_start());
  const auto since_origin = [&](std::uint64_t t) {
    return std::chrono::nanoseconds{static_cast<long long>(t) - static_cast<long long>(origin)};
  };
  for (const timeline_call& c : s.timeline_calls()) {
    call_record rec;
    rec.index = c.index;
    rec.host_start = since_origin(time.to_ns(c.host_start));
    rec.host = std::chrono::nanoseconds{static_cast<long long>(time.ns(c.host_ns))};
    if (c.device_start != 0) {
      rec.device_start = since_origin(c.device_start);
      rec.device = std::chrono::nanoseconds{static_cast<long long>(c.device_ns)};
    }
    r.timeline.push_back(rec);
  }
  std::sort(r.timeline.begin(), r.timeline.end(),
            [](const call_record& a, const call_record& b) { return a.index < b.index; });
  r.exceptions = n.exceptions;
  r.device_untimed = {n.captured, n.unavailable, n.dropped, n.sampled_out};
  const site::cold_view cold = s.cold_calls_seen();
  r.first_call_host = cold.first_host;
  // The CPU clock's two reads bracket the call and a few microseconds of the library's own
  // work: never more CPU time than the call lasted, as the report states it.
  if (r.first_call_host && r.first_call_host->cpu > r.host.first) r.first_call_host->cpu = r.host.first;
  const cause_store& store = cause_records();
  if (store.collecting.load(std::memory_order_acquire) || store.size() != 0 || !cold.first_children.empty()) {
    if (cold.first) {
      r.host.first_call_causes = attribute({*cold.first}, r.host, store, object_of);
      add_child_processes(*r.host.first_call_causes, cold.first_children);
    }
    if (!cold.recent.empty()) r.host.cold_causes = attribute(cold.recent, r.host, store, object_of);
  }
  r.notes = notes_for(r);
  return r;
}

/// Says, once, where a report does not hold the whole process's sites: this copy of the library
/// kept an anchor apart from another release's (process.hpp), or copies of another release kept
/// theirs apart from this one. Each such copy writes its own report, its files tagged with the pid.
inline void say_what_is_apart() {
  notices& board = notice_board();
  if (board.raised(notice_kind::copies_apart)) return;
  if (const char* why = kept_apart()) {
    board.raise(notice_kind::copies_apart,
                "this is the report of a second copy of warmup in this process (" + this_copy_file() + "), kept apart: " +
                    why + "; the sites of the process's copy are not here, nor this copy's there (at exit this copy's "
                    "files are tagged with the pid)");
    return;
  }
  const std::string apart = copies_kept_apart();
  if (apart.empty()) return;
  std::string files;
  for (std::size_t at = 0; at < apart.size();) {
    const std::size_t end = std::min(apart.find('\n', at), apart.size());
    if (end > at) files += (files.empty() ? "" : ", ") + apart.substr(at, end - at);
    at = end + 1;
  }
  board.raise(notice_kind::copies_apart,
              "a second copy of warmup in this process, of another release (" + files +
                  "), kept its sites apart: they are not in this report but in that copy's own (at exit its files are "
                  "tagged with the pid)");
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
