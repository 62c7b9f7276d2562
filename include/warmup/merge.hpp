/// @file
/// @brief `warmup::merge`: many ranks' reports as one, per site the spread over ranks and the
/// slowest rank named (schema `warmup.merged/1`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
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
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The schema name a merged report carries first, under "schema".
inline constexpr std::string_view merged_json_schema = "warmup.merged/1";

/// @brief The figures of one site that merges and comparisons read: a rank's summary, a merged
/// rank's marks (`rank_figures`) and a comparison's input (`compare_input::site`) are all made
/// of it. Its members are the rows of the figure table (detail/io/figure_table.hpp), each
/// picked from the site's report there: `calls` (calls that have ended), `first` and
/// `warmup_excess` (host), `p50` (host steady p50; empty: no steady state), `device_first` and
/// `device_p50` (where the device was timed). A new figure is a row of that table.
/// \code
///   const warmup::site_figures f = warmup::summarize(site);
///   if (f.p50) std::cout << f.first.count() << " ns first, " << f.p50->count() << " ns p50\n";
/// \endcode
struct site_figures : detail::figure_set<detail::figure_value> {};

/// @brief One site of one rank, reduced to what a merge reads: its name and kind, and its
/// figures (the fixed-size part of a `site_report`: detail/io/rank_wire.hpp sends it over MPI).
/// \code
///   const warmup::site_summary s = warmup::summarize(site);
/// \endcode
struct site_summary : site_figures {
  std::string name;              ///< the site's name
  op_kind op = op_kind::region;  ///< the site's kind
};

/// @brief One rank's report, reduced for a merge: who wrote it and its sites' summaries.
/// \code
///   std::vector<warmup::rank_summary> ranks;
///   ranks.push_back(warmup::summarize(warmup::snapshot()));
/// \endcode
struct rank_summary {
  std::optional<int> rank;  ///< from the report's identity (or MPI); empty: not launched as a job
  std::string host;    ///< the machine's name
  int pid = 0;         ///< the process's id
  std::string device;  ///< the GPU's name; empty: none described
  std::string uuid;    ///< the GPU's UUID, as nvidia-smi writes it
  std::string started;  ///< when the library started, ISO 8601 UTC
  std::string library_version;  ///< warmup's
  std::string source;  ///< where it came from: a file name, or "MPI"
  std::vector<site_summary> sites;  ///< its sites, in the report's order
};

/// @brief The summary of one site of a report: each figure as its row picks it.
inline site_summary summarize(const site_report& s) {
  site_summary out;
  out.name = s.name;
  out.op = s.op;
  detail::for_each_figure([&](auto row) { out.*(row.template member<site_summary>()) = row.pick(s); });
  return out;
}

/// @brief The summary of a whole report, ready for `merge`.
inline rank_summary summarize(const report& r, std::string source = {}) {
  rank_summary out;
  out.rank = r.identity.rank;
  out.host = r.identity.host;
  out.pid = r.identity.pid;
  if (r.device) out.device = r.device->name, out.uuid = r.device->uuid;
  out.started = r.identity.started;
  out.library_version = r.identity.library_version;
  out.source = std::move(source);
  out.sites.reserve(r.sites.size());
  for (const site_report& s : r.sites) out.sites.push_back(summarize(s));
  return out;
}

/// @brief A figure over ranks: its least, median (the lower one for an even count) and
/// greatest value, and the rank with the greatest (the lowest such rank on a tie).
/// \code
///   const warmup::spread& f = site.first;  // a merged_site
///   std::cout << f.min.count() << " to " << f.max.count() << " ns, slowest rank " << f.slowest_rank << '\n';
/// \endcode
struct spread {
  ///@{
  /// The least, median and greatest value over the ranks.
  std::chrono::nanoseconds min{}, median{}, max{};
  ///@}
  int slowest_rank = 0;  ///< the rank with the greatest value
  std::uint64_t ranks = 0;  ///< ranks that have the figure

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = spread;
    return std::make_tuple(WARMUP_DETAIL_FIELD(min), WARMUP_DETAIL_FIELD(median), WARMUP_DETAIL_FIELD(max),
                           WARMUP_DETAIL_FIELD(slowest_rank), WARMUP_DETAIL_FIELD(ranks));
  }
};

/// @brief One rank's figures at a merged site (the marks of the merged picture).
/// \code
///   for (const warmup::rank_figures& f : site.per_rank)  // a merged_site
///     std::cout << "rank " << f.rank << ": " << f.first.count() << " ns first\n";
/// \endcode
struct rank_figures : site_figures {
  int rank = 0;  ///< whose figures

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = rank_figures;
    return std::tuple_cat(std::make_tuple(WARMUP_DETAIL_FIELD(rank)), detail::figure_fields<self>());
  }
};

namespace detail {
/// What a merged site keeps of a figure: a count summed over ranks, a duration's spread (empty
/// where no rank has the figure).
template <class Value>
struct merged_value {
  using type = std::conditional_t<std::is_same_v<Value, std::uint64_t>, std::uint64_t,
                                  std::conditional_t<is_optional<Value>, std::optional<spread>, spread>>;
};
template <class Row>
using figure_spread = typename merged_value<typename Row::value>::type;
}  // namespace detail

