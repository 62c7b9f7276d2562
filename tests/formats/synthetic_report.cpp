// Prints a report made up in memory (no timing involved): N sites, each with a warm-up of a
// few calls decaying onto a noisy steady state. For render_svg.py and the format tests.
// usage: synthetic_report N [json|csv|svg|trace|table|timeline]
// "timeline" prints each timeline call as "site index host_start host device_start device" in
// integer nanoseconds: what the trace must carry exactly.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "format_arg.hpp"
#include "warmup/profile.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1;
  const std::string format = argc > 2 ? argv[2] : "svg";
  std::mt19937 rng(7);
  std::lognormal_distribution<double> noise(0.0, 0.15);
  warmup::report r;
  r.device_status = "synthetic";
  warmup::device_description d;
  d.name = "a synthetic GPU";
  d.event_pair_floor = std::chrono::nanoseconds{1247};
  r.device = d;
  for (int s = 0; s < n; ++s) {
    warmup::site_report site;
    site.name = "site " + std::to_string(s) + (s % 5 == 0 ? " (a longer name that must be cut to fit its panel)" : "");
    site.op = static_cast<warmup::op_kind>(s % 7);
    const double steady = 1e4 * (1 + s % 4);
    const std::size_t warm = 1 + s % 4;
    for (std::size_t i = 0; i < 64; ++i) {
      const double v = i < warm ? steady * 300.0 / double(1 + 3 * i) : steady * noise(rng);
      site.first_calls.emplace_back(static_cast<long long>(v));
    }
    // Calls late in a long run, placed to the nanosecond, and one timed before the library was
    // loaded (a static constructor's scope): a negative start.
    for (std::uint64_t i = 64; i < 5000; i *= 2) {
      warmup::call_record c;
      c.index = i;
      c.host = std::chrono::nanoseconds{static_cast<long long>(steady * noise(rng)) + 7};
      c.device = c.host - std::chrono::nanoseconds{1999};
      c.host_start = std::chrono::nanoseconds{123'456'789'012LL + static_cast<long long>(i) * 1001 + s};
      c.device_start = c.host_start + std::chrono::nanoseconds{333};
      site.timeline.push_back(c);
    }
    warmup::call_record zeroth;  // the first call, which carries its causes' stretches
    zeroth.index = 0;
    zeroth.host = site.first_calls[0];
    zeroth.host_start = std::chrono::nanoseconds{1'000'000'000LL + s};
    site.timeline.insert(site.timeline.begin(), zeroth);
    warmup::call_record early;
    early.index = 1;
    early.host_start = std::chrono::nanoseconds{-1501};
    early.host = std::chrono::nanoseconds{999};
    site.timeline.insert(site.timeline.begin() + 1, early);
    site.calls = site.host.calls = 5000;
    site.host.first = site.first_calls[0];
    site.host.warmup_calls = warm;
    warmup::steady_state st;
    st.calls = 5000 - warm;
    st.p50 = std::chrono::nanoseconds{static_cast<long long>(steady)};
    st.p99 = std::chrono::nanoseconds{static_cast<long long>(steady * 1.4)};
    site.host.steady = st;
    if (s % 2 == 1) {  // every field of the report appears somewhere
      warmup::attribution why;
      why.calls = 1;
      why.call = site.host.first;
      why.excess = site.host.first - st.p50;
      why.causes = {{warmup::cause::module_load, why.excess / 2, 3, {}},
                    {warmup::cause::lazy_kernel_load, why.excess / 8, 1, {}},
                    {warmup::cause::host_code, why.excess / 8, 12, "libcudnn_heuristic.so.9"}};
      why.named = why.causes[0].time + why.causes[1].time + why.causes[2].time;
      why.unattributed = why.excess - why.named;
      site.host.cold_causes = why;
      // Where in the first call: a module load, then a lazy kernel load inside what follows.
      why.spans = {{warmup::cause::module_load, site.host.first / 20, why.excess / 2},
                   {warmup::cause::lazy_kernel_load, site.host.first / 20 + why.excess / 2 + why.excess / 16, why.excess / 8}};
      why.spans_left_out = 3;
      site.host.first_call_causes = why;
      warmup::host_signals h;
      h.cpu = site.host.first / 2;
      h.minor_faults = 1000;
      h.libraries_loaded = {"libcublasLt.so.13"};
      h.context_existed = true;
      site.first_call_host = h;
      site.pool = warmup::pool_growth{20, 20, 20ull << 26, 1ull << 26};
      site.device = site.host;
    }
    if (warmup::is_copy(site.op)) {
      warmup::transfer x;
      x.first = 1 << 20;
      x.total = std::uint64_t{5000} << 20;
      x.gbps_clock = warmup::clock_domain::host;
      x.first_gbps = double(x.first) / double(site.host.first.count());
      site.bytes = x;
    }
    r.sites.push_back(site);
  }
  if (format == "timeline") {
    for (std::size_t s = 0; s < r.sites.size(); ++s)
      for (const warmup::call_record& c : r.sites[s].timeline)
        std::cout << s << ' ' << c.index << ' ' << c.host_start.count() << ' ' << c.host.count() << ' '
                  << (c.device_start ? std::to_string(c.device_start->count()) : "-") << ' '
                  << (c.device ? std::to_string(c.device->count()) : "-") << '\n';
    return 0;
  }
  const warmup::report_format f = format_arg(format, warmup::report_format::svg);
  std::cout << warmup::format_report(r, f);
}
