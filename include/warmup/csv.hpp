/// @file
/// @brief `warmup::to_csv`: one row per site, for spreadsheets and pandas (RFC 4180).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <string>

#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The report as CSV: a header row, then one row per site (RFC 4180: CRLF line ends,
/// fields with commas, quotes or line breaks quoted, quotes doubled; always valid UTF-8).
///
/// The columns are the JSON site object's fields flattened, each named by its dotted path
/// (`name`, `op`, `calls`, `host.first`, `host.steady.p50`, `device.steady.p50_low`,
/// `bytes.steady_gbps`, `device_untimed.captured`, ...; docs/reports.md, "JSON schema"), with
/// the lists (`notes`) left out. Durations are integer nanoseconds; an empty cell is a figure
/// that does not exist (no steady state, no device time).
/// \code
///   std::ofstream("report.csv") << warmup::to_csv(warmup::snapshot());
///   // pandas.read_csv("report.csv")
/// \endcode
std::string to_csv(const report& r);

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