/// @brief One site across ranks: each figure of `site_figures` over the ranks that have the
/// site, a count (`calls`) summed (saturating), a duration as its spread: the host first call,
/// steady p50 (over the ranks with a steady state) and warm-up excess, and the device's first
/// call and p50 (over the ranks that timed the device; empty where none did).
/// \code
///   for (const warmup::merged_site& s : merged.sites)
///     std::cout << s.name << ": first call up to " << s.first.max.count() << " ns, on rank "
///               << s.first.slowest_rank << '\n';
/// \endcode
struct merged_site : detail::figure_set<detail::figure_spread> {
  std::string name;              ///< the site's name
  op_kind op = op_kind::region;  ///< the site's kind
  std::uint64_t ranks = 0;  ///< ranks that have the site
  std::vector<int> missing_ranks;  ///< ranks of the merge without this site
  std::vector<rank_figures> per_rank;  ///< by rank

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = merged_site;
    return std::tuple_cat(std::make_tuple(WARMUP_DETAIL_FIELD(name), WARMUP_DETAIL_FIELD(op), WARMUP_DETAIL_FIELD(ranks)),
                          detail::figure_fields<self>(),
                          std::make_tuple(WARMUP_DETAIL_FIELD(missing_ranks), WARMUP_DETAIL_FIELD(per_rank)));
  }
};

/// @brief Who one merged rank was.
/// \code
///   for (const warmup::merged_rank& r : merged.ranks)
///     std::cout << r.rank << ": " << r.host << ' ' << r.device << '\n';
/// \endcode
struct merged_rank {
  int rank = 0;       ///< its rank in the merge
  std::string host;   ///< the machine's name
  int pid = 0;        ///< the process's id
  ///@{
  /// The GPU's name and UUID; empty: none described.
  std::string device, uuid;
  ///@}
  std::string started;  ///< when the library started, ISO 8601 UTC
  std::string library_version;  ///< warmup's
  std::string source;  ///< where its report came from: a file name, or "MPI"
  std::uint64_t sites = 0;  ///< how many sites its report had

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = merged_rank;
    return std::make_tuple(WARMUP_DETAIL_FIELD(rank), WARMUP_DETAIL_FIELD(host), WARMUP_DETAIL_FIELD(pid),
                           WARMUP_DETAIL_FIELD(device), WARMUP_DETAIL_FIELD(uuid), WARMUP_DETAIL_FIELD(started),
                           WARMUP_DETAIL_FIELD(library_version), WARMUP_DETAIL_FIELD(source), WARMUP_DETAIL_FIELD(sites));
  }
};

/// @brief Many ranks' reports as one (`warmup::merge`, the `warmup-report merge` command and
/// `warmup::mpi::gather` make it): per site, the spread over ranks with the slowest rank named.
/// \code
///   const warmup::merged_report m = warmup::merge(std::move(summaries));
///   warmup::print(m, std::cout);
/// \endcode
struct merged_report {
  std::vector<merged_rank> ranks;     ///< by rank
  std::vector<std::string> notices;   ///< what the merge had to decide (ranks renumbered, versions mixed)
  std::vector<merged_site> sites;     ///< in order of first appearance, lowest rank first

  /// @brief The site of kind `op` named `name`, or nullptr.
  const merged_site* find(op_kind op, std::string_view name) const& noexcept {
    for (const merged_site& s : sites)
      if (s.op == op && s.name == name) return &s;
    return nullptr;
  }
  const merged_site* find(op_kind op, std::string_view name) const&& = delete;

  /// The members by name, in order: the JSON keys and CSV columns the library writes and reads.
  static constexpr auto fields() {
    using self = merged_report;
    return std::make_tuple(WARMUP_DETAIL_FIELD(ranks), WARMUP_DETAIL_FIELD(notices), WARMUP_DETAIL_FIELD(sites));
  }
};

namespace detail {

/// A site's key among sites, by kind and name: the one spelling merges and comparisons match
/// sites by. Written into `out` (reused, so a loop over sites allocates once) and returned.
inline const std::string& site_key(op_kind op, std::string_view name, std::string& out) {
  out.assign(1, static_cast<char>(op));
  out.append(name);
  return out;
}

/// The spread of one figure over `values` (value, rank), which it reorders.
inline spread spread_of(std::vector<std::pair<std::chrono::nanoseconds, int>>& values) {
  spread s;
  s.ranks = values.size();
  if (values.empty()) return s;
  const auto by_value_then_rank = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end(), by_value_then_rank);
  s.min = lo->first;
  s.max = hi->first;
  s.slowest_rank = hi->second;
  const auto mid = values.begin() + std::ptrdiff_t((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end(), by_value_then_rank);
  s.median = mid->first;
  return s;
}

/// Ranks as the merge numbers them: their own where every summary has one and no two share
/// it; otherwise their place in the input, with a notice saying why.
inline std::vector<int> merge_rank_numbers(const std::vector<rank_summary>& in, std::vector<std::string>& notices) {
  std::vector<int> numbers;
  numbers.reserve(in.size());
  std::size_t without = 0;
  for (const rank_summary& r : in) {
    if (!r.rank) ++without;
    numbers.push_back(r.rank.value_or(-1));
  }
  std::vector<int> sorted = numbers;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (without == 0 && twice == sorted.end()) return numbers;
  if (without != 0)
    notices.push_back(std::to_string(without) + " of " + std::to_string(in.size()) +
                      " reports name no rank (not launched as a job): ranks are numbered by input order");
  else
    notices.push_back("rank " + std::to_string(*twice) +
                      " appears more than once (reports of two runs?): ranks are numbered by input order");
  for (std::size_t i = 0; i < numbers.size(); ++i) numbers[i] = static_cast<int>(i);
  return numbers;
}

}  // namespace detail

