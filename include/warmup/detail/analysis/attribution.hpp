/// @file
/// @brief Joining cause records to cold calls: each call's time split among its causes.
///
/// A cold call (a site's first call, or a call after idling or `expect_cold()`) leaves a window
/// (its start, end and thread). Cause records (detail/causes.hpp) come later, from CUPTI's
/// buffers; `snapshot()` joins each window with the records of its thread that overlap it. Records
/// nest (a JIT inside a module load, a load inside an API call): each instant of the window
/// belongs to the innermost record covering it, so no time is counted twice, and what no record
/// covers is the unattributed remainder.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "warmup/detail/process.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A cold call's span on its thread, in steady-clock ns.
struct cold_window {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t thread = 0;  ///< gettid
  /// The thread's CPU clock at the call's start and end (CLOCK_THREAD_CPUTIME_ID), where read
  /// (first calls): what the call spent off the CPU. 0 and 0 where not read.
  std::uint64_t cpu_start_ns = 0, cpu_end_ns = 0;
  std::uint64_t major_faults = 0;  ///< page faults that read from disk, where read
};

/// How a window's time splits among causes.
struct split {
  std::array<std::uint64_t, cause_count> ns{};
  std::array<std::uint64_t, cause_count> count{};  ///< records that own some of the time
  std::uint64_t named = 0;                         ///< the sum of `ns`: never more than the window
  /// The spans some record owns, in order, adjacent ones merged: where CPU samples are not needed.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> covered;
  /// The same spans by owner's cause, in order, adjacent ones of one cause merged: where in the
  /// call each cause's time went (the timeline draws them).
  struct piece {
    cause what;
    std::uint64_t start_ns, end_ns;
  };
  std::vector<piece> pieces;

  bool covers(std::uint64_t t) const noexcept {
    auto it = std::upper_bound(covered.begin(), covered.end(), t,
                               [](std::uint64_t v, const std::pair<std::uint64_t, std::uint64_t>& c) { return v < c.first; });
    return it != covered.begin() && t < std::prev(it)->second;
  }
};

/// Splits window `w` among `records`: records of another thread are left out (a record of thread
/// 0 says no thread and joins any), each is clipped to the window, and each instant goes to the
/// innermost record covering it: the one that began last, or of two that began together the one
/// that ends first.
inline split split_window(const cold_window& w, const std::vector<cause_record>& records) {
  split out;
  std::vector<cause_record> mine;
  for (const cause_record& r : records) {
    if (r.thread != 0 && w.thread != 0 && r.thread != w.thread) continue;
    const std::uint64_t a = std::max(r.start_ns, w.start_ns), b = std::min(r.end_ns, w.end_ns);
    if (a >= b) continue;
    mine.push_back({r.what, a, b, r.thread});
  }
  if (mine.empty()) return out;
  std::vector<std::uint64_t> cuts;
  cuts.reserve(2 * mine.size());
  for (const cause_record& r : mine) cuts.push_back(r.start_ns), cuts.push_back(r.end_ns);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<bool> owns(mine.size(), false);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::uint64_t a = cuts[i], b = cuts[i + 1];
    std::size_t best = mine.size();
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const cause_record& r = mine[k];
      if (r.start_ns > a || r.end_ns < b) continue;
      if (best == mine.size() || r.start_ns > mine[best].start_ns ||
          (r.start_ns == mine[best].start_ns && r.end_ns < mine[best].end_ns))
        best = k;
    }
    if (best == mine.size()) continue;
    out.ns[static_cast<std::size_t>(mine[best].what)] += b - a;
    out.named += b - a;
    owns[best] = true;
    if (!out.covered.empty() && out.covered.back().second == a) out.covered.back().second = b;
    else out.covered.emplace_back(a, b);
    if (!out.pieces.empty() && out.pieces.back().end_ns == a && out.pieces.back().what == mine[best].what)
      out.pieces.back().end_ns = b;
    else out.pieces.push_back({mine[best].what, a, b});
  }
  for (std::size_t k = 0; k < mine.size(); ++k)
    if (owns[k]) ++out.count[static_cast<std::size_t>(mine[k].what)];
  return out;
}

/// Intervals (anything with `start_ns` and `end_ns`) kept in order of start, so that those
/// overlapping a span are found by a binary search, not a scan: a snapshot joins every cold
/// window of 10^5 sites against up to 2^18 records. Intervals longer than `long_ns` (the driver's
/// initialisation, a long wait) are few and kept apart, scanned whole.
template <class T>
class interval_set {
 public:
  static constexpr std::uint64_t long_ns = 1'000'000'000;

