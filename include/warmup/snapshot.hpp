/// @file
/// @brief `warmup::snapshot()`: resolve finished device measurements and summarise every site.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief Whether `snapshot()` may wait for the GPU to finish outstanding measurements.
enum class device_wait {
  no,   ///< never block: unfinished device work is counted as pending (the default)
  yes,  ///< wait for every recorded measurement (use at the end of a program)
};

/// @brief Resolves every finished device measurement and returns the per-site summary.
///
/// Cost: proportional to the number of sites and of pending measurements; it polls events (one
/// `cuEventElapsedTime` each, "not ready" until the GPU reaches them) and never blocks unless
/// asked to (`device_wait::yes`). Safe to call from
/// any thread while scopes run. The first call also describes the current device, which
/// initialises the CUDA driver if the program has not.
/// \code
///   cudaStreamSynchronize(stream);                 // or snapshot(warmup::device_wait::yes)
///   warmup::report r = warmup::snapshot();
/// \endcode
#if WARMUP_ENABLED
report snapshot(device_wait wait = device_wait::no);
#else
inline report snapshot(device_wait = device_wait::no) {
  report r;
  r.enabled = false;
  r.device_status = "warmup was compiled with WARMUP_DISABLE";
  return r;
}
#endif

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
