// A report made by hand, for the tests of the writers (table, JSON, CSV) and report::find.
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "warmup/report.hpp"

namespace support {

/// A site named `name` of one call, `first` long on the host (the rest as a fresh site_report
/// has it).
inline warmup::site_report one_call(std::string name, std::chrono::nanoseconds first = {},
                                    warmup::op_kind op = warmup::site_report{}.op) {
  warmup::site_report s;
  s.name = std::move(name);
  s.op = op;
  s.calls = s.host.calls = 1;
  s.host.first = first;
  return s;
}

/// Two sites, no device: "once" (a context, called once, 120 ms) and "upload" (an h2d copy of
/// 3 calls, a steady p50 of 1 ms, 1 MB first, 3 MB in all, bandwidth by the host's clock).
inline warmup::report sample_report() {
  using namespace std::chrono_literals;
  warmup::report r;
  r.device_status = "no GPU here";
  const warmup::site_report once = one_call("once", 120ms, warmup::op_kind::context);
  warmup::site_report copy;
  copy.name = "upload";
  copy.op = warmup::op_kind::h2d;
  copy.calls = copy.host.calls = 3;
  copy.host.first = 3ms;
  copy.host.warmup_calls = 1;
  warmup::steady_state steady;
  steady.calls = 2;
  steady.p50 = steady.p90 = steady.p99 = steady.p999 = steady.min = steady.max = steady.mean = 1ms;
  copy.host.steady = steady;
  copy.host.first_call_excess = 2ms;
  copy.host.total = 5ms;
  warmup::transfer bytes;
  bytes.first = 1'000'000;
  bytes.total = 3'000'000;
  bytes.first_gbps = 0.333;
  bytes.steady_gbps = 1.0;
  bytes.mean_gbps = 0.6;
  bytes.gbps_clock = warmup::clock_domain::host;
  copy.bytes = bytes;
  r.sites = {once, copy};
  return r;
}

}  // namespace support