  void add(const T& x) {
    const std::uint64_t len = x.end_ns > x.start_ns ? x.end_ns - x.start_ns : 0;
    if (len > long_ns) {
      long_.push_back(x);
      return;
    }
    max_len_ = std::max(max_len_, len);
    // Records arrive nearly in order of start: the insertion point is at or near the end.
    auto at = items_.end();
    while (at != items_.begin() && std::prev(at)->start_ns > x.start_ns) --at;
    items_.insert(at, x);
  }

  /// Calls `f` on each interval overlapping [start, end).
  template <class F>
  void each_overlapping(std::uint64_t start, std::uint64_t end, F&& f) const {
    for (const T& x : long_)
      if (x.start_ns < end && x.end_ns > start) f(x);
    const std::uint64_t from = start > max_len_ ? start - max_len_ : 0;
    auto it = std::lower_bound(items_.begin(), items_.end(), from,
                               [](const T& x, std::uint64_t v) { return x.start_ns < v; });
    for (; it != items_.end() && it->start_ns < end; ++it)
      if (it->end_ns > start) f(*it);
  }

  std::size_t size() const noexcept { return items_.size() + long_.size(); }
  void clear() noexcept {
    items_.clear();
    long_.clear();
    max_len_ = 0;
  }

 private:
  std::vector<T> items_;
  std::vector<T> long_;
  std::uint64_t max_len_ = 0;
};

/// A CPU sample of a cold call (detail/analysis/cpu_sampler.hpp), with the thread that took it and the
/// CPU time it stands for. An interval of one instant, for `interval_set`.
struct thread_sample {
  std::uint64_t start_ns = 0, end_ns = 0;  ///< end = start + 1
  std::uintptr_t pc = 0;
  std::uint64_t thread = 0;
  std::uint64_t weight_ns = 0;  ///< the thread's CPU time since the sample before
  std::uint64_t cpu_ns = 0;     ///< the thread's CPU clock when it was taken
  /// The tick's period where it samples user mode only (a task clock), else 0 (cpu_samples.hpp).
  std::uint64_t user_period_ns = 0;
  /// The call's ticks went uncounted after this, its last sample (sampled_call::cut_short): the
  /// CPU time after it is unknown.
  bool cut_after = false;
};

/// The CPU time of a window that no record covers, by shared object: each sample outside the
/// records' spans stands for the CPU time since the sample before, and the total is held to the
/// uncovered wall time (a thread cannot spend more CPU than wall). Objects by name, with their
/// samples.
struct host_code_split {
  struct object {
    std::string where;
    std::uint64_t ns = 0;
    std::uint64_t samples = 0;
  };
  std::vector<object> objects;
  std::uint64_t named = 0;
};

template <class NameOf>
host_code_split split_samples(const cold_window& w, const split& records, const std::vector<thread_sample>& samples,
                              NameOf&& name_of) {
  host_code_split out;
  std::uint64_t weight = 0;
  // A task clock's ticks after its last sample all found the thread in the kernel (or there
  // would be a later sample): a period each, put on the kernel at that last sample's instant.
  // Not where ticks went uncounted (a full buffer): that time is unknown, left unattributed.
  const thread_sample* last = nullptr;
  for (const thread_sample& x : samples)
    if (x.start_ns >= w.start_ns && x.start_ns < w.end_ns && (last == nullptr || x.start_ns > last->start_ns)) last = &x;
  std::vector<thread_sample> tail;
  if (last != nullptr && !last->cut_after && last->user_period_ns != 0 && w.cpu_end_ns > last->cpu_ns) {
    const std::uint64_t p = last->user_period_ns, missed = (w.cpu_end_ns - last->cpu_ns) / p;
    if (missed != 0) tail.push_back({last->start_ns, last->end_ns, kernel_pc, last->thread, missed * p, w.cpu_end_ns, p});
  }
  const auto take = [&](const thread_sample& x) {
    if (x.start_ns < w.start_ns || x.start_ns >= w.end_ns || records.covers(x.start_ns)) return;
    std::string where = name_of(x.pc);
    auto it = std::find_if(out.objects.begin(), out.objects.end(), [&](const auto& o) { return o.where == where; });
    if (it == out.objects.end()) it = out.objects.insert(out.objects.end(), {std::move(where), 0, 0});
    it->ns += x.weight_ns;
    it->samples += 1;
    weight += x.weight_ns;
  };
  for (const thread_sample& x : samples) take(x);
  for (const thread_sample& x : tail) take(x);
  const std::uint64_t span = w.end_ns - w.start_ns;
  const std::uint64_t room = span > records.named ? span - records.named : 0;
  if (weight > room) {  // scale down, keeping the sum exact
    std::uint64_t given = 0;
    for (auto& o : out.objects) given += (o.ns = static_cast<std::uint64_t>(double(o.ns) * double(room) / double(weight)));
    if (!out.objects.empty()) out.objects.front().ns += room - std::min(room, given);
    weight = room;
  }
  out.named = weight;
  return out;
}

