/// @file
/// @brief One site's durations in one clock domain: the first calls exactly, the rest bounded.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <new>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/record/log_histogram.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

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

/// Which thread is calling: the address of a thread-local byte, free to take on every call.
/// A dead thread's address may be reused by a new thread, which then simply inherits its lanes.
inline thread_local char writer_token = 0;

/// The bucketed calls of a series as one set of writers adds them: a histogram beside exact sums
/// of deviations from the series' shift, and the extremes.
class later_lane {
 public:
  /// `single_writer`: only the calling thread ever adds to this lane, so each update is a plain
  /// load and store instead of a locked read-modify-write (BENCHMARKS.md has what each costs on x86).
  template <bool single_writer>
  WARMUP_HOT_INLINE void add(std::uint64_t ns, std::int64_t dev) noexcept {
    if constexpr (single_writer) {
      dev_.store(dev_.load(std::memory_order_relaxed) + dev, std::memory_order_relaxed);
      sq_dev_.store(sq_dev_.load(std::memory_order_relaxed) + double(dev) * double(dev), std::memory_order_relaxed);
      if (ns < min_.load(std::memory_order_relaxed)) min_.store(ns, std::memory_order_relaxed);
      if (ns > max_.load(std::memory_order_relaxed)) max_.store(ns, std::memory_order_relaxed);
      hist_.add_single_writer(ns);  // last: a snapshot that counts the call finds its shift set
    } else {
      dev_.fetch_add(dev, std::memory_order_relaxed);
      double cur = sq_dev_.load(std::memory_order_relaxed);
      while (!sq_dev_.compare_exchange_weak(cur, cur + double(dev) * double(dev), std::memory_order_relaxed)) {
      }
      lower(min_, ns);
      raise(max_, ns);
      hist_.add(ns);
    }
  }

  /// Adds this lane's buckets and sums to `d`.
  void read_into(series_data& d) const {
    hist_.for_each([&](std::uint64_t lo, std::uint64_t hi, std::uint64_t c) {
      d.later.push_back({lo, hi, c});
      d.later_count += c;
    });
    d.later_dev += dev_.load(std::memory_order_relaxed);
    d.later_sq_dev += sq_dev_.load(std::memory_order_relaxed);
    const std::uint64_t lo = min_.load(std::memory_order_relaxed), hi = max_.load(std::memory_order_relaxed);
    if (lo < d.later_min) d.later_min = lo;
    if (hi > d.later_max) d.later_max = hi;
    d.lost += hist_.lost();
  }

  std::size_t bytes() const noexcept { return sizeof(*this) - sizeof(hist_) + hist_.bytes(); }

  /// Forgets every call. Only while no other thread can record (in a forked child).
  void reset() noexcept {
    this->~later_lane();
    new (this) later_lane{};
  }

 private:
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

  std::atomic<std::int64_t> dev_{0};
  std::atomic<double> sq_dev_{0.0};
  std::atomic<std::uint64_t> min_{std::numeric_limits<std::uint64_t>::max()};
  std::atomic<std::uint64_t> max_{0};
  log_histogram hist_;
};

/// Durations of one site in one clock domain (host or device). The first `window` calls are kept
/// exactly, indexed by call number, because warm-up lives there; so are up to `candidate_slots`
/// later calls that came after idling (possible cold recurrences). Every other call goes to a
/// log-linear histogram, with exact sums beside it for the mean and standard deviation, so memory
/// is bounded whatever the number of calls. Every member is atomic: recording never locks, and
/// a snapshot may read while threads record.
///
/// Later calls go to the lane the caller names (a thread's shard of its site, site.hpp: plain
/// stores, read by a snapshot beside the series' own), or else to one of two lanes: the owner's
/// (the first thread to record one), updated with plain stores, and a shared lane for every
/// other thread, made the first time one records, updated with atomic read-modify-writes.
class series {
 public:
  static constexpr std::size_t window = 64;
  static constexpr std::size_t candidate_slots = 32;

  series() = default;
  series(const series&) = delete;
  series& operator=(const series&) = delete;
  ~series() { delete shared_.load(std::memory_order_relaxed); }

  /// Forgets every call. Only while no other thread can record (in a forked child).
  void reset() noexcept {
    this->~series();
    new (this) series{};
  }

