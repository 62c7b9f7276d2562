/// @file
/// @brief `warmup::to_json`: the report as one line of JSON (schema `warmup.report/1`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <string>

#include "warmup/detail/text.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

class json_out {
 public:
  std::string text;

  void key(const char* k) {
    comma();
    append_json_string(text, k);
    text += ':';
    fresh_ = true;
  }
  void open(char c) {
    comma();
    text += c;
    fresh_ = true;
  }
  void close(char c) {
    text += c;
    fresh_ = false;
  }
  void value(std::string_view s) { comma(), append_json_string(text, s), fresh_ = false; }
  void value(std::uint64_t v) { comma(), text += std::to_string(v), fresh_ = false; }
  void value(long long v) { comma(), text += std::to_string(v), fresh_ = false; }
  void value(int v) { comma(), text += std::to_string(v), fresh_ = false; }
  void value(bool v) { comma(), text += v ? "true" : "false", fresh_ = false; }
  void value(double v) { comma(), append_json_number(text, v), fresh_ = false; }
  void null() { comma(), text += "null", fresh_ = false; }
  /// A number already written as JSON text.
  void number_text(std::string_view v) { comma(), text += v, fresh_ = false; }

 private:
  void comma() {
    if (!fresh_ && !text.empty()) text += ',';
    fresh_ = false;
  }
  bool fresh_ = true;
};

inline void write_ns(json_out& j, const char* k, std::chrono::nanoseconds d) {
  j.key(k);
  j.value(static_cast<long long>(d.count()));
}

inline void write_timing(json_out& j, const char* k, const timing* t) {
  j.key(k);
  if (t == nullptr) return j.null();
  j.open('{');
  j.key("calls"), j.value(t->calls);
  write_ns(j, "first", t->first);
  j.key("warmup_calls"), j.value(t->warmup_calls);
  write_ns(j, "total", t->total);
  j.key("first_call_excess");
  if (t->first_call_excess) j.value(static_cast<long long>(t->first_call_excess->count()));
  else j.null();
  write_ns(j, "warmup_excess", t->warmup_excess);
  j.key("cold_recurrences");
  j.open('{');
  j.key("calls"), j.value(t->cold_recurrences);
  write_ns(j, "excess", t->cold_excess);
  j.close('}');
  j.key("steady");
  if (!t->steady) {
    j.null();
  } else {
    const steady_state& s = *t->steady;
    j.open('{');
    j.key("calls"), j.value(s.calls);
    write_ns(j, "p50", s.p50);
    write_ns(j, "p90", s.p90);
    write_ns(j, "p99", s.p99);
    write_ns(j, "p999", s.p999);
    write_ns(j, "min", s.min);
    write_ns(j, "max", s.max);
    write_ns(j, "mean", s.mean);
    write_ns(j, "stddev", s.stddev);
    j.key("p50_ci95");
    if (s.p50_low && s.p50_high) {
      j.open('[');
      j.value(static_cast<long long>(s.p50_low->count()));
      j.value(static_cast<long long>(s.p50_high->count()));
      j.close(']');
    } else {
      j.null();
    }
    j.key("enough_calls"), j.value(s.enough_calls);
    j.close('}');
  }
  j.close('}');
}

inline void write_optional(json_out& j, const char* k, const std::optional<double>& v) {
  j.key(k);
  if (v) j.value(*v);
  else j.null();
}

}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE

/// @brief The report as one line of JSON, schema `warmup.report/1` (README, "JSON schema").
///
/// Durations are integer nanoseconds; absent figures are `null`, never invented. Names are
/// escaped and repaired (invalid UTF-8 becomes U+FFFD), so any name gives valid JSON.
/// \code
///   std::ofstream("report.json") << warmup::to_json(warmup::snapshot()) << '\n';
/// \endcode
inline std::string to_json(const report& r) {
  detail::json_out j;
  j.open('{');
  j.key("schema"), j.value(std::string_view{"warmup.report/1"});
  j.key("enabled"), j.value(r.enabled);
  j.key("device");
  if (!r.device) {
    j.null();
  } else {
    const device_description& d = *r.device;
    j.open('{');
    j.key("index"), j.value(d.index);
    j.key("name"), j.value(std::string_view{d.name});
    j.key("compute_capability"), j.value(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
    j.key("multiprocessors"), j.value(d.multiprocessors);
    j.key("memory_bytes"), j.value(d.memory_bytes);
    j.key("event_pair_floor_ns");
    if (d.event_pair_floor) j.value(static_cast<long long>(d.event_pair_floor->count()));
    else j.null();
    j.key("driver_version"), j.value(d.driver_version);
    j.key("runtime_version"), j.value(d.runtime_version);
    j.close('}');
  }
  j.key("device_status"), j.value(std::string_view{r.device_status});
  j.key("device_pending"), j.value(r.device_pending);
  j.key("library");
  j.open('{');
  detail::write_ns(j, "nvtx_init_ns", r.library.nvtx_init);
  detail::write_ns(j, "event_pools_ns", r.library.event_pools);
  j.key("event_pairs"), j.value(r.library.event_pairs);
  j.key("site_bytes"), j.value(r.library.site_bytes);
  detail::write_ns(j, "device_probe_ns", r.library.device_probe);
  j.close('}');
  j.key("notices");
  j.open('[');
  for (const auto& n : r.notices) j.value(std::string_view{n});
  j.close(']');
  j.key("sites");
  j.open('[');
  for (const site_report& s : r.sites) {
    j.open('{');
    j.key("name"), j.value(std::string_view{s.name});
    j.key("op"), j.value(to_string(s.op));
    j.key("calls"), j.value(s.calls);
    detail::write_timing(j, "host_ns", &s.host);
    detail::write_timing(j, "device_ns", s.device ? &*s.device : nullptr);
    j.key("bytes");
    if (!s.bytes) {
      j.null();
    } else {
      j.open('{');
      j.key("first"), j.value(s.bytes->bytes_first);
      j.key("total"), j.value(s.bytes->bytes_total);
      detail::write_optional(j, "first_gbps", s.bytes->first_gbps);
      j.key("sizes_vary"), j.value(s.bytes->sizes_vary);
      detail::write_optional(j, "steady_gbps", s.bytes->steady_gbps);
      detail::write_optional(j, "mean_gbps", s.bytes->mean_gbps);
      j.key("total_saturated"), j.value(s.bytes->total_saturated);
      j.key("gbps_clock");
      if (s.bytes->gbps_clock) j.value(to_string(*s.bytes->gbps_clock));
      else j.null();
      j.close('}');
    }
    j.key("device_untimed");
    j.open('{');
    j.key("captured"), j.value(s.device_captured);
    j.key("unavailable"), j.value(s.device_unavailable);
    j.key("dropped"), j.value(s.device_dropped);
    j.key("sampled_out"), j.value(s.device_sampled_out);
    j.close('}');
    j.key("exceptions"), j.value(s.exceptions);
    j.key("notes");
    j.open('[');
    for (const auto& n : s.notes) j.value(std::string_view{n});
    j.close(']');
    j.close('}');
  }
  j.close(']');
  j.close('}');
  return std::move(j.text);
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