/// The time a window's thread spent off the CPU where no record covers, from its CPU clock read
/// at the window's ends and at each sample: between two readings, wall time less CPU time is
/// time off the CPU, put on the uncovered part of that stretch in proportion to its length (a
/// record owns what it covers, waiting or not). Held to `room`, the window's time nothing else
/// named; 0 where the window's CPU clock was not read.
inline std::uint64_t waiting_in(const cold_window& w, const split& records, const std::vector<thread_sample>& samples,
                                std::uint64_t room) {
  if (w.cpu_end_ns == 0 || w.cpu_end_ns < w.cpu_start_ns || w.end_ns <= w.start_ns) return 0;
  // Stretches come in order and the covered spans are sorted and apart: one walk over both, not a
  // scan of every span per stretch (a first forward has thousands of each).
  std::size_t next = 0;
  const auto uncovered = [&](std::uint64_t a, std::uint64_t b) {
    const auto& spans = records.covered;
    while (next < spans.size() && spans[next].second <= a) ++next;
    std::uint64_t covered = 0;
    for (std::size_t i = next; i < spans.size() && spans[i].first < b; ++i)
      covered += std::min(b, spans[i].second) - std::max(a, spans[i].first);
    return b - a - std::min(b - a, covered);
  };
  double waiting = 0;
  std::uint64_t t = w.start_ns, cpu = w.cpu_start_ns;
  const auto stretch = [&](std::uint64_t t2, std::uint64_t cpu2) {
    if (t2 <= t) return;
    const std::uint64_t wall = t2 - t, on_cpu = cpu2 > cpu ? cpu2 - cpu : 0;
    if (wall > on_cpu) waiting += double(wall - on_cpu) * double(uncovered(t, t2)) / double(wall);
    t = t2;
    cpu = std::max(cpu, cpu2);
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> readings;  // (when, CPU clock), in order
  for (const thread_sample& x : samples)
    if (x.start_ns > w.start_ns && x.start_ns < w.end_ns && x.cpu_ns >= w.cpu_start_ns && x.cpu_ns <= w.cpu_end_ns)
      readings.emplace_back(x.start_ns, x.cpu_ns);
  std::sort(readings.begin(), readings.end());
  for (const auto& [when, clock] : readings) stretch(when, clock);
  stretch(w.end_ns, w.cpu_end_ns);
  // Samples' times come from the steady clock, the window's from the scopes' clock converted:
  // a few microseconds apart, never to make more waiting than the call spent off the CPU.
  const std::uint64_t span = w.end_ns - w.start_ns, on_cpu = w.cpu_end_ns - w.cpu_start_ns;
  const std::uint64_t off_cpu = span > on_cpu ? span - on_cpu : 0;
  return std::min({room, off_cpu, static_cast<std::uint64_t>(waiting)});
}

/// The cause records of the process, and the cold windows seen so far. Bounded: past `cap`
/// records, new ones are counted as dropped. A synchronisation record (the most frequent kind, one
/// per cudaStreamSynchronize) is kept only where it overlaps a cold window already closed or an
/// open first call of its thread, so a steady loop of synchronisations cannot fill the store.
class cause_store {
 public:
  static constexpr std::size_t cap = 1u << 18;  // 8 MiB of records
  static constexpr std::size_t sample_cap = 1u << 16;

  void add(const cause_record& r) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      if (r.what == cause::sync_wait && !near_cold_locked(r)) return;
      if (records_.size() >= cap) {
        ++dropped_;
        return;
      }
      records_.add(r);
    } WARMUP_CATCH_ALL {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  /// The CPU samples of one cold call of `thread`: each stands for the CPU time since the one
  /// before. Where they were taken in user mode only (a task clock), a sample stands for one
  /// period of it, and the rest of the time since the one before was the kernel's.
  void add_samples(std::uint64_t thread, const sampled_call& call) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      samples_lost_ += call.lost;
      std::uint64_t cpu = call.armed_cpu_ns;
      const std::uint64_t period = call.user_period_ns;
      const auto keep = [&](const thread_sample& x) {
        if (samples_.size() >= sample_cap) {
          ++samples_lost_;
          return;
        }
        samples_.add(x);
      };
      for (std::size_t i = 0; i < call.samples.size(); ++i) {
        const cpu_sample& c = call.samples[i];
        std::uint64_t weight = c.cpu_ns > cpu ? c.cpu_ns - cpu : 0;
        cpu = std::max(cpu, c.cpu_ns);
        // A tick lands a period apart, give or take the timer's slack: the kernel's share is
        // counted from the second period missed, so that slack never reads as kernel time.
        if (period != 0 && weight >= period + period / 2) {
          keep({c.ns, c.ns + 1, kernel_pc, thread, weight - period, c.cpu_ns, period});
          weight = period;
        }
        const bool last = i + 1 == call.samples.size();
        keep({c.ns, c.ns + 1, c.pc, thread, weight, c.cpu_ns, period, last && call.cut_short});
      }
    } WARMUP_CATCH_ALL {
    }
  }

  /// Whether cause records are being collected (CUPTI running): cold calls then leave windows.
  std::atomic<bool> collecting{false};
  /// Hands over the records the source holds (CUPTI's buffers): called by snapshot(), never
  /// inside a measured scope's time.
  std::atomic<void (*)() noexcept> flush{nullptr};
  /// What `report::attribution_source` says: "off", "cupti", or why it fell back. Under the mutex.
  std::string source = "off";
  /// The CPU sampler's process-wide part (detail/analysis/cpu_sampler.hpp).
  sampler_shared sampler;

  void set_source(bool on, std::string what) noexcept {
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      source = std::move(what);
    } WARMUP_CATCH_ALL {
    }
    collecting.store(on, std::memory_order_release);
  }
  std::string source_now() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return source;
  }

  /// What `report::cpu_sampling` says: "off", the interval, or why sampling could not run.
  void set_sampling_status(std::string what) noexcept {
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      sampling_status_ = std::move(what);
    } WARMUP_CATCH_ALL {
    }
  }
  std::string sampling_status() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return sampling_status_;
  }

  /// A first call begins on `thread` at `start_ns` (its records may arrive before it ends).
  void open_first_call(std::uint64_t thread, std::uint64_t start_ns) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      open_.push_back({start_ns, UINT64_MAX, thread});
    } WARMUP_CATCH_ALL {
    }
  }

  /// A cold call ended: its window, and the first call it closes if it was one.
  void close_window(const cold_window& w, bool first_call) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      if (first_call)
        for (auto it = open_.begin(); it != open_.end(); ++it)
          if (it->thread == w.thread) {
            open_.erase(it);
            break;
          }
      if (windows_.size() < cap) windows_.add(w);
    } WARMUP_CATCH_ALL {
    }
  }

  /// The records that may fall in `w` (its thread's, and those of no thread), in order of start.
  std::vector<cause_record> overlapping(const cold_window& w) const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cause_record> out;
    records_.each_overlapping(w.start_ns, w.end_ns, [&](const cause_record& r) {
      if (r.thread == 0 || w.thread == 0 || r.thread == w.thread) out.push_back(r);
    });
    return out;
  }

  /// The CPU samples taken on `w`'s thread during `w`.
  std::vector<thread_sample> samples_in(const cold_window& w) const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<thread_sample> out;
    samples_.each_overlapping(w.start_ns, w.end_ns, [&](const thread_sample& x) {
      if (x.thread == w.thread) out.push_back(x);
    });
    return out;
  }

  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size() + samples_.size();
  }
  std::uint64_t samples_lost() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return samples_lost_;
  }

  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets everything; caller holds the lock and is the only thread (a forked child).
  void reset_locked() noexcept {
    records_.clear();
    windows_.clear();
    samples_.clear();
    samples_lost_ = 0;
    open_.clear();
    dropped_.store(0, std::memory_order_relaxed);
    WARMUP_TRY {
      source = "off: a forked child (CUPTI stays its parent's)";
    } WARMUP_CATCH_ALL {
    }
  }

 private:
  bool near_cold_locked(const cause_record& r) const noexcept {
    const auto joins = [&](const cold_window& w) {
      return r.start_ns < w.end_ns && r.end_ns > w.start_ns && (r.thread == 0 || r.thread == w.thread);
    };
    for (const cold_window& w : open_)
      if (joins(w)) return true;
    bool near = false;
    windows_.each_overlapping(r.start_ns, r.end_ns, [&](const cold_window& w) { near = near || joins(w); });
    return near;
  }

  mutable std::mutex mutex_;
  interval_set<cause_record> records_;
  interval_set<cold_window> windows_;
  interval_set<thread_sample> samples_;
  std::uint64_t samples_lost_ = 0;
  std::string sampling_status_ = "off";
  std::vector<cold_window> open_;
  std::atomic<std::uint64_t> dropped_{0};
};

inline cause_store& cause_records() noexcept { return shared<cause_store, slot::causes>(); }
inline sampler_shared& sampler_state() noexcept { return cause_records().sampler; }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