  /// Records the duration of call number `index` (0 = the site's first call).
  /// `own`: a lane only the calling thread writes, or nullptr.
  WARMUP_HOT_INLINE void record(std::uint64_t index, std::uint64_t ns, bool candidate = false,
                                later_lane* own = nullptr) noexcept {
    if (ns > max_ns) ns = max_ns;
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
    if (own != nullptr) return own->add<true>(ns, dev);
    const void* me = &writer_token;
    const void* owner = owner_.load(std::memory_order_relaxed);
    if (owner == nullptr) {
      owner_.compare_exchange_strong(owner, me, std::memory_order_relaxed);
      owner = owner_.load(std::memory_order_relaxed);
    }
    if (owner == me) return own_.add<true>(ns, dev);
    if (later_lane* l = shared_lane()) return l->add<false>(ns, dev);
    lost_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Reads what has been recorded so far, with the lanes in `extra` (shards of the series' site);
  /// calls still in flight are simply not there yet.
  template <class Lanes = std::initializer_list<const later_lane*>>
  series_data read(const Lanes& extra = {}) const {
    series_data d;
    for (const auto& slot : first_) {
      const std::uint64_t v = slot.load(std::memory_order_acquire);
      if (v & recorded_bit) d.first.push_back({v & value_mask, (v & candidate_bit) != 0});
    }
    for (const auto& slot : candidates_) {
      const std::uint64_t v = slot.load(std::memory_order_acquire);
      if (v & recorded_bit) d.after_idle.push_back(v & value_mask);
    }
    d.later_min = std::numeric_limits<std::uint64_t>::max();
    own_.read_into(d);
    std::size_t lanes = 1;
    if (const later_lane* l = shared_.load(std::memory_order_acquire)) {
      l->read_into(d);
      ++lanes;
    }
    for (const later_lane* l : extra) {
      l->read_into(d);
      ++lanes;
    }
    if (lanes > 1) merge_buckets(d.later);
    d.shift = shift_.load(std::memory_order_relaxed);
    // The sum needs no counter of its own: sum = count x shift + sum of deviations.
    if (d.later_count != 0)
      d.later_sum = static_cast<std::uint64_t>(static_cast<std::int64_t>(d.later_count * d.shift) + d.later_dev);
    d.lost += lost_.load(std::memory_order_relaxed);
    if (d.later_count == 0) d.later_min = d.later_max = 0;
    return d;
  }

  std::size_t bytes() const noexcept {
    const later_lane* l = shared_.load(std::memory_order_acquire);
    return sizeof(*this) - sizeof(own_) + own_.bytes() + (l != nullptr ? l->bytes() : 0);
  }

 private:
  static constexpr std::uint64_t recorded_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t candidate_bit = std::uint64_t{1} << 62;
  static constexpr std::uint64_t value_mask = candidate_bit - 1;
  static constexpr std::uint64_t max_ns = value_mask;  // 146 years
  static constexpr std::uint64_t no_shift = std::numeric_limits<std::uint64_t>::max();

  later_lane* shared_lane() noexcept {
    later_lane* l = shared_.load(std::memory_order_acquire);
    if (l != nullptr) return l;
    const busy_section busy;
    auto* fresh = new (std::nothrow) later_lane{};
    if (fresh == nullptr) return nullptr;
    if (shared_.compare_exchange_strong(l, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;  // another thread made it first
    return l;
  }

  /// Two lanes' buckets, each list increasing, into one increasing list without repeats (a
  /// snapshot's work: defined with the runtime, detail/analysis/statistics.hpp).
  static void merge_buckets(std::vector<series_data::bucket>& b);


  // A steady call touches the first line (shift, owner, the owner's sums) and its bucket.
  alignas(64) std::atomic<std::uint64_t> shift_{no_shift};
  std::atomic<const void*> owner_{nullptr};
  later_lane own_;
  std::atomic<later_lane*> shared_{nullptr};
  std::atomic<std::uint64_t> lost_{0};  ///< calls a failed allocation kept out
  std::atomic<std::uint32_t> candidates_used_{0};
  std::array<std::atomic<std::uint64_t>, window> first_{};
  std::array<std::atomic<std::uint64_t>, candidate_slots> candidates_{};
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
