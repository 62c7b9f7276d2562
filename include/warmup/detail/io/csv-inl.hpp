/// @file
/// @brief `to_csv` (csv.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/csv_writer.hpp"

WARMUP_BEGIN_NAMESPACE
WARMUP_DETAIL_RUNTIME std::string to_csv(const report& r) { return detail::csv_table(r.sites); }
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
