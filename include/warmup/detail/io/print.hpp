/// @file
/// @brief The table writer (print.hpp declares `print`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/print.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline std::string cell_duration(const std::optional<std::chrono::nanoseconds>& d, bool sign = false) {
  if (!d) return "-";
  std::string s = format_duration(*d);
  return sign && d->count() > 0 ? "+" + s : s;
}

inline std::string cell_gbps(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", *v);
  return buf;
}

inline std::string pad(const std::string& s, std::size_t width, bool right) {
  // Width in characters: count UTF-8 lead bytes only.
  std::size_t chars = 0;
  for (const char c : s) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  const std::string fill(chars < width ? width - chars : 0, ' ');
  return right ? fill + s : s + fill;
}

}  // namespace detail

namespace detail {

/// "118 ms over the steady p50 = module loads 61 ms (4) + host code libcudnn_heuristic.so.9
/// 40 ms (40 samples) + ... + unattributed 17 ms". The largest few shared objects by name, the
/// rest together.
inline std::string why_line(const attribution& a) {
  constexpr std::size_t objects_named = 6;
  std::string out = (a.calls > 1 ? std::to_string(a.calls) + " cold calls " : std::string()) + format_duration(a.excess) +
                    " over the steady p50 =";
  std::size_t objects = 0, rest_objects = 0;
  std::chrono::nanoseconds rest{};
  std::uint64_t rest_samples = 0;
  for (const cause_time& c : a.causes) {
    if (c.what == cause::waiting) {
      out += " " + std::string(describe(c.what)) + " " + format_duration(c.time) + " (" + std::to_string(c.count) +
             " major page faults) +";
    } else if (c.what != cause::host_code) {
      out += " " + std::string(describe(c.what)) + " " + format_duration(c.time) + " (" + std::to_string(c.count) + ") +";
    } else if (objects++ < objects_named) {
      out += " host code " + printable(c.where, 60) + " " + format_duration(c.time) + " (" + std::to_string(c.count) +
             " samples) +";
    } else {
      ++rest_objects, rest += c.time, rest_samples += c.count;
    }
  }
  if (rest_objects != 0)
    out += " host code in " + std::to_string(rest_objects) + " other objects " + format_duration(rest) + " (" +
           std::to_string(rest_samples) + " samples) +";
  if (a.unattributed.count() >= 0) return out + " unattributed " + format_duration(a.unattributed);
  out.pop_back();
  return out + "; the named causes exceed the excess by " + format_duration(-a.unattributed) +
         " (the steady calls spend time on them too)";
}

/// "CPU 184 ms of 188 ms (working, not waiting), 51000 minor and 45 major page faults, loaded libcudnn.so.9".
inline std::string host_line(const host_signals& h, std::chrono::nanoseconds wall) {
  std::string out = "first call on the CPU " + format_duration(h.cpu) + " of " + format_duration(wall) +
                    (h.cpu * 2 > wall ? " (working, not waiting)" : " (mostly waiting)") + ", " +
                    std::to_string(h.minor_faults) + " minor and " + std::to_string(h.major_faults) + " major page faults";
  if (h.context_existed) out += *h.context_existed ? ", context existed" : ", no context yet: it paid for creating it";
  if (!h.libraries_loaded.empty()) {
    out += ", loaded " + std::to_string(h.libraries_loaded.size()) + " shared libraries:";
    for (std::size_t i = 0; i < h.libraries_loaded.size() && i < 6; ++i) out += " " + printable(h.libraries_loaded[i], 60);
    if (h.libraries_loaded.size() > 6) out += " ...";
  }
  return out;
}

}  // namespace detail

