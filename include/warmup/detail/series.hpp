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

/// What a snapshot reads out of a series.
struct series_data {
  struct bucket {
    std::uint64_t lowest, highest, count;
  };
  struct call {
    std::uint64_t ns;
    bool candidate;  ///< came after idling or expect_cold(): examined as a cold recurrence
  };
  std::vector<call> first;           ///< the first calls, exact, in call order
  std::vector<std::uint64_t> after_idle;  ///< later candidate calls, exact
  std::vector<bucket> later;         ///< every other later call, bucketed, increasing
  std::uint64_t later_count = 0;
  std::uint64_t later_sum = 0;       ///< exact sum of the bucketed calls (ns), from the deviations
  double later_sq_dev = 0;           ///< sum of (x - shift)^2 over the bucketed calls
  std::int64_t later_dev = 0;        ///< sum of (x - shift) over the bucketed calls
  std::uint64_t shift = 0;
  std::uint64_t later_min = 0, later_max = 0;
  std::uint64_t lost = 0;
};

/// Durations of one site in one clock domain (host or device). The first `window` calls are kept
/// exactly, indexed by call number, because warm-up lives there; so are up to `candidate_slots`
/// later calls that came after idling (possible cold recurrences). Every other call goes to a
/// log-linear histogram, with exact sums beside it for the mean and standard deviation, so memory
/// is bounded whatever the number of calls. Every member is atomic: recording never locks, and
/// a snapshot may read while threads record.
class series {
 public:
  static constexpr std::size_t window = 64;
  static constexpr std::size_t candidate_slots = 32;

  /// Records the duration of call number `index` (0 = the site's first call).
  void record(std::uint64_t index, std::uint64_t ns, bool candidate = false) noexcept {
    ns = std::min(ns, max_ns);
    if (index < window) {
      first_[index].store(ns | recorded_bit | (candidate ? candidate_bit : 0), std::memory_order_release);
      return;
    }
    if (candidate) {
      const std::uint32_t slot = candidates_used_.fetch_add(1, std::memory_order_relaxed);
      if (slot < candidate_slots) {
        candidates_[slot].store(ns | recorded_bit, std::memory_order_release);
        return;
      }  // no room left to examine it: it counts as an ordinary call
    }
    std::uint64_t k = shift_.load(std::memory_order_relaxed);
    if (k == no_shift) {
      // The first later call fixes the shift; deviations from a typical value keep the sum of
      // squares accurate in a double (no cancellation between two huge sums).
      shift_.compare_exchange_strong(k, ns, std::memory_order_relaxed);
      k = shift_.load(std::memory_order_relaxed);
    }
    const auto dev = static_cast<std::int64_t>(ns) - static_cast<std::int64_t>(k);
    later_dev_.fetch_add(dev, std::memory_order_relaxed);
    add(later_sq_dev_, double(dev) * double(dev));
    lower(later_min_, ns);
    raise(later_max_, ns);
    later_.add(ns);  // last: a snapshot that counts the call finds its shift set
  }

  /// Reads what has been recorded so far; calls still in flight are simply not there yet.
  series_data read() const {
    series_data d;
    for (const auto& slot : first_) {
      const std::uint64_t v = slot.load(std::memory_order_acquire);
      if (v & recorded_bit) d.first.push_back({v & value_mask, (v & candidate_bit) != 0});
    }
    for (const auto& slot : candidates_) {
      const std::uint64_t v = slot.load(std::memory_order_acquire);
      if (v & recorded_bit) d.after_idle.push_back(v & value_mask);
    }
    later_.for_each([&](std::uint64_t lo, std::uint64_t hi, std::uint64_t c) {
      d.later.push_back({lo, hi, c});
    });
    for (const auto& b : d.later) d.later_count += b.count;
    d.later_dev = later_dev_.load(std::memory_order_relaxed);
    d.later_sq_dev = later_sq_dev_.load(std::memory_order_relaxed);
    d.shift = shift_.load(std::memory_order_relaxed);
    // The sum needs no counter of its own: sum = count x shift + sum of deviations.
    if (d.later_count != 0)
      d.later_sum = static_cast<std::uint64_t>(static_cast<std::int64_t>(d.later_count * d.shift) + d.later_dev);
    d.later_min = later_min_.load(std::memory_order_relaxed);
    d.later_max = later_max_.load(std::memory_order_relaxed);
    d.lost = later_.lost();
    if (d.later_count == 0) d.later_min = d.later_max = 0;
    return d;
  }

  std::size_t bytes() const noexcept { return sizeof(*this) - sizeof(later_) + later_.bytes(); }

 private:
  static constexpr std::uint64_t recorded_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t candidate_bit = std::uint64_t{1} << 62;
  static constexpr std::uint64_t value_mask = candidate_bit - 1;
  static constexpr std::uint64_t max_ns = value_mask;  // 146 years
  static constexpr std::uint64_t no_shift = std::numeric_limits<std::uint64_t>::max();

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
  static void add(std::atomic<double>& a, double v) noexcept {
    double cur = a.load(std::memory_order_relaxed);
    while (!a.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
    }
  }

  std::array<std::atomic<std::uint64_t>, window> first_{};
  std::array<std::atomic<std::uint64_t>, candidate_slots> candidates_{};
  std::atomic<std::uint32_t> candidates_used_{0};
  log_histogram later_;
  std::atomic<std::uint64_t> shift_{no_shift};
  std::atomic<std::int64_t> later_dev_{0};
  std::atomic<double> later_sq_dev_{0.0};
  std::atomic<std::uint64_t> later_min_{std::numeric_limits<std::uint64_t>::max()};
  std::atomic<std::uint64_t> later_max_{0};
};

}  // namespace warmup::detail
