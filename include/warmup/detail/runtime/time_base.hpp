/// @file
/// @brief The scopes' clock: the CPU's cycle counter where it can be trusted, read raw on the hot
/// path and converted to steady-clock nanoseconds afterwards, from pairs of readings of both.
///
/// Two `steady_clock::now()` were most of a scope's cost (each a vDSO call that reads the same
/// counter, then scales it). A scope now reads the counter itself (`rdtsc` on x86-64 where the
/// CPU reports an invariant TSC, `CNTVCT_EL0` on Arm) and stores ticks; a snapshot converts
/// them with the rate measured between the pair taken at load and the latest one, so a first
/// call is converted with the best rate the run has, not the one known when it happened. No
/// pair is waited for: start-up, which this library measures, pays one pair (its cost is in BENCHMARKS.md).
///
/// Where the counter cannot be trusted (no invariant bit, another architecture, WARMUP_CLOCK=
/// steady), ticks are steady-clock nanoseconds. Where a later pair disagrees with the rate (a
/// virtual machine moved to another host, a counter that jumped), the scopes go on with the
/// steady clock, expressed in the same ticks through the last good pair, so that every figure
/// keeps one unit; the report's header says which clock timed the run and why.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/record/ticks.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A counter reading and a steady-clock reading taken together: the counter read between two
/// steady reads, whose midpoint stands for it; `width` (ns) bounds the pairing's error.
struct clock_pair {
  std::uint64_t ticks = 0, ns = 0, width = 0;
};

/// The tightest of three tries (an interrupt between the reads widens one, rarely all three).
inline clock_pair read_pair() noexcept {
  clock_pair best{0, 0, ~std::uint64_t{0}};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t a = steady_ns();
    const std::uint64_t c = read_counter();
    const std::uint64_t b = steady_ns();
    if (b - a < best.width) best = {c, a + (b - a) / 2, b - a};
  }
  return best;
}

/// What a snapshot converts with: a copy of the pairs, so that thousands of figures convert
/// without a lock. Timestamps go through the pairs around them (the steady clock may be slewed
/// by NTP, by up to 0.05%, between pairs); durations through the rate over the whole run.
struct time_map {
  time_source source = time_source::steady;
  double rate = 1.0;  ///< ns per tick
  std::array<clock_pair, 64> pairs{};
  std::size_t count = 0;

  /// A duration of `ticks`, in ns.
  std::uint64_t ns(std::uint64_t ticks) const noexcept {
    if (source == time_source::steady) return ticks;
    return static_cast<std::uint64_t>(std::llround(double(ticks) * rate));
  }
  /// A moment in ticks, in steady-clock ns.
  std::uint64_t to_ns(std::uint64_t ticks) const noexcept {
    if (source == time_source::steady || count == 0) return ticks;
    // The last pair at or before `ticks`; before the first, the first.
    const auto after = std::upper_bound(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(count), ticks,
                                        [](std::uint64_t t, const clock_pair& p) { return t < p.ticks; });
    const std::size_t i = after == pairs.begin() ? 0 : static_cast<std::size_t>(after - pairs.begin()) - 1;
    const clock_pair& a = pairs[i];
    double r = rate;
    if (i + 1 < count && ticks >= a.ticks)
      r = double(pairs[i + 1].ns - a.ns) / double(pairs[i + 1].ticks - a.ticks);
    const double ns = double(a.ns) + (double(ticks) - double(a.ticks)) * r;
    return ns <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(ns));
  }
};

/// The process's scope clock (one instance, process_once.hpp's host_time()).
class time_base : public time_reading {
 public:
  static constexpr std::size_t max_pairs = 64;

