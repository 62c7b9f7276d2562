/// @file
/// @brief `warmup::to_trace`: a timeline in the Chrome Trace Event format (Perfetto, chrome://tracing).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <string>

#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The timeline of every site as Chrome Trace Event JSON, for Perfetto
/// (ui.perfetto.dev, "Open trace file") or chrome://tracing: no Nsight needed.
///
/// Each site has a row in the "host" process and, when device-timed, one in the "device N"
/// process. The first `warmup::set_timeline_calls(n)` calls of each site (16 by default) are
/// there, then a sample thinning by powers of two. The first call is coloured as "terrible",
/// warm-up calls as "bad", cold recurrences aside; each event's args carry the call index and
/// whether it was first or warm-up. Times count from when the library was loaded.
/// \code
///   std::ofstream("warmup.trace.json") << warmup::to_trace(warmup::snapshot());
/// \endcode
std::string to_trace(const report& r);

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
