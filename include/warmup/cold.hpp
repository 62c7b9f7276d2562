/// @file
/// @brief `warmup::expect_cold()`: the program says its work may be cold again (a device reset,
/// a reloaded model). The idle threshold is a setting (settings.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#if WARMUP_ENABLED
#include "warmup/detail/record/recurrence.hpp"
#endif

WARMUP_BEGIN_NAMESPACE

/// @brief Says that the program's work may be cold again (after `cudaDeviceReset`, a model
/// reload, a new CUDA context): the next call of every site is examined as a cold recurrence,
/// however recently it ran. Thread-safe; costs an atomic increment.
/// \code
///   cudaDeviceReset();
///   warmup::expect_cold();
/// \endcode
inline void expect_cold() noexcept {
#if WARMUP_ENABLED
  detail::recurrence().epoch.fetch_add(1, std::memory_order_relaxed);
#endif
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
