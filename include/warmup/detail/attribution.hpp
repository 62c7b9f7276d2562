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
#include <mutex>
#include <string>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/process.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A cold call's span on its thread, in steady-clock ns.
struct cold_window {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t thread = 0;  ///< gettid
};

/// How a window's time splits among causes.
struct split {
  std::array<std::uint64_t, cause_count> ns{};
  std::array<std::uint64_t, cause_count> count{};  ///< records that own some of the time
  std::uint64_t named = 0;                         ///< the sum of `ns`: never more than the window
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
  }
  for (std::size_t k = 0; k < mine.size(); ++k)
    if (owns[k]) ++out.count[static_cast<std::size_t>(mine[k].what)];
  return out;
}

/// The cause records of the process, and the cold windows seen so far. Bounded: past `cap`
/// records, new ones are counted as dropped. A synchronisation record (the most frequent kind, one
/// per cudaStreamSynchronize) is kept only where it overlaps a cold window already closed or an
/// open first call of its thread, so a steady loop of synchronisations cannot fill the store.
class cause_store {
 public:
  static constexpr std::size_t cap = 1u << 18;  // 8 MiB of records

  void add(const cause_record& r) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      if (r.what == cause::sync_wait && !near_cold_locked(r)) return;
      if (records_.size() >= cap) {
        ++dropped_;
        return;
      }
      records_.push_back(r);
    } WARMUP_CATCH_ALL {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  /// Whether cause records are being collected (CUPTI running): cold calls then leave windows.
  std::atomic<bool> collecting{false};
  /// Hands over the records the source holds (CUPTI's buffers): called by snapshot(), never
  /// inside a measured scope's time.
  std::atomic<void (*)() noexcept> flush{nullptr};
  /// What `report::attribution_source` says: "off", "cupti", or why it fell back. Under the mutex.
  std::string source = "off";

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
      if (windows_.size() < cap) windows_.push_back(w);
    } WARMUP_CATCH_ALL {
    }
  }

  /// The records that may fall in `w` (its thread's, and those of no thread), in arrival order.
  std::vector<cause_record> overlapping(const cold_window& w) const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cause_record> out;
    for (const cause_record& r : records_)
      if (r.start_ns < w.end_ns && r.end_ns > w.start_ns && (r.thread == 0 || w.thread == 0 || r.thread == w.thread))
        out.push_back(r);
    return out;
  }

  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }

  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets everything; caller holds the lock and is the only thread (a forked child).
  void reset_locked() noexcept {
    records_.clear();
    windows_.clear();
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
    // Recent windows first: records arrive soon after their call.
    for (auto it = windows_.rbegin(); it != windows_.rend(); ++it)
      if (joins(*it)) return true;
    return false;
  }

  mutable std::mutex mutex_;
  std::vector<cause_record> records_;
  std::vector<cold_window> windows_;
  std::vector<cold_window> open_;
  std::atomic<std::uint64_t> dropped_{0};
};

inline cause_store& cause_records() noexcept { return shared<cause_store, slot::causes>(); }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
