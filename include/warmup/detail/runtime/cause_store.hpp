/// @file
/// @brief The process's cause store: the cause records CUPTI and the host signals hand over, the
/// cold windows they may join, and the CPU samples of cold calls, kept until a snapshot joins them
/// (detail/analysis/attribution.hpp). One per process, behind the process anchor, under a mutex.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/analysis/child_processes.hpp"
#include "warmup/detail/analysis/code_samples.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

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

  /// Keeps the intervals `keep` says yes to, asked of each in order of start (long ones after).
  template <class Keep>
  void keep_if(Keep&& keep) {
    items_.erase(std::remove_if(items_.begin(), items_.end(), [&](const T& x) { return !keep(x); }), items_.end());
    long_.erase(std::remove_if(long_.begin(), long_.end(), [&](const T& x) { return !keep(x); }), long_.end());
  }

  /// The last interval added that `match` says yes to, looking back over at most `within` of
  /// those that start last; nullptr where none is.
  template <class Match>
  const T* last_of(Match&& match, std::size_t within) const {
    for (std::size_t i = items_.size(); i-- > 0 && items_.size() - i <= within;)
      if (match(items_[i])) return &items_[i];
    return nullptr;
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

/// The cause records of the process, and the cold windows seen so far. Bounded: past `cap`
/// records, new ones are counted as dropped. A record of a cause kept near cold calls only (its
/// row in cause.hpp: synchronisations, one per cudaStreamSynchronize) is kept only where it overlaps
/// a cold window already closed or an open first call of its thread, so a steady loop of
/// synchronisations cannot fill the store.
class cause_store {
 public:
  static constexpr std::size_t cap = 1u << 18;  // 8 MiB of records
  static constexpr std::size_t sample_cap = sample_store_cap;
  static constexpr std::size_t code_cap = 1u << 16;  ///< code samples (python/code_sampler.hpp)
  static constexpr std::size_t name_cap = 1u << 12;  ///< distinct Python functions they name
  // The run's bound docs/why-slow.md states ("CPU sampling"): 64 bytes a CPU sample, 32 a code sample.
  static_assert(sizeof(thread_sample) <= 64 && sizeof(code_sample) <= 32, "warmup: the sample stores' bound grew");

  void add(const cause_record& r) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      if (kept_of(r.what) == cause_kept::near_cold && !near_cold_locked(r)) return;
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
  ///
  /// Another thread's samples (`caller`: the sampled call's thread) come with that call's CPU
  /// clock read at each (cpu_sample::caller_cpu_ns): each reading is kept among the caller's
  /// samples too (pc `clock_reading_pc`, no weight), where it times the call's waiting.
  void add_samples(std::uint64_t thread, const sampled_call& call, std::uint64_t caller = 0) noexcept {
    const bool for_others = caller != 0;
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
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
          keep({c.ns, c.ns + 1, kernel_pc, thread, weight - period, c.cpu_ns, period, false, for_others});
          weight = period;
        }
        const bool last = i + 1 == call.samples.size();
        keep({c.ns, c.ns + 1, c.pc, thread, weight, c.cpu_ns, period, last && call.cut_short, for_others});
        if (for_others && c.caller_cpu_ns != 0) keep({c.ns, c.ns + 1, clock_reading_pc, caller, 0, c.caller_cpu_ns, 0});
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
  /// The processes first calls wait on, read from /proc (detail/runtime/child_watch.hpp); under
  /// the mutex (`lock()`), its count of open calls apart.
  child_watch children;

  /// Where the Python interpreter's code lies (set by the Python module): CPU samples there are
  /// named by the code samples (detail/analysis/code_samples.hpp).
  void set_interpreter(std::uintptr_t lo, std::uintptr_t hi) noexcept {
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      interpreter_lo_ = lo, interpreter_hi_ = hi;
    } WARMUP_CATCH_ALL {
    }
  }

  /// A code sample: thread `thread` ran `function` of Python module `module` at `ns`. Past
  /// `name_cap` distinct functions, the sample is counted as lost. Past `code_cap` samples they
  /// are thinned, never cut: each thread's kept one per `code_gap_ns_` at least, the gap doubled
  /// each time the store fills, so that a first call of any length keeps notes spread over all of
  /// it (the join reaches up to a second to the next one: code_view::reach_after_ns).
  void add_code_sample(std::uint64_t thread, std::uint64_t ns, std::string_view module,
                       std::string_view function) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      if (code_.size() >= code_cap) {
        thin_code();
        if (code_.size() >= code_cap) {  // a gap of over a second thins no further
          ++samples_lost_;
          return;
        }
      }
      if (code_gap_ns_ != 0) {
        const auto same_thread = [&](const code_sample& x) { return x.thread == thread; };
        const code_sample* before = code_.last_of(same_thread, 64);
        if (before != nullptr && ns >= before->start_ns && ns - before->start_ns < code_gap_ns_) return;  // thinned
      }
      std::string key;
      key.reserve(module.size() + 1 + function.size());
      key.append(module).append(1, '\0').append(function);
      auto it = code_index_.find(key);
      if (it == code_index_.end()) {
        if (code_names_.size() >= name_cap) {
          ++samples_lost_;
          return;
        }
        code_names_.push_back(split_module(module, function));
        it = code_index_.emplace(std::move(key), static_cast<std::uint32_t>(code_names_.size() - 1)).first;
      }
      code_.add({ns, ns + 1, thread, it->second});
    } WARMUP_CATCH_ALL {
    }
  }

  /// The code samples of `w`'s thread (or of `thread`, where given: another thread it may have
  /// waited on) within reach of `w`, with their names and the interpreter's code.
  code_view code_in(const cold_window& w, std::uint64_t thread = 0) const {
    if (thread == 0) thread = w.thread;
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    code_view v;
    v.lo = interpreter_lo_, v.hi = interpreter_hi_;
    if (code_.size() == 0) return v;
    std::vector<std::uint32_t> renamed(code_names_.size(), UINT32_MAX);
    const std::uint64_t from = w.start_ns > code_view::reach_ns ? w.start_ns - code_view::reach_ns : 0;
    code_.each_overlapping(from, w.end_ns + code_view::reach_ns, [&](const code_sample& x) {
      if (x.thread != thread || x.name >= renamed.size()) return;
      if (renamed[x.name] == UINT32_MAX) {
        renamed[x.name] = static_cast<std::uint32_t>(v.names.size());
        v.names.push_back(code_names_[x.name]);
      }
      v.samples.push_back({x.start_ns, x.end_ns, x.thread, renamed[x.name]});
    });
    return v;
  }

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
    return in_window(records_, w, [&](const cause_record& r) { return r.thread == 0 || w.thread == 0 || r.thread == w.thread; });
  }

  /// The records of threads other than `w`'s that overlap `w`, in order of start (what the
  /// process's other threads did meanwhile).
  std::vector<cause_record> others_overlapping(const cold_window& w) const {
    return in_window(records_, w, [&](const cause_record& r) { return w.thread != 0 && r.thread != 0 && r.thread != w.thread; });
  }

  /// The CPU samples other calls' timers took on threads other than `w`'s during `w`.
  std::vector<thread_sample> others_samples_in(const cold_window& w) const {
    return in_window(samples_, w, [&](const thread_sample& x) { return w.thread != 0 && x.for_others && x.thread != w.thread; });
  }

  /// The CPU samples taken on `w`'s thread during `w`, by its own calls' ticks.
  std::vector<thread_sample> samples_in(const cold_window& w) const {
    return in_window(samples_, w, [&](const thread_sample& x) { return x.thread == w.thread && !x.for_others; });
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

  /// The least gap between two kept code samples of one thread: 0 until the store first fills.
  std::uint64_t code_gap_ns() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return code_gap_ns_;
  }

  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets everything; caller holds the lock and is the only thread (a forked child).
  void reset_locked() noexcept {
    records_.clear();
    windows_.clear();
    samples_.clear();
    samples_lost_ = 0;
    code_.clear();
    code_gap_ns_ = 0;
    code_names_.clear();
    code_index_.clear();
    open_.clear();
    children.reset();  // the parent's descendants are not the child's
    dropped_.store(0, std::memory_order_relaxed);
    WARMUP_TRY {
      source = "off: a forked child (CUPTI stays its parent's)";
    } WARMUP_CATCH_ALL {
    }
  }

 private:
  /// The intervals of `set` that overlap `w` and that `keep` keeps, under the store's lock.
  template <class T, class Keep>
  std::vector<T> in_window(const interval_set<T>& set, const cold_window& w, Keep&& keep) const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<T> out;
    set.each_overlapping(w.start_ns, w.end_ns, [&](const T& x) {
      if (keep(x)) out.push_back(x);
    });
    return out;
  }

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
  interval_set<code_sample> code_;
  std::uint64_t code_gap_ns_ = 0;  ///< add_code_sample's thinning

  /// The code samples at twice the gap (4 ms the first time), each thread's kept where it
  /// falls that far after the one kept before it; caller holds the lock.
  void thin_code() {
    if (code_gap_ns_ >= code_view::reach_after_ns) return;
    code_gap_ns_ = code_gap_ns_ == 0 ? 4'000'000 : code_gap_ns_ * 2;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> kept;  // thread, last kept
    code_.keep_if([&](const code_sample& x) {
      auto it = std::find_if(kept.begin(), kept.end(), [&](const auto& k) { return k.first == x.thread; });
      if (it == kept.end()) {
        kept.emplace_back(x.thread, x.start_ns);
        return true;
      }
      if (x.start_ns - it->second < code_gap_ns_) return false;
      it->second = x.start_ns;
      return true;
    });
  }
  std::vector<code_name> code_names_;
  std::unordered_map<std::string, std::uint32_t> code_index_;
  std::uintptr_t interpreter_lo_ = 0, interpreter_hi_ = 0;
  std::string sampling_status_ = "off";
  std::vector<cold_window> open_;
  std::atomic<std::uint64_t> dropped_{0};
};

inline cause_store& cause_records() noexcept { return shared<cause_store, slot::causes>(); }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
