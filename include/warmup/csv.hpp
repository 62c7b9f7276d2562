/// @file
/// @brief `warmup::to_csv`: one row per site, for spreadsheets and pandas (RFC 4180).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <optional>
#include <string>

#include "warmup/detail/text.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

class csv_row {
 public:
  explicit csv_row(std::string& out) : out_(out) {}
  ~csv_row() { out_ += "\r\n"; }
  csv_row(const csv_row&) = delete;
  csv_row& operator=(const csv_row&) = delete;

  /// A field, quoted when it holds a comma, a quote or a line break (quotes doubled).
  void text(std::string_view s) {
    sep();
    const std::string v = repair_utf8(s, controls::keep_line_breaks);
    if (v.find_first_of(",\"\r\n") == std::string::npos) {
      out_ += v;
      return;
    }
    out_ += '"';
    for (char c : v) {
      if (c == '"') out_ += '"';
      out_ += c;
    }
    out_ += '"';
  }
  void number(std::uint64_t v) { sep(), out_ += std::to_string(v); }
  void number(std::optional<std::chrono::nanoseconds> v) {
    sep();
    if (v) out_ += std::to_string(v->count());
  }
  void number(std::optional<std::uint64_t> v) {
    sep();
    if (v) out_ += std::to_string(*v);
  }
  void number(std::optional<double> v) {
    sep();
    if (v) append_json_number(out_, *v);
  }

 private:
  void sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

inline void csv_timing(csv_row& row, const timing* t) {
  using ns = std::optional<std::chrono::nanoseconds>;
  const steady_state* s = t != nullptr && t->steady ? &*t->steady : nullptr;
  const auto steady = [&](std::chrono::nanoseconds steady_state::*m) { return s ? ns{s->*m} : ns{}; };
  row.number(t ? ns{t->first} : ns{});
  row.number(t ? std::optional<std::uint64_t>(t->warmup_calls) : std::nullopt);
  for (auto m : {&steady_state::p50, &steady_state::p90, &steady_state::p99, &steady_state::p999,
                 &steady_state::min, &steady_state::max, &steady_state::mean, &steady_state::stddev})
    row.number(steady(m));
  row.number(t ? t->first_call_excess : ns{});
  row.number(t ? ns{t->warmup_excess} : ns{});
  row.number(t ? std::optional<std::uint64_t>(t->cold_recurrences) : std::nullopt);
  row.number(t ? ns{t->cold_excess} : ns{});
}

}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE

/// @brief The report as CSV: a header row, then one row per site (RFC 4180: CRLF line ends,
/// fields with commas, quotes or line breaks quoted, quotes doubled; always valid UTF-8).
///
/// Durations are integer nanoseconds; an empty cell is a figure that does not exist (no steady
/// state, no device time). Columns: name, op, calls, then for `host_` and `device_`: first,
/// warmup_calls, p50, p90, p99, p999, min, max, mean, stddev, first_call_excess, warmup_excess,
/// cold_calls, cold_excess; then bytes_first, bytes_total, first_gbps, steady_gbps, mean_gbps,
/// gbps_clock (host or device; empty where there is no bandwidth), device_captured,
/// device_unavailable, device_dropped, device_sampled_out, exceptions.
/// \code
///   std::ofstream("report.csv") << warmup::to_csv(warmup::snapshot());
///   // pandas.read_csv("report.csv")
/// \endcode
inline std::string to_csv(const report& r) {
  std::string out;
  {
    detail::csv_row head(out);
    for (const char* h : {"name", "op", "calls"}) head.text(h);
    for (const char* clock : {"host_", "device_"})
      for (const char* f : {"first_ns", "warmup_calls", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "min_ns", "max_ns",
                            "mean_ns", "stddev_ns", "first_call_excess_ns", "warmup_excess_ns", "cold_calls",
                            "cold_excess_ns"})
        head.text(std::string(clock) + f);
    for (const char* h : {"bytes_first", "bytes_total", "first_gbps", "steady_gbps", "mean_gbps", "gbps_clock", "device_captured",
                          "device_unavailable", "device_dropped", "device_sampled_out", "exceptions"})
      head.text(h);
  }
  for (const site_report& s : r.sites) {
    detail::csv_row row(out);
    row.text(s.name);
    row.text(to_string(s.op));
    row.number(s.calls);
    detail::csv_timing(row, &s.host);
    detail::csv_timing(row, s.device ? &*s.device : nullptr);
    const transfer* b = s.bytes ? &*s.bytes : nullptr;
    row.number(b ? std::optional<std::uint64_t>(b->bytes_first) : std::nullopt);
    row.number(b ? std::optional<std::uint64_t>(b->bytes_total) : std::nullopt);
    row.number(b ? b->first_gbps : std::nullopt);
    row.number(b ? b->steady_gbps : std::nullopt);
    row.number(b ? b->mean_gbps : std::nullopt);
    row.text(b && b->gbps_clock ? to_string(*b->gbps_clock) : std::string_view{});
    row.number(s.device_captured);
    row.number(s.device_unavailable);
    row.number(s.device_dropped);
    row.number(s.device_sampled_out);
    row.number(s.exceptions);
  }
  return out;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
