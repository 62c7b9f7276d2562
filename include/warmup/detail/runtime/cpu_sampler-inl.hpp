/// @file
/// @brief `sampler_state()` (detail/analysis/cpu_sampler.hpp declares it), kept in the cause store,
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/cause_store.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The CPU sampler's process-wide part, kept in the cause store (its slot behind the process
/// anchor): declared for the sampler (detail/analysis/cpu_sampler.hpp), whose layer is below this.
WARMUP_DETAIL_RUNTIME sampler_shared& sampler_state() noexcept { return cause_records().sampler; }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
