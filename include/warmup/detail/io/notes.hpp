/// @file
/// @brief The report's notes: a site's figures read in plain language (`site_report::notes`),
/// printed under its rows in the table and written in JSON.
///
/// `snapshot()` reads them off each site's figures once (detail/runtime/snapshot-inl.hpp); the
/// writers print what the report holds, so a report read back says what it said when written.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "warmup/detail/io/text.hpp"
#include "warmup/op.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A ratio as the notes write it: "12x", "2.5x".
inline std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r >= 10 ? "%.0fx" : "%.1fx", r);
  return buf;
}

/// Plain-language readings of a site's figures, for the table and for JSON.
inline std::vector<std::string> notes_for(const site_report& s) {
  std::vector<std::string> notes;
  const timing& h = s.host;
  if (h.steady && h.steady->p50.count() > 0 && h.first > 2 * h.steady->p50)
    notes.push_back("first call " + format_ratio(double(h.first.count()) / double(h.steady->p50.count())) +
                    " the steady p50 on the host");
  if (has_trait(s.op, kind_trait::launches_code) && s.device && s.device->steady && h.steady) {
    const auto host_extra = h.first - h.steady->p50;
    const auto dev_extra = s.device->first - s.device->steady->p50;
    if (host_extra > 2 * std::max(dev_extra, std::chrono::nanoseconds{0}) &&
        host_extra > std::chrono::microseconds{20})
      notes.push_back("the first launch waited on the host, not the GPU: module loading or JIT at the call");
  }
  if (s.bytes && s.bytes->total_saturated)
    notes.push_back("the byte total passed 2^64 - 1 and is shown saturated; no mean bandwidth");
  if (s.bytes && s.bytes->gbps_clock == clock_domain::host)
    notes.push_back("bandwidth from host time (no call was device-timed): it includes launch and any wait");
  if (s.bytes && s.bytes->sizes_vary)
    notes.push_back("calls moved different numbers of bytes: read the mean bandwidth, not a steady one");
  if (s.bytes && s.bytes->host_pageable_calls != 0)
    notes.push_back(std::to_string(s.bytes->host_pageable_calls) + " of " +
                    std::to_string(s.bytes->host_pageable_calls + s.bytes->host_pinned_calls) +
                    " calls copied pageable host memory, which the driver stages through a pinned buffer: "
                    "pin it (cudaHostRegister) for full bandwidth and an asynchronous copy");
  if (s.pool && s.pool->grew_calls > 1)
    notes.push_back("the pool grew during " + std::to_string(s.pool->grew_calls) + " of " +
                    std::to_string(s.pool->calls_read) + " calls (" + format_bytes(s.pool->grown) +
                    " in all): it gives memory back between them; raise its release threshold "
                    "(cudaMemPoolAttrReleaseThreshold) to keep it");
  const untimed_calls& u = s.device_untimed;
  if (u.captured != 0)
    notes.push_back(std::to_string(u.captured) +
                    " calls ran inside a graph capture and were host-timed only");
  if (u.unavailable != 0)
    notes.push_back(std::to_string(u.unavailable) +
                    " calls asked for device timing that was unavailable (no GPU, a CUDA error, or no context yet)");
  if (u.sampled_out != 0)
    notes.push_back("once steady, device-timed on a sample: " + std::to_string(u.sampled_out) +
                    " calls host-timed only");
  if (u.dropped != 0)
    notes.push_back(std::to_string(u.dropped) + " device measurements dropped: too many in flight");
  if (s.exceptions != 0)
    notes.push_back(std::to_string(s.exceptions) + " calls ended by an exception");
  // Only where more calls would help: a site called once by design (a context, a handle) has its
  // first call and nothing to say about a steady state; the table counts those under itself.
  if (!h.steady && h.calls > 1) notes.push_back("no steady state yet: too few calls");
  if (h.steady && !h.steady->enough_calls)
    notes.push_back("only " + std::to_string(h.steady->calls) + (h.steady->calls == 1 ? " steady call" : " steady calls") +
                    ": the p50 is uncertain" +
                    (h.steady->p50_low ? " (95% interval " + format_duration(*h.steady->p50_low) + " to " +
                                             format_duration(*h.steady->p50_high) + ")"
                                       : std::string(" (too few for a 95% interval)")));
  if (h.cold_recurrences != 0)
    notes.push_back(std::to_string(h.cold_recurrences) + " calls were cold again after idling (" +
                    format_duration(h.cold_excess) + " in all), kept out of the steady figures");
  return notes;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
