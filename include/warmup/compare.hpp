/// @file
/// @brief `warmup::compare`: two runs' reports side by side, per site a verdict (faster,
/// slower, same) on the first call, the warm-up excess and the steady p50, for gating CI.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/detail/io/text_table.hpp"
#include "warmup/detail/io/json.hpp"
#include "warmup/merge.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The schema name a comparison carries first, under "schema".
inline constexpr std::string_view compare_json_schema = "warmup.compare/1";

/// @brief What a comparison decided about one figure.
enum class verdict : std::uint8_t {
  same,     ///< within the threshold, within the floor, or the intervals overlap
  faster,   ///< lower beyond the threshold (and, where both have one, the p50 intervals apart)
  slower,   ///< higher beyond the threshold (and, where both have one, the p50 intervals apart)
  missing,  ///< the figure exists in one report only
};

/// @brief A verdict's name: "same", "faster", "slower" or "missing".
constexpr std::string_view to_string(verdict v) noexcept {
  switch (v) {  // no default: a new verdict without its name is a -Wswitch warning
    case verdict::same: return "same";
    case verdict::faster: return "faster";
    case verdict::slower: return "slower";
    case verdict::missing: return "missing";
  }
  return "same";
}

/// @brief How `compare` decides. The defaults are documented in docs/ranks-and-runs.md ("compare BASE NEW").
/// \code
///   warmup::compare_options o;
///   o.threshold = 0.05;                        // flag changes beyond 5%
///   o.floor = std::chrono::microseconds{2};    // and beyond 2 us
/// \endcode
struct compare_options {
  /// A figure changes only when new / base differs from 1 by more than this (0.10 = 10%).
  double threshold = 0.10;
  /// ... and by more than this in absolute time, for steady p50s: a site of tens of
  /// nanoseconds moving by a few is timer noise.
  std::chrono::nanoseconds floor = std::chrono::microseconds{1};
  /// The same for first calls and warm-up excesses, one sample each: a cold call's run-to-run
  /// noise on a GPU is tens of microseconds (two identical runs of examples/nccl: the first
  /// 256 KiB all-reduce took 62.9 us, then 73.6 us: BENCHMARKS.md).
  std::chrono::nanoseconds first_floor = std::chrono::microseconds{50};
};

/// @brief One figure in both runs and the verdict on it.
/// \code
///   const warmup::figure_change& f = site.p50;
///   if (f.change == warmup::verdict::slower) std::cout << "p50 x" << *f.ratio << " (" << f.basis << ")\n";
/// \endcode
struct figure_change {
  ///@{
  /// The figure in the base run and in the new one; empty where that run lacks it.
  std::optional<std::chrono::nanoseconds> base, now;
  ///@}
  std::optional<double> ratio;  ///< now / base; empty where either is missing or base is 0
  verdict change = verdict::same;  ///< what the comparison decided
  /// What the verdict rests on: "interval" (the p50 confidence intervals), "threshold" (one
  /// sample, or an interval missing), "floor" (a change smaller than the floor), "" (missing).
  std::string basis;

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = figure_change;
    return std::make_tuple(WARMUP_DETAIL_FIELD(base), WARMUP_DETAIL_FIELD(now), WARMUP_DETAIL_FIELD(ratio),
                           WARMUP_DETAIL_FIELD(change), WARMUP_DETAIL_FIELD(basis));
  }
};

/// @brief One site present in both runs.
/// \code
///   for (const warmup::site_change& s : warmup::compare(base, now).sites)
///     if (s.regressed) std::cout << s.name << ": first call " << warmup::to_string(s.first.change) << '\n';
/// \endcode
struct site_change {
  std::string name;              ///< the site's name
  op_kind op = op_kind::region;  ///< the site's kind
  ///@{
  /// Host clock: the first call, the warm-up excess and the steady p50.
  figure_change first, warmup_excess, p50;
  ///@}
  ///@{
  /// The device's first call and p50, where either run timed the device.
  std::optional<figure_change> device_first, device_p50;
  ///@}
  bool regressed = false;  ///< a figure is `slower`

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = site_change;
    return std::make_tuple(WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(op), WARMUP_DETAIL_FIELD(regressed),
                           WARMUP_DETAIL_FIELD(first), WARMUP_DETAIL_FIELD(warmup_excess), WARMUP_DETAIL_FIELD(p50),
                           WARMUP_DETAIL_FIELD(device_first), WARMUP_DETAIL_FIELD(device_p50));
  }
};

