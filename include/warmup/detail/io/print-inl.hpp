/// @file
/// @brief `print` and `table_text` (print.hpp declares them),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/table_writer.hpp"

WARMUP_BEGIN_NAMESPACE
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
  std::vector<std::vector<std::string>> notes;  // the lines under each site's rows
  // What would be the same line under many sites is said once, under the table.
  std::size_t ran_once = 0, quiet_first_calls = 0;
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
    const auto add = [&](std::vector<std::string> lines) { under.insert(under.end(), lines.begin(), lines.end()); };
    const bool has_steady = s.host.steady.has_value();
    if (s.host.first_call_causes) add(detail::why_lines(*s.host.first_call_causes, detail::slow_calls::first, has_steady));
    if (s.host.cold_causes) add(detail::why_lines(*s.host.cold_causes, detail::slow_calls::recurrences, has_steady));
    if (s.first_call_host) {
      if (detail::host_signals_tell(*s.first_call_host, s.host.first))
        under.push_back("host: " + detail::host_line(*s.first_call_host, s.host.first));
      else
        ++quiet_first_calls;
    }
    for (const std::string& n : s.notes) under.push_back("note: " + n);
    ran_once += s.host.calls == 1;
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
    for (const std::string& text : notes[i]) os << "    " << text << '\n';
  }
  if (r.sites.empty()) os << "(no site was measured)\n";
  if (ran_once != 0)
    os << (ran_once == 1 ? std::string("1 site ran once: its first call is its only call")
                         : std::to_string(ran_once) + " sites ran once: their first call is their only call")
       << ", with no steady state to compare it with\n";
  if (quiet_first_calls != 0)
    os << "host: " << (quiet_first_calls == 1 ? std::string("1 more first call") : std::to_string(quiet_first_calls) + " more first calls")
       << " neither waited long, faulted many pages nor loaded a library (figures: first_call_host in JSON)\n";
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
