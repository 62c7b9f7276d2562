/// @file
/// @brief `warmup::to_svg`: per site, time against call index, warm-up set apart from the steady band.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <string>

#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The report as one self-contained SVG picture: a panel per site showing each call's
/// time against its call number, both on log axes, the first call in red, warm-up calls in
/// orange, later calls in blue over the shaded steady band (p50 to p99, p50 dashed), device
/// times as green rings. No script, no font or image fetched: it opens anywhere.
/// \code
///   std::ofstream("warmup.svg") << warmup::to_svg(warmup::snapshot());
/// \endcode
std::string to_svg(const report& r);

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