/// @brief A site one run has and the other lacks.
/// \code
///   for (const warmup::site_name& s : c.added) std::cout << "new site: " << s.name << '\n';
/// \endcode
struct site_name {
  std::string name;              ///< the site's name
  op_kind op = op_kind::region;  ///< the site's kind

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = site_name;
    return std::make_tuple(WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(op));
  }
};

/// @brief What, besides the code, decides what a first call costs: the GPU, the CUDA driver and
/// runtime, how modules load, the JIT cache, and the library's own settings and version. A new
/// driver or runtime is the usual cause of a first-call change, so `compare` lists every one
/// that differs between the runs above its verdicts. An empty value is one the run did not
/// record (a merged report carries the GPU and the library's version only): never compared.
/// \code
///   for (const warmup::setup_change& c : warmup::compare(base, now).run_changes)
///     std::cout << c.what << ": " << c.base << " -> " << c.now << '\n';
/// \endcode
struct run_setup {
  std::string gpu;              ///< the GPU's name; "none" without one
  ///@{
  /// The CUDA driver's and runtime's versions, "12.8".
  std::string driver, runtime;
  ///@}
  std::string module_loading;   ///< CUDA_MODULE_LOADING as the driver reads it
  std::string jit_cache;        ///< the JIT cache's settings
  std::string attribution;      ///< "cupti", "off", or why it fell back
  std::string cpu_sampling;     ///< "off", or how often first calls were sampled
  std::string library_version;  ///< warmup's

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = run_setup;
    return std::make_tuple(WARMUP_DETAIL_FIELD(gpu), WARMUP_DETAIL_FIELD(driver), WARMUP_DETAIL_FIELD(runtime),
                           WARMUP_DETAIL_FIELD(module_loading), WARMUP_DETAIL_FIELD(jit_cache),
                           WARMUP_DETAIL_FIELD(attribution), WARMUP_DETAIL_FIELD(cpu_sampling),
                           WARMUP_DETAIL_FIELD(library_version));
  }
};

/// @brief One entry of `run_setup` that differs between the runs: its name and both values.
/// \code
///   for (const warmup::setup_change& s : c.run_changes)
///     std::cout << s.what << ": " << s.base << " -> " << s.now << '\n';
/// \endcode
struct setup_change {
  std::string what;  ///< the `run_setup` member's name: "driver", "module_loading", ...
  ///@{
  /// Its value in the base run and in the new one.
  std::string base, now;
  ///@}

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = setup_change;
    return std::make_tuple(WARMUP_DETAIL_FIELD(what), WARMUP_DETAIL_FIELD(base), WARMUP_DETAIL_FIELD(now));
  }
};

/// @brief Two runs compared (`warmup::compare`, `warmup-report compare`).
/// \code
///   const warmup::comparison c = warmup::compare(base, now);
///   warmup::print(c, std::cout);
///   return c.regressed ? 1 : 0;
/// \endcode
struct comparison {
  double threshold = 0.10;  ///< the `compare_options` it was made with
  ///@{
  /// The floors it was made with (`compare_options`): steady p50s, and first calls and warm-ups.
  std::chrono::nanoseconds floor{}, first_floor{};
  ///@}
  bool regressed = false;          ///< a site has a `slower` figure
  /// What differs between the runs' setups (driver, runtime, GPU, module loading, ...), which
  /// may explain a verdict better than the code does; empty where nothing known differs.
  std::vector<setup_change> run_changes;
  std::vector<std::string> notices;  ///< what else the comparison had to say
  std::vector<site_change> sites;  ///< in both, in the new run's order
  std::vector<site_name> removed;  ///< in the base run only
  std::vector<site_name> added;    ///< in the new run only

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = comparison;
    return std::make_tuple(WARMUP_DETAIL_FIELD(threshold), WARMUP_DETAIL_FIELD(floor), WARMUP_DETAIL_FIELD(first_floor),
                           WARMUP_DETAIL_FIELD(regressed), WARMUP_DETAIL_FIELD(run_changes),
                           WARMUP_DETAIL_FIELD(notices), WARMUP_DETAIL_FIELD(sites), WARMUP_DETAIL_FIELD(removed),
                           WARMUP_DETAIL_FIELD(added));
  }
};

