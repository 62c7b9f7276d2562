/// @file
/// @brief `warmup::to_json`: the report as one line of JSON (schema `warmup.report/3`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <string>
#include <string_view>

#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The schema name every JSON report carries first, under "schema".
inline constexpr std::string_view json_schema = "warmup.report/3";
/// @brief The previous schema, still read (`warmup::read_report`): the same keys without each
/// site's `first_calls` and `timeline`.
inline constexpr std::string_view json_schema_previous = "warmup.report/2";
/// @brief The report as one line of JSON, schema `warmup.report/3` (docs/reports.md, "JSON schema").
///
/// Each key is the name of the report field it holds (report.hpp), `first_calls` and
/// `timeline` included, so that the trace and the picture can be drawn again from the JSON
/// (`warmup-report show report.json -o report.svg`). Durations are integer nanoseconds; absent
/// figures are `null`, never invented. Names are
/// escaped and repaired (invalid UTF-8 becomes U+FFFD), so any name gives valid JSON.
/// \code
///   std::ofstream("report.json") << warmup::to_json(warmup::snapshot()) << '\n';
/// \endcode
std::string to_json(const report& r);

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
