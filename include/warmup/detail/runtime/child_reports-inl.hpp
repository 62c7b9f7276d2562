/// @file
/// @brief `report_beside_parent()` (detail/runtime/child_reports.hpp declares it), compiled once,
/// with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/child_reports.hpp"
#if WARMUP_ENABLED
#include "warmup/detail/runtime/cuda_runtime.hpp"
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

#if WARMUP_ENABLED
/// Read by report_goes_beside (compiled_once.hpp) when the report at exit is written.
WARMUP_DETAIL_RUNTIME void report_beside_parent() noexcept { cuda().beside_parent.store(true, std::memory_order_relaxed); }
#else
WARMUP_DETAIL_RUNTIME void report_beside_parent() noexcept {}  // no report to place
#endif

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
