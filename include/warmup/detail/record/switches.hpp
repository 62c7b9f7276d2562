/// @file
/// @brief The two run-time switches every scope reads: whether to measure, and whether warm
/// sites are device-timed on a sample of calls. Set through settings.hpp, in every copy of the
/// library at once (detail/process.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Read by every scope at entry, before anything else: one relaxed load when off.
inline std::atomic<bool> measuring{true};
/// Whether warm sites are device-timed on a sample of calls (the default) or on every call.
inline std::atomic<bool> sample_device{true};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
