/// @file
/// @brief The Chrome Trace Event writer's parts (trace-inl.hpp defines `to_trace`, which trace.hpp
/// declares, with them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "warmup/detail/io/json_writer.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/trace.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The most bytes of a site's name on each of its slices. The Trace Event JSON has no table of
/// strings for events to refer to, so the whole name is written once, in its tracks' names
/// (thread_name), and a slice carries its beginning: as much as a viewer shows on a slice.
inline constexpr std::size_t trace_slice_name_bytes = 256;

inline void trace_metadata(json_out& j, int pid, int tid, const char* what, std::string_view name) {
  j.open('{');
  j.key("ph"), j.value(std::string_view{"M"});
  j.key("pid"), j.value(pid);
  j.key("tid"), j.value(tid);
  j.key("name"), j.value(std::string_view{what});
  j.key("args");
  j.open('{');
  j.key("name"), j.value(name);
  j.close('}');
  j.close('}');
}

/// Microseconds (the format's unit) written exactly from integer nanoseconds, with three
/// decimals: a double printed with a few significant digits would place a call 100 s into a run
/// hundreds of microseconds off.
inline void trace_number(json_out& j, const char* k, std::chrono::nanoseconds d) {
  j.key(k);
  const long long ns = d.count();
  const unsigned long long magnitude =
      ns < 0 ? 0ULL - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
  j.number_text(buf);
}

/// The first call's causes, as its slice's arguments: each cause's time, the CPU samples by
/// shared object, and what no record or sample explains. Perfetto shows them when the call is
/// picked. Object names are a value, never a key: a report read back may name anything.
inline void trace_why(json_out& j, const attribution& a) {
  j.key("why_us");  // microseconds, as the format's ts and dur
  j.open('{');
  for (const cause_time& c : a.causes)
    if (!by_object(c.what)) trace_number(j, to_string(c.what).data(), c.time);  // a literal: ends in NUL
  trace_number(j, "unattributed", a.unattributed);
  trace_number(j, "excess", a.excess);
  j.close('}');
  j.key("cpu_samples");
  j.open('[');
  for (const cause_time& c : a.causes)
    if (by_object(c.what)) {  // a shared object's CPU samples (cause.hpp: its count counts them)
      j.open('{');
      j.key("object"), j.value(std::string_view{c.where});
      trace_number(j, "time_us", c.time);
      j.key("samples"), j.value(c.count);
      j.close('}');
    }
  j.close(']');
}

/// The first call's cause stretches as slices inside its own (same track, within its start and
/// end, so that a viewer nests them under it), at the times their records gave.
inline void trace_spans(json_out& j, const attribution& a, const call_record& c, int tid) {
  using std::chrono::nanoseconds;
  // A report read back may hold anything: a call of no length, or one whose end would overflow,
  // has no inside to place its causes in.
  if (c.host <= nanoseconds{0} || c.host_start > nanoseconds::max() - c.host) return;
  for (const cause_span& p : a.spans) {
    if (p.at < nanoseconds{0} || p.time <= nanoseconds{0}) continue;  // never written so: no place for it
    const auto begin = std::min(p.at, c.host);
    const auto end = begin + std::min(p.time, c.host - begin);
    if (end == begin) continue;
    j.open('{');
    j.key("name"), j.value(describe(p.what));
    j.key("cat"), j.value(std::string_view{"cause"});
    j.key("ph"), j.value(std::string_view{"X"});
    j.key("pid"), j.value(1);
    j.key("tid"), j.value(tid);
    trace_number(j, "ts", c.host_start + begin);
    trace_number(j, "dur", end - begin);
    j.key("args");
    j.open('{');
    j.key("cause"), j.value(to_string(p.what));
    j.close('}');
    j.close('}');
  }
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
