/// @file
/// @brief One site's durations in one clock domain: the first calls exactly, the rest bounded.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "warmup/detail/log_histogram.hpp"

namespace warmup::detail {

/// What a snapshot reads out of a series: the first calls in call order, the rest as buckets.
struct series_data {
  struct bucket {
    std::uint64_t lowest, highest, count;
  };
  std::vector<std::uint64_t> first;  ///< exact durations of the first calls, in call order
  std::vector<bucket> later;         ///< every later call, bucketed, increasing
  std::uint64_t later_count = 0;
  std::uint64_t later_sum = 0;  ///< exact sum of the later calls (ns)
  std::uint64_t later_min = 0, later_max = 0;
  std::uint64_t lost = 0;
};

/// Durations of one site in one clock domain (host or device). The first `window` calls are kept
/// exactly, indexed by call number, because warm-up lives there; every later call goes to a
/// log-linear histogram, so memory is bounded whatever the number of calls. Every member is an
/// atomic: recording never locks, and a snapshot may read while threads record.
class series {
 public:
  static constexpr std::size_t window = 64;

  /// Records the duration of call number `index` (0 = the site's first call).
  void record(std::uint64_t index, std::uint64_t ns) noexcept {
    ns = std::min(ns, max_ns);
    if (index < window) {
      first_[index].store(ns | recorded_bit, std::memory_order_release);
    } else {
      later_.add(ns);
      later_sum_.fetch_add(ns, std::memory_order_relaxed);
      lower(later_min_, ns);
      raise(later_max_, ns);
    }
  }

  /// Reads what has been recorded so far; calls still in flight are simply not there yet.
  series_data read() const {
    series_data d;
    for (const auto& slot : first_) {
      const std::uint64_t v = slot.load(std::memory_order_acquire);
      if (v & recorded_bit) d.first.push_back(v & ~recorded_bit);
    }
    later_.for_each([&](std::uint64_t lo, std::uint64_t hi, std::uint64_t c) {
      d.later.push_back({lo, hi, c});
    });
    for (const auto& b : d.later) d.later_count += b.count;
    d.later_sum = later_sum_.load(std::memory_order_relaxed);
    d.later_min = later_min_.load(std::memory_order_relaxed);
    d.later_max = later_max_.load(std::memory_order_relaxed);
    d.lost = later_.lost();
    if (d.later_count == 0) d.later_min = d.later_max = 0;
    return d;
  }

  std::size_t bytes() const noexcept { return sizeof(*this) - sizeof(later_) + later_.bytes(); }

 private:
  static constexpr std::uint64_t recorded_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t max_ns = recorded_bit - 1;

  static void lower(std::atomic<std::uint64_t>& a, std::uint64_t v) noexcept {
    std::uint64_t cur = a.load(std::memory_order_relaxed);
    while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }
  static void raise(std::atomic<std::uint64_t>& a, std::uint64_t v) noexcept {
    std::uint64_t cur = a.load(std::memory_order_relaxed);
    while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }

  std::array<std::atomic<std::uint64_t>, window> first_{};
  log_histogram later_;
  std::atomic<std::uint64_t> later_sum_{0};
  std::atomic<std::uint64_t> later_min_{std::numeric_limits<std::uint64_t>::max()};
  std::atomic<std::uint64_t> later_max_{0};
};

}  // namespace warmup::detail
