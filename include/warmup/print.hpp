/// @file
/// @brief `warmup::print`: the report as a table for people.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <iosfwd>
#include <string>

#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

namespace detail {
/// The table `print` writes, as a string (report_file.hpp's table format).
std::string table_text(const report& r);
}  // namespace detail

/// @brief Prints the report as a table: one row per site and clock domain, then notes.
///
/// Under a site: why its first call was slow (with attribution on: a line a cause, largest
/// first, with its share of the excess), what that call did on the host where it tells
/// something (it waited, faulted pages, loaded libraries, created the context), and notes.
/// What would repeat under many sites (sites that ran once, first calls with nothing to say on
/// the host) is counted in one line under the table.
///
/// Columns: calls; warm-up (leading calls slower than the steady band); the first call; the
/// steady p50/p90/p99; the first call's excess over the steady p50; GB/s for copies (first and
/// steady). Device rows (`dev`) appear under sites that were device-timed.
/// \code
///   warmup::print(warmup::snapshot(), std::cout);
/// \endcode
void print(const report& r, std::ostream& os);

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