/// @brief Merges many ranks' summaries into one report: per site (kind and name), the first
/// call, steady p50 and warm-up excess as min / median / max over ranks with the slowest rank,
/// calls summed, and which ranks lack the site.
///
/// Ranks keep the numbers their reports carry (`identity.rank`); where one lacks it or two
/// share it, all are numbered by input order and the merge's notices say so. Reports of
/// different library versions or with no sites are merged and noticed.
/// \code
///   std::vector<warmup::rank_summary> in;
///   for (const std::string& f : files) in.push_back(warmup::summarize(*warmup::read_report_file(f, error), f));
///   const warmup::merged_report m = warmup::merge(std::move(in));
/// \endcode
inline merged_report merge(std::vector<rank_summary> in) {
  merged_report out;
  const std::vector<int> numbers = detail::merge_rank_numbers(in, out.notices);
  std::vector<std::size_t> order(in.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return numbers[a] < numbers[b]; });

  std::unordered_map<std::string, std::size_t> index;  // kind byte + name -> out.sites
  std::string key;
  std::vector<std::string> versions;
  std::size_t duplicates = 0;
  std::string first_duplicate;
  for (const std::size_t i : order) {
    rank_summary& r = in[i];
    const int rank = numbers[i];
    out.ranks.push_back({rank, std::move(r.host), r.pid, std::move(r.device), std::move(r.uuid), std::move(r.started),
                         r.library_version, std::move(r.source), r.sites.size()});
    if (std::find(versions.begin(), versions.end(), r.library_version) == versions.end())
      versions.push_back(r.library_version);
    for (site_summary& s : r.sites) {
      auto [it, fresh] = index.try_emplace(detail::site_key(s.op, s.name, key), out.sites.size());
      if (fresh) {
        out.sites.emplace_back();
        out.sites.back().name = std::move(s.name);
        out.sites.back().op = s.op;
      }
      merged_site& m = out.sites[it->second];
      if (!m.per_rank.empty() && m.per_rank.back().rank == rank) {  // one notice for all of them
        if (duplicates++ == 0)
          first_duplicate = "rank " + std::to_string(rank) + ", " + std::string(to_string(m.op)) + " site \"" + m.name + "\"";
        continue;
      }
      rank_figures& f = m.per_rank.emplace_back();
      f.rank = rank;
      static_cast<site_figures&>(f) = std::move(s);
    }
    r.sites.clear();
    r.sites.shrink_to_fit();
  }
  if (duplicates != 0)
    out.notices.push_back(std::to_string(duplicates) + " site(s) listed twice by one rank were left out after their first (" +
                          first_duplicate + (duplicates > 1 ? ", ...)" : ")"));
  if (versions.size() > 1) {
    std::string v;
    for (const std::string& x : versions) v += (v.empty() ? "" : ", ") + (x.empty() ? std::string("unknown") : x);
    out.notices.push_back("reports of different library versions merged: " + v);
  }

  std::vector<std::pair<std::chrono::nanoseconds, int>> values;
  for (merged_site& m : out.sites) {
    m.ranks = m.per_rank.size();
    detail::for_each_figure([&](auto row) {
      auto& to = m.*(row.template member<merged_site>());
      const auto from = row.template member<rank_figures>();
      if constexpr (std::is_same_v<typename decltype(row)::value, std::uint64_t>) {
        for (const rank_figures& f : m.per_rank) to = to + f.*from < to ? ~std::uint64_t{0} : to + f.*from;
      } else {
        values.clear();
        for (const rank_figures& f : m.per_rank)
          if (const detail::opt_ns v = detail::as_duration(f.*from)) values.emplace_back(*v, f.rank);
        if (!values.empty()) to = detail::spread_of(values);  // a duration every rank has: never empty
      }
    });
    if (m.per_rank.size() != out.ranks.size()) {
      std::size_t k = 0;
      for (const merged_rank& r : out.ranks) {
        if (k < m.per_rank.size() && m.per_rank[k].rank == r.rank) ++k;
        else m.missing_ranks.push_back(r.rank);
      }
    }
  }
  return out;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
