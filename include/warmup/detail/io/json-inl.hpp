/// @file
/// @brief `to_json` (json.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/json_writer.hpp"

WARMUP_BEGIN_NAMESPACE
WARMUP_DETAIL_RUNTIME std::string to_json(const report& r) { return detail::document_json(json_schema, r); }
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
