/// @file
/// @brief `host_call`: a call of a site timed on the host between two calls of a tool's
/// choosing (an NVTX range's push and pop, its start and end), where no scope's lifetime can
/// stand for it. The NVTX tool (nvtx_tool/, docs/nvtx-tool.md) keeps one per open range.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>

#include "warmup/config.hpp"
#include "warmup/detail/record/site.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The host-only part of a scope's sequence (scope.hpp: a call's ticket, the first call's probes,
/// the clock; at the end the timeline, the cold window, the figures), in the same order, so that
/// a range's first call is probed and attributed as a scope's is. No NVTX, no device timing, no
/// bytes. Movable: a tool keeps them in containers.
///
/// A call begun with a shard slot (`begin(s, &slot)`) must end on the thread that began it, as a
/// scope does; one that may end on another thread (an NVTX start/end range, a Python coroutine's
/// run) begins with no slot and takes its index from the site's counter.
struct host_call {
  /// How a call ended: an exception that ended it is counted, as a scope counts one.
  enum class ending { returned, raised };

  site* s = nullptr;
  call_ticket call{0, nullptr};
  std::uint64_t start = 0;  ///< ticks of the site's clock

  void begin(site* where, shard_slot* slot) noexcept {
    if (where == nullptr) return;
    s = where;
    call = where->begin_call(slot);
    if (call.index == 0) {
      where->first_call_begins(false);
      where->first_call_clock_starts();
    }
    start = where->time().now();  // last: the library's own work above stays out of the time
  }

  /// Ends the call; a second `end` does nothing.
  WARMUP_HOT_INLINE void end(ending how = ending::returned) noexcept {
    if (s == nullptr) return;
    site* const where = s;
    s = nullptr;
    const std::uint64_t stop = where->time().now();
    if (!where->owns(call)) return;  // the site was reset since (a forked child)
    const std::uint64_t host = stop > start ? stop - start : 0;
    const bool after_idle = where->end_host(call.index, start, stop, host);
    if (call.index == 0 || after_idle) where->cold_call_ends(call.index, start, stop, after_idle);
    where->end_call(call, host, after_idle, 0, false, how == ending::raised);
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