WARMUP_DETAIL_RUNTIME void print(const report& r, std::ostream& os) {
  using detail::pad;
  if (!r.enabled) {
    os << "warmup: disabled at compile time (WARMUP_DISABLE); nothing was measured\n";
    return;
  }
  os << "warmup report";
  if (r.device) {
    const device_description& d = *r.device;
    os << ": " << d.name << " (device " << d.index << ", sm_" << d.compute_major << d.compute_minor
       << ", " << d.multiprocessors << " SMs), driver " << d.driver_version / 1000 << '.'
       << (d.driver_version % 1000) / 10 << ", runtime " << d.runtime_version / 1000 << '.'
       << (d.runtime_version % 1000) / 10;
    if (d.event_pair_floor)
      os << "; event-pair floor " << detail::format_duration(*d.event_pair_floor)
         << " (in every device time: read kernels under ~20 us with it in mind)";
  } else {
    os << ": no device description (" << r.device_status << ")";
  }
  os << '\n';
  if (!r.module_loading.empty())
    os << "module loading " << r.module_loading << ", JIT cache " << r.jit_cache << "; attribution "
       << r.attribution_source << "; CPU sampling " << r.cpu_sampling << '\n';
  if (!r.host_clock.empty()) os << "host clock: " << r.host_clock << '\n';
  if (const run_identity& id = r.identity; id.rank) {
    os << "rank " << *id.rank;
    if (id.world_size) os << " of " << *id.world_size;
    if (id.local_rank) os << " (local " << *id.local_rank << ")";
    os << ", from " << id.launcher << "'s variables, on " << id.host << ", pid " << id.pid << '\n';
  }

  const std::vector<std::string> head = {"site", "op", "clock", "calls", "warm-up", "first",
                                         "p50",  "p90", "p99",  "first excess", "warm-up excess", "GB/s first/steady/mean"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<std::pair<const char*, std::string>>> notes;  // (label, text) under each site's rows
  for (const site_report& s : r.sites) {
    const auto row = [&](const timing& t, const char* clock, bool with_name) {
      std::vector<std::string> c;
      c.push_back(with_name ? detail::printable(s.name, 32) : "");
      c.push_back(with_name ? std::string(to_string(s.op)) : "");
      c.push_back(clock);
      c.push_back(std::to_string(t.calls));
      c.push_back(std::to_string(t.warmup_calls));
      c.push_back(detail::format_duration(t.first));
      const auto q = [&](std::chrono::nanoseconds steady_state::*m) {
        return t.steady ? detail::format_duration((*t.steady).*m) : std::string("-");
      };
      c.push_back(q(&steady_state::p50));
      c.push_back(q(&steady_state::p90));
      c.push_back(q(&steady_state::p99));
      c.push_back(detail::cell_duration(t.first_call_excess, true));
      c.push_back(t.warmup_calls != 0 ? detail::cell_duration(t.warmup_excess, true) : std::string("-"));
      // Bandwidth on the row of the clock it was read from; "(host)" where that is the host's.
      const bool bw_here = s.bytes && s.bytes->gbps_clock && (s.device ? &t == &*s.device : true);
      c.push_back(bw_here ? detail::cell_gbps(s.bytes->first_gbps) + " / " + detail::cell_gbps(s.bytes->steady_gbps) +
                                " / " + detail::cell_gbps(s.bytes->mean_gbps) +
                                (*s.bytes->gbps_clock == clock_domain::host ? " (host)" : "")
                          : "");
      rows.push_back(std::move(c));
      notes.emplace_back();
    };
    row(s.host, "host", true);
    if (s.device) row(*s.device, "dev", false);
    auto& under = notes.back();
    if (s.host.first_call_causes) under.emplace_back("why", "first call " + detail::why_line(*s.host.first_call_causes));
    if (s.host.cold_causes) under.emplace_back("why", detail::why_line(*s.host.cold_causes));
    if (s.first_call_host) under.emplace_back("host", detail::host_line(*s.first_call_host, s.host.first));
    for (const std::string& n : s.notes) under.emplace_back("note", n);
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& c : rows)
    for (std::size_t i = 0; i < c.size(); ++i) {
      std::size_t chars = 0;
      for (const char ch : c[i]) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
      width[i] = std::max(width[i], chars);
    }
  const auto line = [&](const std::vector<std::string>& c) {
    std::string out;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const bool right = i >= 3 && i + 1 < c.size();
      out += pad(c[i], width[i], right);
      if (i + 1 < c.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    os << out << '\n';
  };
  line(head);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    line(rows[i]);
    for (const auto& [label, text] : notes[i]) os << "    " << label << ": " << text << '\n';
  }
  if (r.sites.empty()) os << "(no site was measured)\n";
  os << "library (outside every measurement): NVTX init " << detail::format_duration(r.library.nvtx_init)
     << ", " << r.library.event_pairs << " event pairs made in "
     << detail::format_duration(r.library.event_pools) << ", " << r.library.site_bytes
     << " bytes of site data";
  if (r.library.device_probe.count() > 0)
    os << ", " << detail::format_duration(r.library.device_probe) << " looking for a GPU that could not be used";
  os << '\n';
  if (r.device_pending != 0)
    os << r.device_pending << " device measurements were still running on the GPU (not in the figures)\n";
  for (const auto& n : r.notices) os << "notice: " << detail::printable(n, 400) << '\n';
}

WARMUP_DETAIL_RUNTIME std::string detail::table_text(const report& r) {
  std::ostringstream os;
  print(r, os);
  return os.str();
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