  /// Chooses the source and takes the first pair; at start, before any scope reads the clock.
  /// `forced`: why the steady clock is to be used whatever the CPU has (WARMUP_CLOCK=steady),
  /// or nullptr.
  void start(const char* forced) noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(m_);
    if (started_) return;
    started_ = true;
    const char* why = forced != nullptr ? forced : counter_unusable();
    if (why != nullptr) {
      set_reason(why);
      rate_.store(1.0, std::memory_order_relaxed);
      return;
    }
    begin_counter(read_pair());
  }

  /// start() on the counter from the pair `first`: for tests, which feed pairs of their making.
  void start_counter(const clock_pair& first) noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(m_);
    started_ = true;
    begin_counter(first);
  }

  /// Takes a pair where one is due (cold paths: a first call's end), or always (a snapshot).
  void calibrate(bool always) noexcept {
    if (source_.load(std::memory_order_relaxed) != time_source::counter) return;
    if (!always && steady_ns() < next_due_ns_.load(std::memory_order_relaxed)) return;
    (void)add(read_pair(), always);
  }

  /// Adds `p` if it agrees with the pairs before it (or is the first that gives a rate);
  /// a pair that disagrees drops the counter. Returns whether `p` was kept. Tests call it with
  /// pairs of their own making.
  bool add(const clock_pair& p, bool always) noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(m_);
    if (source_.load(std::memory_order_relaxed) != time_source::counter) return false;
    if (count_ == 0) {
      pairs_[0] = p;
      count_ = 1;
      return true;
    }
    const clock_pair first = pairs_[0], last = pairs_[count_ - 1];
    if (p.ns <= last.ns) return false;  // not later than the last: nothing to learn
    if (p.ticks <= last.ticks) return drop("the cycle counter stood still or went back while steady_clock advanced");
    const double elapsed = double(p.ns - last.ns);
    const double r = rate_.load(std::memory_order_relaxed);
    if (r > 0) {
      // Where the rate so far puts p, and how far off the pairs' own errors allow it to be:
      // the rate's uncertainty carried over the gap, both pairings' widths, the steady
      // clock's NTP slew (at most 0.05%, taken as 0.1%), and 20 us to spare.
      const double predicted = double(last.ns) + double(p.ticks - last.ticks) * r;
      const double rate_error = double(first.width + last.width) / double(last.ns - first.ns);
      const double allowed = 4 * (rate_error * elapsed + double(last.width + p.width)) + 1e-3 * elapsed + 20'000;
      if (std::fabs(double(p.ns) - predicted) > allowed) {
        char why[160];
        std::snprintf(why, sizeof why, "the cycle counter disagreed with steady_clock by %.0f us over %.3f s",
                      std::fabs(double(p.ns) - predicted) / 1e3, elapsed / 1e9);
        return drop(why);
      }
    }
    const double fresh = double(p.ns - first.ns) / double(p.ticks - first.ticks);
    if (!(fresh > 0.01 && fresh < 100)) {  // 10 MHz to 100 GHz
      if (p.ns - first.ns < 1'000'000) return false;  // too close to tell yet
      return drop("the cycle counter's rate against steady_clock is implausible");
    }
    if (!always && double(p.ns - last.ns) < gap_ns(first, last)) return false;
    if (count_ == max_pairs) thin();
    pairs_[count_++] = p;
    rate_.store(fresh, std::memory_order_relaxed);
    next_due_ns_.store(p.ns + static_cast<std::uint64_t>(gap_ns(first, p)), std::memory_order_relaxed);
    return true;
  }

  /// Converts moments near now to steady-clock ns, over their distance from a pair read now
  /// (a cold call's window, joined with CUPTI's records, is converted over its own length).
  struct converter {
    clock_pair at;
    double rate = 0;  ///< ns per tick; 0: identity (the steady clock) or no rate yet (the pair's ns)
    bool identity = true;
    std::uint64_t to_ns(std::uint64_t ticks) const noexcept {
      if (identity) return ticks;
      if (rate <= 0) return at.ns;  // one pair only: the call is recent, and no rate is known
      const double ns = double(at.ns) + (double(ticks) - double(at.ticks)) * rate;
      return ns <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(ns));
    }
  };
  converter recent() const noexcept {
    const time_source s = source_.load(std::memory_order_acquire);
    if (s == time_source::counter) return converter_at(read_pair());
    return not_counting(s);
  }

  /// recent(), whose one pair also calibrates where one is due (cold paths: a first call's end):
  /// one pair read, not one for each.
  converter recent_calibrated() noexcept {
    const time_source s = source_.load(std::memory_order_acquire);
    if (s != time_source::counter) return not_counting(s);
    const clock_pair p = read_pair();
    if (p.ns >= next_due_ns_.load(std::memory_order_relaxed)) (void)add(p, false);
    // A pair that disagreed has just dropped the counter: convert as the frozen clock does.
    const time_source after = source_.load(std::memory_order_acquire);
    return after == time_source::counter ? converter_at(p) : not_counting(after);
  }

  /// The pairs and the rate as they stand.
  time_map map() const noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(m_);
    time_map t;
    t.source = source_.load(std::memory_order_relaxed);
    t.rate = rate_.load(std::memory_order_relaxed);
    t.count = count_;
    std::copy(pairs_.begin(), pairs_.begin() + static_cast<std::ptrdiff_t>(count_), t.pairs.begin());
    if (t.source != time_source::steady && t.rate <= 0) t.rate = 1.0;  // unreachable with two pairs
    return t;
  }

  /// For fork handlers (compiled_once.hpp): held across fork() so the child's copy is never locked.
  void lock() noexcept { m_.lock(); }
  void unlock() noexcept { m_.unlock(); }

  /// For the report's header: which clock timed the scopes, and why.
  std::string describe() const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(m_);
    char text[320];
    const time_source s = source_.load(std::memory_order_relaxed);
    const double r = rate_.load(std::memory_order_relaxed);
    if (s == time_source::steady) {
      std::snprintf(text, sizeof text, "steady_clock (%s)", reason_);
    } else if (s == time_source::counter) {
      if (count_ < 2 || r <= 0)
        std::snprintf(text, sizeof text, "cycle counter (%s), calibrated against steady_clock: one pair so far", counter_name);
      else
        std::snprintf(text, sizeof text, "cycle counter (%s), %.4f GHz against steady_clock over %.3f s (%zu pairs)",
                      counter_name, 1 / r, double(pairs_[count_ - 1].ns - pairs_[0].ns) / 1e9, count_);
    } else {
      std::snprintf(text, sizeof text,
                    "steady_clock after %.3f s of the cycle counter (%s; %s): calls before it converted at %.4f GHz",
                    double(frozen_ns_.load(std::memory_order_relaxed) - pairs_[0].ns) / 1e9, counter_name, reason_,
                    r > 0 ? 1 / r : 0.0);
    }
    return text;
  }

 private:
  void begin_counter(const clock_pair& first) noexcept {  // lock held
    pairs_[0] = first;
    count_ = 1;
    rate_.store(0.0, std::memory_order_relaxed);  // unknown until a second pair
    next_due_ns_.store(first.ns + min_gap_ns, std::memory_order_relaxed);
    source_.store(time_source::counter, std::memory_order_release);
  }



  /// Drops the counter (lock held): the scopes go on with the steady clock through the last
  /// good pair, at the rate measured until it.
  bool drop(const char* why) noexcept {
    set_reason(why);
    const clock_pair& last = pairs_[count_ - 1];
    if (rate_.load(std::memory_order_relaxed) <= 0)  // one pair only: the nominal rate is all there is
      rate_.store(1.0, std::memory_order_relaxed);
    frozen_ticks_.store(last.ticks, std::memory_order_relaxed);
    frozen_ns_.store(last.ns, std::memory_order_relaxed);
    source_.store(time_source::steady_after_counter, std::memory_order_release);
    return false;
  }

  /// How long after `last` the next pair is due: a quarter of the baseline so far, between 10 us
  /// and 1 s, so a run keeps a few dozen pairs (geometric at first, then one a second, thinned).
  converter converter_at(const clock_pair& p) const noexcept {
    converter c;
    c.identity = false;
    c.rate = rate_.load(std::memory_order_relaxed);
    c.at = p;
    return c;
  }
  /// The converter where the counter is not read: the steady clock's identity, or the frozen pair.
  converter not_counting(time_source s) const noexcept {
    converter c;
    if (s == time_source::steady) return c;
    c.identity = false;
    c.rate = rate_.load(std::memory_order_relaxed);
    c.at = {frozen_ticks_.load(std::memory_order_relaxed), frozen_ns_.load(std::memory_order_relaxed), 0};
    return c;
  }

  static double gap_ns(const clock_pair& first, const clock_pair& last) noexcept {
    return std::clamp(double(last.ns - first.ns) / 4, double(min_gap_ns), 1e9);
  }

  /// Full: keeps the first and last pairs and every other one between (lock held).
  void thin() noexcept {
    std::size_t out = 1;
    for (std::size_t i = 2; i + 1 < count_; i += 2) pairs_[out++] = pairs_[i];
    pairs_[out++] = pairs_[count_ - 1];
    count_ = out;
  }

  void set_reason(const char* why) noexcept { std::snprintf(reason_, sizeof reason_, "%s", why); }

  static constexpr std::uint64_t min_gap_ns = 10'000;

  std::atomic<std::uint64_t> next_due_ns_{0};
  mutable std::mutex m_;
  bool started_ = false;
  std::array<clock_pair, max_pairs> pairs_{};
  std::size_t count_ = 0;
  char reason_[200] = "not started";
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
