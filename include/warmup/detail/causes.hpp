/// @file
/// @brief The records that name why a call was slow (the causes themselves: warmup/cause.hpp).
///
/// A cause record is an interval of time on one thread spent on one cause (a module load, a JIT
/// compilation, an allocation...), from CUPTI (detail/analysis/cupti.hpp) or from the library's own host
/// signals. detail/analysis/attribution.hpp joins them to the cold calls of each site.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>

#include "warmup/cause.hpp"
#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// One interval spent on one cause. Times are steady-clock nanoseconds (the library's clock,
/// `ns_since_epoch`); `thread` is the kernel thread id (gettid) of the thread that spent it, or 0
/// where the source does not say (then the record joins any thread's calls it overlaps).
struct cause_record {
  cause what = cause::module_load;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t thread = 0;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
