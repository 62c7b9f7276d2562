/// @file
/// @brief The figures of a site that `merge` and `compare` read, one row each.
///
/// A row names a figure, its type, its clock, how a comparison judges it, its words in the
/// comparison's table and where a site's report has it. From the rows follow: the members of
/// a summary (`site_figures`), of a merged site (a spread each) and of a comparison (a verdict
/// each); their JSON keys and CSV columns (the member's name); `summarize`, `merge`,
/// `compare_view`, `compare` and the comparison's table; and the MPI wire record
/// (detail/io/rank_wire.hpp, 8 bytes a figure in the rows' order). A new figure is a row here.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>

#include "warmup/detail/io/fields.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

using opt_ns = std::optional<std::chrono::nanoseconds>;

/// The clock a figure is read on: a comparison judges the device's figures only where a run
/// timed the device.
enum class figure_clock : unsigned char { host, device };

/// How a comparison judges a figure.
enum class figure_judgement : unsigned char {
  none,    ///< not at all (a count)
  cold,    ///< one sample: the threshold and the first calls' floor
  steady,  ///< the threshold and the steady floor
  p50,     ///< as steady, and the clock's p50 intervals apart where both runs have them
};

/// A site's timing on the device where the device timed a call of it; else nullptr.
inline const timing* device_timing(const site_report& s) noexcept {
  return s.device && s.device->calls != 0 ? &*s.device : nullptr;
}
/// A timing's first call, where there is a timing.
inline opt_ns first_of(const timing* t) noexcept { return t ? opt_ns(t->first) : std::nullopt; }
/// A timing's steady p50, where it has a steady state.
inline opt_ns p50_of(const timing* t) noexcept { return t && t->steady ? opt_ns(t->steady->p50) : std::nullopt; }

// The rows: the member's name (its JSON key and CSV column), its type (a count is summed over
// ranks, a duration spread over them), its clock, how a comparison judges it, its words in the
// comparison's table, and where a site's report `s` has it.
#define WARMUP_DETAIL_FIGURE_TABLE(X)                                                            \
  X(calls, std::uint64_t, host, none, "calls", s.calls)                                          \
  X(first, std::chrono::nanoseconds, host, cold, "first", s.host.first)                          \
  X(p50, opt_ns, host, p50, "p50", p50_of(&s.host))                                               \
  X(warmup_excess, std::chrono::nanoseconds, host, cold, "warm-up excess", s.host.warmup_excess) \
  X(device_first, opt_ns, device, cold, "dev first", first_of(device_timing(s)))                 \
  X(device_p50, opt_ns, device, p50, "dev p50", p50_of(device_timing(s)))

/// Each row as a type of its own (`figure_first`), so that each may be stored as its kind needs.
#define WARMUP_DETAIL_FIGURE_ROW(name_, value_, clock_, judged_, label_, pick_)   \
  struct figure_##name_ {                                                         \
    using value = value_;                                                         \
    static constexpr const char* name = #name_;                                   \
    static constexpr const char* label = label_;                                  \
    static constexpr figure_clock clock = figure_clock::clock_;                   \
    static constexpr figure_judgement judged = figure_judgement::judged_;         \
    static value pick(const site_report& s) { return pick_; }                     \
    template <class T>                                                            \
    static constexpr auto member() noexcept {                                     \
      return &T::name_;                                                           \
    }                                                                             \
  };
WARMUP_DETAIL_FIGURE_TABLE(WARMUP_DETAIL_FIGURE_ROW)

/// One member per figure, named as its row, of the type `Slot<row>`: the figure itself
/// (`site_figures`), its spread over ranks (`merged_site`), the verdict on it (`site_change`).
template <template <class> class Slot>
struct figure_set {
#define WARMUP_DETAIL_FIGURE_MEMBER(name_, ...) Slot<figure_##name_> name_{};
  WARMUP_DETAIL_FIGURE_TABLE(WARMUP_DETAIL_FIGURE_MEMBER)
};

/// The rows in order, as a tuple of their (empty) types.
#define WARMUP_DETAIL_FIGURE_TUPLE(name_, ...) , std::tuple<figure_##name_>{}
using figure_rows = decltype(std::tuple_cat(std::tuple<>{} WARMUP_DETAIL_FIGURE_TABLE(WARMUP_DETAIL_FIGURE_TUPLE)));
inline constexpr std::size_t figure_count = std::tuple_size_v<figure_rows>;

#undef WARMUP_DETAIL_FIGURE_TUPLE
#undef WARMUP_DETAIL_FIGURE_MEMBER
#undef WARMUP_DETAIL_FIGURE_ROW
#undef WARMUP_DETAIL_FIGURE_TABLE

/// A figure's own type: the member type of `site_figures`.
template <class Row>
using figure_value = typename Row::value;

/// Calls `f(row)` for each row, in the table's order (`decltype(row)` is the row's type).
template <class F>
constexpr void for_each_figure(F&& f) {
  std::apply([&](auto... rows) { (f(rows), ...); }, figure_rows{});
}

/// The field list of the figures of `T` (a `figure_set`), in the table's order: the part of a
/// record's `fields()` that its figures make.
template <class T>
constexpr auto figure_fields() {
  return std::apply([](auto... rows) { return std::make_tuple(make_field(decltype(rows)::name, decltype(rows)::template member<T>())...); },
                    figure_rows{});
}

/// A figure as an optional duration, whichever its type: what a comparison judges.
inline opt_ns as_duration(std::chrono::nanoseconds v) noexcept { return v; }
inline opt_ns as_duration(const opt_ns& v) noexcept { return v; }

template <class Row>
constexpr bool figure_row_valid() noexcept {
  using V = typename Row::value;
  constexpr bool count = std::is_same_v<V, std::uint64_t>;
  constexpr bool duration = std::is_same_v<V, std::chrono::nanoseconds> || std::is_same_v<V, opt_ns>;
  return (count && Row::judged == figure_judgement::none) ||
         (duration && Row::judged != figure_judgement::none && (Row::clock == figure_clock::host || is_optional<V>));
}
static_assert(std::apply([](auto... rows) { return (figure_row_valid<decltype(rows)>() && ...); }, figure_rows{}),
              "warmup: a figure is a count (std::uint64_t, not judged) or a duration (judged; optional on the device, "
              "which a run may not time)");

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
