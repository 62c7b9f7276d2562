/// @file
/// @brief `to_trace` (trace.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/trace_writer.hpp"

WARMUP_BEGIN_NAMESPACE
WARMUP_DETAIL_RUNTIME std::string to_trace(const report& r) {
  detail::json_out j;
  j.open('{');
  j.key("displayTimeUnit"), j.value(std::string_view{"ns"});
  j.key("traceEvents");
  j.open('[');
  const int device_pid = 2;
  // A warmup.report/2 document carried no call times: the rows are named, and empty, and say why.
  detail::trace_metadata(j, 1, 0, "process_name",
                         r.call_times_recorded ? "host" : "host (no call times: a warmup.report/2 report)");
  if (r.device) detail::trace_metadata(j, device_pid, 0, "process_name", "device " + std::to_string(r.device->index) + ": " + r.device->name);
  else detail::trace_metadata(j, device_pid, 0, "process_name", "device");
  int tid = 0;
  for (const site_report& s : r.sites) {
    ++tid;
    const std::string row = std::string(to_string(s.op)) + ": " + s.name;
    const std::string_view slice_name = detail::utf8_prefix(s.name, detail::trace_slice_name_bytes);
    detail::trace_metadata(j, 1, tid, "thread_name", row);
    if (s.device) detail::trace_metadata(j, device_pid, tid, "thread_name", row);
    for (const call_record& c : s.timeline) {
      for (int side = 0; side < 2; ++side) {
        if (side == 1 && !c.device_start) continue;
        const timing& t = side == 0 ? s.host : *s.device;
        const bool first = c.index == 0, warm = c.index < t.warmup_calls;
        j.open('{');
        j.key("name"), j.value(slice_name);
        j.key("cat"), j.value(to_string(s.op));
        j.key("ph"), j.value(std::string_view{"X"});
        j.key("pid"), j.value(side == 0 ? 1 : device_pid);
        j.key("tid"), j.value(tid);
        detail::trace_number(j, "ts", side == 0 ? c.host_start : *c.device_start);
        detail::trace_number(j, "dur", side == 0 ? c.host : *c.device);
        if (first || warm) j.key("cname"), j.value(std::string_view{first ? "terrible" : "bad"});
        j.key("args");
        j.open('{');
        j.key("call"), j.value(c.index);
        j.key("first"), j.value(first);
        j.key("warmup"), j.value(warm);
        const bool why = side == 0 && first && s.host.first_call_causes;
        if (why) detail::trace_why(j, *s.host.first_call_causes);
        j.close('}');
        j.close('}');
        if (why) detail::trace_spans(j, *s.host.first_call_causes, c, tid);
      }
    }
  }
  j.close(']');
  j.close('}');
  return std::move(j.text);
}
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
