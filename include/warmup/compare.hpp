/// @file
/// @brief `warmup::compare`: two runs' reports side by side, per site a verdict (faster,
/// slower, same) on each figure of `site_figures`, for gating CI. Its writers (the table and
/// the JSON) are in compare_formats.hpp.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/figure_table.hpp"
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
  /// noise on a GPU is tens of microseconds (BENCHMARKS.md: the first all-reduce of two
  /// identical runs of examples/nccl).
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

namespace detail {

/// A figure the comparison does not judge (a count): a member with nothing in it, in no field list.
struct not_judged {};

/// What a comparison keeps of a figure: the verdict on a host figure; on a device figure, the
/// verdict where either run timed the device; nothing for a figure it does not judge.
template <class Row>
using figure_verdict = std::conditional_t<Row::judged == figure_judgement::none, not_judged,
                                          std::conditional_t<Row::clock == figure_clock::host, figure_change,
                                                             std::optional<figure_change>>>;

/// The judged figures in the order a comparison lists them: per clock (host, then device), its
/// cold figures (one sample each), then its steady ones, each group in the table's order.
template <std::size_t... I>
constexpr auto judged_order(std::index_sequence<I...>) {
  constexpr figure_clock clocks[] = {std::tuple_element_t<I, figure_rows>::clock...};
  constexpr figure_judgement judged[] = {std::tuple_element_t<I, figure_rows>::judged...};
  std::pair<std::array<std::size_t, sizeof...(I)>, std::size_t> order{};
  for (const figure_clock on : {figure_clock::host, figure_clock::device})
    for (const bool cold : {true, false})
      for (std::size_t i = 0; i < sizeof...(I); ++i)
        if (judged[i] != figure_judgement::none && clocks[i] == on && (judged[i] == figure_judgement::cold) == cold)
          order.first[order.second++] = i;
  return order;
}
inline constexpr auto judged_figures = judged_order(std::make_index_sequence<figure_count>{});
template <std::size_t K>
using judged_row = std::tuple_element_t<judged_figures.first[K], figure_rows>;

template <class F, std::size_t... K>
void for_each_judged(F& f, std::index_sequence<K...>) {
  (f(judged_row<K>{}), ...);
}
/// Calls `f(row)` for each judged figure, in the comparison's order.
template <class F>
void for_each_judged(F&& f) {
  for_each_judged(f, std::make_index_sequence<judged_figures.second>{});
}

template <class T, std::size_t... K>
constexpr auto judged_fields(std::index_sequence<K...>) {
  return std::make_tuple(make_field(judged_row<K>::name, judged_row<K>::template member<T>())...);
}
/// The field list of the judged figures of `T`, in the comparison's order.
template <class T>
constexpr auto judged_fields() {
  return judged_fields<T>(std::make_index_sequence<judged_figures.second>{});
}

}  // namespace detail

/// @brief One site present in both runs: a verdict (`figure_change`) on each figure of
/// `site_figures` but the count of calls: `first`, `warmup_excess` and `p50` on the host clock;
/// `device_first` and `device_p50`, where either run timed the device (else empty).
/// \code
///   for (const warmup::site_change& s : warmup::compare(base, now).sites)
///     if (s.regressed) std::cout << s.name << ": first call " << warmup::to_string(s.first.change) << '\n';
/// \endcode
struct site_change : detail::figure_set<detail::figure_verdict> {
  std::string name;              ///< the site's name
  op_kind op = op_kind::region;  ///< the site's kind
  bool regressed = false;  ///< a figure is `slower`

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = site_change;
    return std::tuple_cat(std::make_tuple(WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(op), WARMUP_DETAIL_FIELD(regressed)),
                          detail::judged_fields<self>());
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

/// The members of a compared site that hold a clock's p50 interval, low and high ends.
constexpr std::pair<opt_ns compare_input::site::*, opt_ns compare_input::site::*> p50_interval(figure_clock c) noexcept {
  using compared = compare_input::site;
  return c == figure_clock::host ? std::pair{&compared::p50_low, &compared::p50_high}
                                 : std::pair{&compared::device_p50_low, &compared::device_p50_high};
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
    for (const auto& [on, t] : {std::pair{detail::figure_clock::host, &s.host},
                                std::pair{detail::figure_clock::device, detail::device_timing(s)}})
      if (t != nullptr && t->steady) {
        const auto [low, high] = detail::p50_interval(on);
        c.*low = t->steady->p50_low, c.*high = t->steady->p50_high;
      }
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
    c.name = s.name, c.op = s.op;
    detail::for_each_figure([&](auto row) {
      const auto& from = s.*(row.template member<merged_site>());
      auto& to = c.*(row.template member<compare_input::site>());
      if constexpr (detail::is_optional<std::decay_t<decltype(from)>>) {
        if (from) to = from->max;
      } else if constexpr (std::is_same_v<std::decay_t<decltype(from)>, spread>) {
        to = from.max;
      }  // a count summed over ranks is no rank's: left at zero
    });
    in.sites.push_back(std::move(c));
  }
  return in;
}

namespace detail {

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
  std::string key;
  for (const compare_input::site& s : base.sites) old.emplace(detail::site_key(s.op, s.name, key), &s);
  for (const compare_input::site& n : now.sites) {
    const auto it = old.find(detail::site_key(n.op, n.name, key));
    if (it == old.end()) {
      c.added.push_back({n.name, n.op});
      continue;
    }
    const compare_input::site& b = *it->second;
    old.erase(it);
    site_change s;
    s.name = n.name, s.op = n.op;
    bool device_timed = false;  // by either run: then every device figure is judged
    detail::for_each_judged([&](auto row) {
      const auto figure = row.template member<compare_input::site>();
      if constexpr (decltype(row)::clock == detail::figure_clock::device)
        device_timed = device_timed || detail::as_duration(b.*figure) || detail::as_duration(n.*figure);
    });
    detail::for_each_judged([&](auto row) {
      using R = decltype(row);
      const auto figure = R::template member<compare_input::site>();
      detail::opt_ns intervals[4];  // base low, base high, new low, new high: for a p50 only
      if constexpr (R::judged == detail::figure_judgement::p50) {
        const auto [low, high] = detail::p50_interval(R::clock);
        intervals[0] = b.*low, intervals[1] = b.*high, intervals[2] = n.*low, intervals[3] = n.*high;
      }
      const figure_change f =
          detail::judge(detail::as_duration(b.*figure), detail::as_duration(n.*figure), intervals[0], intervals[1], intervals[2],
                        intervals[3], o.threshold, R::judged == detail::figure_judgement::cold ? o.first_floor : o.floor);
      auto& verdict_of = s.*(R::template member<site_change>());
      if constexpr (R::clock == detail::figure_clock::host) verdict_of = f;
      else if (device_timed) verdict_of = f;
      s.regressed = s.regressed || (f.change == verdict::slower && (R::clock == detail::figure_clock::host || device_timed));
    });
    c.regressed = c.regressed || s.regressed;
    c.sites.push_back(std::move(s));
  }
  for (const compare_input::site& b : base.sites)
    if (old.count(detail::site_key(b.op, b.name, key)) != 0) c.removed.push_back({b.name, b.op});
  return c;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
