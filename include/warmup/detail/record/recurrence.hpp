/// @file
/// @brief What makes a call a candidate for "cold again": an idle site, or a program that said so.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

struct recurrence_settings {
  /// A call that starts this long after its site's previous call ended is examined as a
  /// possible cold recurrence (GPU clocks drop, caches and TLBs empty after idling). 1 s default.
  std::atomic<std::uint64_t> idle_ns{1'000'000'000};
  /// Bumped by warmup::expect_cold(): the next call of every site is examined.
  std::atomic<std::uint32_t> epoch{0};
};

recurrence_settings& recurrence() noexcept;  // the process's one (detail/runtime/site-inl.hpp)

/// The site's side: when it last ended (coarse: updated about once a millisecond, so threads
/// sharing a site do not write its cache line on every call) and the epoch it last saw.
class idle_tracker {
 public:
  /// Called as a call ends, with its start and end in ticks of the scopes' clock, `ns_per_tick`
  /// of a ns each (0 while no rate is known: no call is then judged idle); returns whether the
  /// call is a cold-recurrence candidate.
  WARMUP_HOT_INLINE bool candidate(std::uint64_t start, std::uint64_t end, double ns_per_tick) noexcept {
    const recurrence_settings& r = *settings_;
    const std::uint64_t last = last_end_.load(std::memory_order_relaxed);
    bool idle = last != 0 && start > last &&
                double(start - last) * ns_per_tick >= double(r.idle_ns.load(std::memory_order_relaxed));
    if (end >= last + coarse_ticks) last_end_.store(end, std::memory_order_relaxed);
    const std::uint32_t e = r.epoch.load(std::memory_order_relaxed);
    if (epoch_.load(std::memory_order_relaxed) != e) {
      epoch_.store(e, std::memory_order_relaxed);
      idle = idle || last != 0;  // a site's very first call is a first call, not a recurrence
    }
    return idle;
  }

 private:
  // Found when the site is made: the process's settings sit behind the process anchor, and a
  // call should not pay for finding them.
  const recurrence_settings* settings_ = &recurrence();
  static constexpr std::uint64_t coarse_ticks = 1u << 20;  // 0.2 to 1 ms at 1 to 5 GHz
  std::atomic<std::uint64_t> last_end_{0};
  std::atomic<std::uint32_t> epoch_{0};
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