/// @brief One run as a comparison reads it: per site, its figures and their intervals. Made
/// from a report, or from a merged report (then each figure is the slowest rank's: the rank a
/// job waits for), so runs of one process and of many compare the same way.
/// \code
///   const warmup::compare_input base = warmup::compare_view(warmup::snapshot());
/// \endcode
struct compare_input {
  /// A site's figures (`summarize`), and its p50s' 95% intervals where the run has them.
  /// \code
  ///   for (const warmup::compare_input::site& s : input.sites)
  ///     if (s.p50_low) std::cout << s.name << ": p50 >= " << s.p50_low->count() << " ns\n";
  /// \endcode
  struct site : site_summary {
    ///@{
    /// The host p50's and the device p50's 95% confidence intervals, low and high ends.
    std::optional<std::chrono::nanoseconds> p50_low, p50_high, device_p50_low, device_p50_high;
    ///@}
  };
  run_setup setup;   ///< what the run ran on and with
  std::string what;  ///< "report" or "merged report of N ranks"
  std::vector<site> sites;  ///< its sites, in the run's order
};

namespace detail {
/// "12.8" from CUDA's 12080; empty for 0 (not known).
inline std::string cuda_version(int v) {
  return v == 0 ? std::string() : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// Every distinct value of one member of the ranks, in rank order: "NVIDIA H100, NVIDIA A100".
inline std::string distinct(const std::vector<merged_rank>& ranks, std::string merged_rank::*member) {
  std::vector<std::string_view> seen;
  std::string out;
  for (const merged_rank& r : ranks) {
    const std::string& v = r.*member;
    if (v.empty() || std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
    seen.push_back(v);
    out += (out.empty() ? "" : ", ") + v;
  }
  return out;
}
}  // namespace detail

/// @brief A report as a comparison reads it.
inline compare_input compare_view(const report& r) {
  compare_input in;
  in.what = "report";
  run_setup& u = in.setup;
  u.gpu = r.device ? r.device->name : "none";
  if (r.device) u.driver = detail::cuda_version(r.device->driver_version), u.runtime = detail::cuda_version(r.device->runtime_version);
  u.module_loading = r.module_loading, u.jit_cache = r.jit_cache;
  u.attribution = r.attribution_source, u.cpu_sampling = r.cpu_sampling;
  u.library_version = r.identity.library_version;
  for (const site_report& s : r.sites) {
    compare_input::site c;
    static_cast<site_summary&>(c) = summarize(s);
    if (s.host.steady) c.p50_low = s.host.steady->p50_low, c.p50_high = s.host.steady->p50_high;
    if (s.device && s.device->calls != 0 && s.device->steady)
      c.device_p50_low = s.device->steady->p50_low, c.device_p50_high = s.device->steady->p50_high;
    in.sites.push_back(std::move(c));
  }
  return in;
}

/// @brief A merged report as a comparison reads it: each figure the slowest rank's (no
/// intervals: verdicts rest on the threshold); of its setup, the GPUs and library versions its
/// ranks name.
inline compare_input compare_view(const merged_report& m) {
  compare_input in;
  in.what = "merged report of " + std::to_string(m.ranks.size()) + " ranks";
  in.setup.gpu = detail::distinct(m.ranks, &merged_rank::device);
  in.setup.library_version = detail::distinct(m.ranks, &merged_rank::library_version);
  for (const merged_site& s : m.sites) {
    compare_input::site c;
    c.name = s.name, c.op = s.op, c.first = s.first.max, c.warmup_excess = s.warmup_excess.max;
    if (s.p50) c.p50 = s.p50->max;
    if (s.device_first) c.device_first = s.device_first->max;
    if (s.device_p50) c.device_p50 = s.device_p50->max;
    in.sites.push_back(std::move(c));
  }
  return in;
}

namespace detail {

using opt_ns = std::optional<std::chrono::nanoseconds>;

/// The verdict on one figure. With both intervals, a change counts only where they do not
/// overlap (the p50s differ at 95% confidence) and it passes the threshold; without, on the
/// threshold alone; any change within the floor is "same".
inline figure_change judge(opt_ns base, opt_ns now, opt_ns base_low, opt_ns base_high, opt_ns now_low, opt_ns now_high,
                           double threshold, std::chrono::nanoseconds floor) {
  figure_change f;
  f.base = base, f.now = now;
  if (!base || !now) {
    f.change = base || now ? verdict::missing : verdict::same;
    return f;
  }
  const double b = double(base->count()), n = double(now->count());
  if (b > 0) f.ratio = n / b;
  const double change = b > 0 ? n / b - 1 : (n > 0 ? HUGE_VAL : 0.0);
  if (std::fabs(n - b) <= double(floor.count())) {
    f.basis = "floor";
    return f;
  }
  const bool intervals = base_low && base_high && now_low && now_high;
  f.basis = intervals ? "interval" : "threshold";
  if (change > threshold && (!intervals || *now_low > *base_high)) f.change = verdict::slower;
  else if (change < -threshold && (!intervals || *now_high < *base_low)) f.change = verdict::faster;
  return f;
}

inline std::string site_key(op_kind op, std::string_view name) {
  std::string k(1, static_cast<char>(op));
  return k.append(name);
}

}  // namespace detail

/// @brief Compares two runs site by site (by kind and name): the first call, the warm-up
/// excess and the steady p50 on the host clock, and the device's first call and p50 where
/// timed. A figure is `slower` when new / base - 1 exceeds `threshold`, the change exceeds
/// `floor` (`first_floor` for first calls and warm-up excesses), and, for a p50 where both runs have its 95% interval, the new interval lies
/// wholly above the old; `faster` likewise below. First calls and warm-up excesses are one
/// sample each: their verdicts rest on the threshold alone. Sites in one run only are listed
/// as `removed` or `added`, never judged. What differs between the runs' setups (`run_setup`:
/// driver, runtime, GPU, ...) is listed in `run_changes`.
/// \code
///   std::string error;
///   const auto base = warmup::read_report(base_json, error), now = warmup::read_report(new_json, error);
///   if (base && now && warmup::compare(warmup::compare_view(*base), warmup::compare_view(*now)).regressed)
///     return 1;
/// \endcode
inline comparison compare(const compare_input& base, const compare_input& now, const compare_options& o = {}) {
  comparison c;
  c.threshold = o.threshold;
  c.floor = o.floor;
  c.first_floor = o.first_floor;
  std::apply(
      [&](const auto&... fs) {
        const auto differ = [&](const char* what, const std::string& was, const std::string& is) {
          if (!was.empty() && !is.empty() && was != is) c.run_changes.push_back({what, was, is});
        };
        (differ(fs.name, base.setup.*(fs.member), now.setup.*(fs.member)), ...);
      },
      run_setup::fields());
  if (base.what != now.what) c.notices.push_back("comparing a " + base.what + " with a " + now.what);
  std::unordered_map<std::string, const compare_input::site*> old;
  for (const compare_input::site& s : base.sites) old.emplace(detail::site_key(s.op, s.name), &s);
  for (const compare_input::site& n : now.sites) {
    const auto it = old.find(detail::site_key(n.op, n.name));
    if (it == old.end()) {
      c.added.push_back({n.name, n.op});
      continue;
    }
    const compare_input::site& b = *it->second;
    old.erase(it);
    site_change s;
    s.name = n.name, s.op = n.op;
    const auto one_sample = [&](detail::opt_ns was, detail::opt_ns is) { return detail::judge(was, is, {}, {}, {}, {}, o.threshold, o.first_floor); };
    s.first = one_sample(b.first, n.first);
    s.warmup_excess = one_sample(b.warmup_excess, n.warmup_excess);
    s.p50 = detail::judge(b.p50, n.p50, b.p50_low, b.p50_high, n.p50_low, n.p50_high, o.threshold, o.floor);
    if (b.device_first || n.device_first) {
      s.device_first = one_sample(b.device_first, n.device_first);
      s.device_p50 = detail::judge(b.device_p50, n.device_p50, b.device_p50_low, b.device_p50_high, n.device_p50_low,
                                   n.device_p50_high, o.threshold, o.floor);
    }
    for (const figure_change* f : {&s.first, &s.warmup_excess, &s.p50})
      s.regressed = s.regressed || f->change == verdict::slower;
    for (const auto* f : {&s.device_first, &s.device_p50})
      s.regressed = s.regressed || (*f && (*f)->change == verdict::slower);
    c.regressed = c.regressed || s.regressed;
    c.sites.push_back(std::move(s));
  }
  for (const compare_input::site& b : base.sites)
    if (old.count(detail::site_key(b.op, b.name)) != 0) c.removed.push_back({b.name, b.op});
  return c;
}

/// @brief A comparison as a table: per site and figure, base -> new, the ratio and the
/// verdict; then the sites in one run only, and a last line that says whether anything
/// regressed.
inline void print(const comparison& c, std::ostream& os) {
  using detail::format_duration;
  os << "warmup compare: threshold " << detail::fmt("%.1f", c.threshold * 100) << "%, floor " << format_duration(c.floor)
     << " (first calls " << format_duration(c.first_floor)
     << "); p50 verdicts need the 95% intervals apart where both runs have them\n";
  if (!c.run_changes.empty()) {
    // Above the verdicts: a new driver or runtime explains a first call's change before the code does.
    os << "changed between the runs (first calls depend on it):\n";
    for (const setup_change& x : c.run_changes)
      os << "  " << x.what << ": " << detail::printable(x.base, 200) << " -> " << detail::printable(x.now, 200) << '\n';
  }
  detail::text_table t({"site", "op", "figure", "base", "new", "new/base", "verdict"}, 3);
  const auto row = [&](const site_change& s, const char* what, const figure_change& f, bool with_name) {
    const auto cell = [](const detail::opt_ns& v) { return v ? format_duration(*v) : std::string("-"); };
    std::string v(to_string(f.change));
    if (f.change == verdict::slower) v = "SLOWER";
    if (!f.basis.empty() && f.change != verdict::same) v += " (" + f.basis + ")";
    t.row({with_name ? detail::printable(s.name, 32) : "", with_name ? std::string(to_string(s.op)) : "", what, cell(f.base),
           cell(f.now), f.ratio ? detail::fmt("%.3f", *f.ratio) : "-", v});
  };
  for (const site_change& s : c.sites) {
    row(s, "first", s.first, true);
    row(s, "warm-up excess", s.warmup_excess, false);
    row(s, "p50", s.p50, false);
    if (s.device_first) row(s, "dev first", *s.device_first, false);
    if (s.device_p50) row(s, "dev p50", *s.device_p50, false);
  }
  t.print(os);
  for (const site_name& s : c.removed) os << "removed (base only): " << to_string(s.op) << " " << detail::printable(s.name, 80) << '\n';
  for (const site_name& s : c.added) os << "added (new only): " << to_string(s.op) << " " << detail::printable(s.name, 80) << '\n';
  for (const std::string& n : c.notices) os << "notice: " << detail::printable(n, 400) << '\n';
  std::size_t slower = 0;
  for (const site_change& s : c.sites) slower += s.regressed;
  if (c.regressed) os << "REGRESSED: " << slower << " of " << c.sites.size() << " sites slower beyond the threshold\n";
  else os << "no regression: " << c.sites.size() << " sites compared\n";
}

/// @brief A comparison as one line of JSON, schema `warmup.compare/1`.
inline std::string to_json(const comparison& c) { return detail::document_json(compare_json_schema, c); }

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
