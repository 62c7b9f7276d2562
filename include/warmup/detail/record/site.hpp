/// @file
/// @brief A measured site and the process-wide registry of sites.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/record/process.hpp"
#include "warmup/detail/record/busy.hpp"
#include "warmup/detail/record/clock.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "warmup/detail/record/device_sampler.hpp"
#include "warmup/detail/record/device_sink.hpp"
#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/analysis/host_probe.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/record/nvtx.hpp"
#include "warmup/detail/record/recurrence.hpp"
#include "warmup/detail/record/series.hpp"
#include "warmup/detail/record/timeline.hpp"
#include "warmup/settings.hpp"
#include "warmup/op.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Arms the calling thread's CPU sampler for a first call of `owner` where sampling is on
/// (settings.hpp, set_cpu_sampling). A reason it cannot be is said once, and stands in the
/// report's header.
inline void start_cpu_sampling(const void* owner) noexcept {
  cause_store& store = cause_records();
  const std::uint64_t every = store.sampler.interval_ns.load(std::memory_order_relaxed);
  if (every == 0 || !cpu_sampling_supported) return;
  const char* why = my_sampler().begin(owner, every);
  if (why == nullptr) return;
  if (notice_board().raised(notice_kind::cpu_sampling)) return;  // said once, with the status
  WARMUP_TRY {
    if (notice_board().raise(notice_kind::cpu_sampling, std::string("CPU sampling is off: ") + why))
      store.set_sampling_status(std::string("off: ") + why);
  } WARMUP_CATCH_ALL {
  }
}

/// Ends the sampling of `owner`'s first call, if this thread samples it: its samples go to the store.
inline void stop_cpu_sampling(const void* owner) noexcept {
  if (thread_sampling != sampler_stage::armed) return;
  WARMUP_TRY {
    std::vector<cpu_sample> samples;
    std::uint64_t armed_cpu_ns = 0;
    std::uint32_t lost = 0;
    if (my_sampler().end(owner, samples, armed_cpu_ns, lost))
      cause_records().add_samples(this_thread_id(), armed_cpu_ns, samples, lost);
  } WARMUP_CATCH_ALL {
  }
}

/// What a snapshot reads of a site's counters, copied at one moment.
struct site_counts {
  std::uint64_t exceptions = 0;
  std::uint64_t captured = 0, unavailable = 0, dropped = 0, sampled_out = 0;
  std::uint64_t bytes_first = 0, bytes_total = 0;
  bool bytes_vary = false;
  bool bytes_overflow = false;  ///< the total passed 2^64 - 1: reported saturated
  std::uint64_t pool_read = 0, pool_grew = 0, pool_grown = 0, pool_first_grown = 0;
  std::uint64_t host_pinned = 0, host_pageable = 0;
};

/// A thread's own part of a site's figures once the site is past its first calls: a block of
/// call indexes taken from the site's counter at once, and the later calls' figures, written by
/// that thread alone with plain stores. Threads sharing a site then write no common cache line
/// per call. Kept by the site until the process ends (a snapshot reads it). Aligned to a cache
/// line, so that two threads' shards never share one.
struct alignas(64) shard {
  std::uint64_t next = 0, end = 0;  ///< the thread's current block of call indexes
  later_lane lane;
  shard* link = nullptr;   ///< the site's list of every shard, newest first
  shard* spare = nullptr;  ///< the site's shards whose thread ended, to give again
};

/// Where a thread keeps its shard of a site: a `WARMUP_SCOPE`'s thread_local, or the entry of the
/// thread's name cache. Trivially constructible and destructible (no TLS destructor).
struct shard_slot {
  shard* p = nullptr;
  bool refused = false;  ///< the site had no shard left to give: this thread uses the shared lane
};

class site;
/// Notes that the calling thread holds `slot`'s shard of `s`, to give back when the thread ends.
inline bool hold_shard(site* s, shard_slot* slot) noexcept;

/// A call's index, and the shard it was taken from (nullptr: from the site's counter).
struct call_ticket {
  std::uint64_t index;
  shard* from;
};

/// A site's cold calls, for attribution: its first call (with what it did on the host) and the
/// latest calls made after idling. Made at the first call, off its measured time.
struct cold_calls {
  static constexpr std::size_t kept = 16;  ///< calls after idling kept, the latest
  std::mutex m;
  thread_usage before;
  objects_mark objects_before;
  std::optional<bool> context_existed;
  std::optional<cold_window> first;
  std::optional<host_signals> first_host;
  std::vector<cold_window> recent;  ///< calls after idling, oldest first
};

/// Everything the library knows about one (operation kind, name) pair, and the only code that
/// changes it: a scope measures and hands its figures here, the event reader hands back device
/// times here, a snapshot reads them. Sites are made once and never freed (a report at exit may
/// still read them); every field is an atomic or written once.
class site final : public device_sink {
 public:
  site(op_kind k, std::string_view n, std::uint32_t i)
      : name(n), op(k), id(i), line_(timeline_config().first_calls.load(std::memory_order_relaxed)) {
    nvtx.set(name);
    past_at_ = std::max<std::uint64_t>(series::window, line_.first_calls());
  }
  site(const site&) = delete;
  site& operator=(const site&) = delete;
  ~site() {  // the registry's sites are never destroyed
    delete device_.load(std::memory_order_relaxed);
    delete cold_.load(std::memory_order_relaxed);
    for (shard* s = shards_.load(std::memory_order_relaxed); s != nullptr;) delete std::exchange(s, s->link);
  }

  const std::string name;
  const op_kind op;
  const std::uint32_t id;
  nvtx_name nvtx;

  // ---- A scope's calls, in the order it makes them.

  /// Call indexes a shard takes at once, and the most shards a site gives (threads beyond share
  /// the series' shared lane).
  static constexpr std::uint64_t index_block = 256;
  static constexpr std::size_t max_shards = 64;

  /// The clock the site's calls are timed with.
  const time_base& time() const noexcept { return *time_; }

  /// Starts a call; returns its index (0 for the site's first). The first calls (the exact
  /// window, and the timeline's first calls) take their index one by one, in the order they
  /// start; later ones from the calling thread's block, where `slot` holds its shard, so that
  /// indexes stay unique but no longer follow time across threads.
  WARMUP_HOT_INLINE call_ticket begin_call(shard_slot* slot) noexcept {
    if (slot != nullptr)
      if (shard* sh = slot->p; sh != nullptr && sh->next != sh->end) return {sh->next++, sh};
    return begin_call_slow(slot);
  }

  /// Whether call `index` is device-timed: every call when sampling is off, else the sampler's
  /// choice; a call left out is counted.
  WARMUP_HOT_INLINE bool wants_device(std::uint64_t index) noexcept {
    if (!sample_device.load(std::memory_order_relaxed) || sampler_.wants(index)) return true;
    sampled_out_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }

  /// Counts why a call that asked for device timing got none.
  void count_untimed(untimed why) noexcept {
    switch (why) {
      case untimed::none: break;
      case untimed::captured: captured_.fetch_add(1, std::memory_order_relaxed); break;
      case untimed::unavailable: unavailable_.fetch_add(1, std::memory_order_relaxed); break;
      case untimed::dropped: dropped_.fetch_add(1, std::memory_order_relaxed); break;
    }
  }

  /// Whether call `index` still belongs to this site's calls: false when the site was reset
  /// after the call began (the process forked inside the scope; this is the child, which
  /// starts clean).
  WARMUP_HOT_INLINE bool owns(const call_ticket& t) const noexcept {
    // A shard's block is emptied by the reset: the counter's line, written by every block
    // taken, is not read per call.
    return t.from != nullptr ? t.index < t.from->end : t.index < entered_.load(std::memory_order_relaxed);
  }

  /// The host side of call `index`, from `start` to `stop` (ticks of time()), `host` ticks
  /// long: on the timeline first, as its device side may be read back from the moment the
  /// scope records its end event. Returns whether the call came after idling.
  WARMUP_HOT_INLINE bool end_host(std::uint64_t index, std::uint64_t start, std::uint64_t stop,
                                  std::uint64_t host) noexcept {
    const bool after_idle = idle_.candidate(start, stop, time_->ns_per_tick());
    timeline_host(&line_, index, start, host);
    return after_idle;
  }

  /// The rest of call `index`: its host time, its bytes, whether an exception ended it, and for
  /// device-timed calls what the sampler learns from its host time.
  WARMUP_HOT_INLINE void end_call(const call_ticket& t, std::uint64_t host, bool after_idle, std::uint64_t bytes,
                                  bool device_timed, bool threw) noexcept {
    const std::uint64_t index = t.index;
    host_.record(index, host, after_idle, t.from != nullptr ? &t.from->lane : nullptr);
    if (device_timed) sampler_.observe(index, host);  // ticks: the sampler compares them with each other only
    if (bytes != 0) add_bytes(index, bytes);
    if (threw) exceptions_.fetch_add(1, std::memory_order_relaxed);
  }

  // ---- Cold calls: what attribution joins (detail/analysis/attribution.hpp).

  /// Sites whose first call gets host signals (`first_call_host`), in order of first calls.
  static constexpr std::uint32_t max_probed_first_calls = 4096;

  /// Before the first call's clock starts: the host's state, to compare with its end, and the
  /// thread's CPU sampler armed where sampling is on.
  /// `context_existed`: for device-timed calls, whether the device's context existed.
  void first_call_begins(std::optional<bool> context_existed) noexcept {
    // A program of 10^5 sites pays the probe for its first few thousand only (start-up is where
    // libraries are loaded anyway).
    static std::atomic<std::uint32_t> probed{0};
    if (probed.fetch_add(1, std::memory_order_relaxed) >= max_probed_first_calls) return;
    const busy_section busy;
    WARMUP_TRY {
      cold_calls* c = cold();
      if (c == nullptr) return;
      std::lock_guard<std::mutex> lock(c->m);
      c->context_existed = context_existed;
      c->objects_before = mark_objects();
      if (cause_records().collecting.load(std::memory_order_relaxed))
        cause_records().open_first_call(this_thread_id(), ns_since_epoch(clock::now()));
      c->before = read_thread_usage();  // the listing above is not the call's
      start_cpu_sampling(this);  // after: the samples' CPU time lies within `before`..`after`
    } WARMUP_CATCH_ALL {
    }
  }

  /// After a cold call's clock stopped: its window (from `start` to `stop`, ticks of time()),
  /// and for the first call what it did on the host.
  void cold_call_ends(std::uint64_t index, std::uint64_t start, std::uint64_t stop, bool after_idle) noexcept {
    if (index == 0) stop_cpu_sampling(this);  // first: the samples' CPU time lies within `before`..`after`
    const thread_usage after = index == 0 ? read_thread_usage() : thread_usage{};
    const busy_section busy;
    // In steady-clock ns, as CUPTI's records are: converted over the call's own length, from a
    // pair read now; and a pair kept where one is due, so the rate is known from the second call on.
    time_->calibrate(false);
    const time_base::converter now = time_->recent();
    const std::uint64_t start_ns = now.to_ns(start), stop_ns = now.to_ns(stop);
    WARMUP_TRY {
      // A first call keeps its window where it was probed or attribution runs: a program of
      // 10^5 sites does not pay for 10^5 windows nobody reads.
      const bool collecting = cause_records().collecting.load(std::memory_order_relaxed);
      cold_calls* c = index == 0 && !collecting ? cold_.load(std::memory_order_acquire) : cold();
      if (c == nullptr) return;
      const cold_window w{start_ns, stop_ns, this_thread_id()};
      std::lock_guard<std::mutex> lock(c->m);
      if (index == 0) c->first = w;
      if (index == 0 && c->before.ok) {  // probed at its start (first_call_begins)
        host_signals h;
        if (after.ok) {
          h.cpu = std::chrono::nanoseconds{static_cast<long long>(after.cpu_ns - c->before.cpu_ns)};
          h.minor_faults = after.minor_faults - c->before.minor_faults;
          h.major_faults = after.major_faults - c->before.major_faults;
        }
        h.libraries_loaded = loaded_since(c->objects_before);
        h.context_existed = c->context_existed;
        c->first_host = std::move(h);
      }
      if (index != 0 && after_idle) {
        if (c->recent.size() == cold_calls::kept) c->recent.erase(c->recent.begin());
        c->recent.push_back(w);
      }
      if (collecting) cause_records().close_window(w, index == 0);
    } WARMUP_CATCH_ALL {
    }
  }

  /// The cold calls seen so far (a copy), or nothing where the site never had one.
  struct cold_view {
    std::optional<cold_window> first;
    std::optional<host_signals> first_host;
    std::vector<cold_window> recent;
  };
  cold_view cold_calls_seen() const {
    cold_view v;
    cold_calls* c = cold_.load(std::memory_order_acquire);
    if (c == nullptr) return v;
    std::lock_guard<std::mutex> lock(c->m);
    v.first = c->first;
    v.first_host = c->first_host;
    v.recent = c->recent;
    return v;
  }

  // ---- The event reader's side (device_sink).

  bool on_timeline(std::uint64_t index) const noexcept override { return line_.holds(index); }

  void device_time(std::uint64_t index, std::uint64_t ns, bool after_idle, std::uint64_t start_ns) noexcept override {
    if (series* d = device_series()) d->record(index, ns, after_idle);
    if (start_ns != 0) timeline_device(&line_, index, start_ns, ns);
  }

  // ---- A snapshot's side.

  /// The host series with every shard's lane, in ticks of time().
  series_data host_data() const {
    std::vector<const later_lane*> lanes;
    for (const shard* s = shards_.load(std::memory_order_acquire); s != nullptr; s = s->link) lanes.push_back(&s->lane);
    return host_.read(lanes);
  }
  const series* device_series_if_any() const noexcept { return device_.load(std::memory_order_acquire); }
  std::vector<timeline_call> timeline_calls() const { return line_.read(); }
  site_counts counts() const noexcept {
    site_counts c;
    c.exceptions = exceptions_.load(std::memory_order_relaxed);
    c.captured = captured_.load(std::memory_order_relaxed);
    c.unavailable = unavailable_.load(std::memory_order_relaxed);
    c.dropped = dropped_.load(std::memory_order_relaxed);
    c.sampled_out = sampled_out_.load(std::memory_order_relaxed);
    c.bytes_first = bytes_first_.load(std::memory_order_relaxed);
    c.bytes_total = bytes_total_.load(std::memory_order_relaxed);
    c.bytes_vary = bytes_vary_.load(std::memory_order_relaxed);
    c.bytes_overflow = bytes_overflow_.load(std::memory_order_relaxed);
    c.pool_read = pool_read_.load(std::memory_order_relaxed);
    c.pool_grew = pool_grew_.load(std::memory_order_relaxed);
    c.pool_grown = pool_grown_.load(std::memory_order_relaxed);
    c.pool_first_grown = pool_first_grown_.load(std::memory_order_relaxed);
    c.host_pinned = host_pinned_.load(std::memory_order_relaxed);
    c.host_pageable = host_pageable_.load(std::memory_order_relaxed);
    return c;
  }

  /// Shards made (given to threads or spare): at most max_shards.
  std::size_t shard_count() const noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(shards_m_);
    return shard_count_;
  }

  /// Memory held: the site, its timeline, its histograms' blocks, its device series, and its
  /// name where the string keeps it outside the site.
  std::size_t bytes() const noexcept {
    const series* d = device_series_if_any();
    const char* p = name.data();
    const bool name_inside = p >= reinterpret_cast<const char*>(this) && p < reinterpret_cast<const char*>(this + 1);
    std::size_t shards = 0;
    for (const shard* s = shards_.load(std::memory_order_acquire); s != nullptr; s = s->link)
      shards += sizeof(shard) - sizeof(later_lane) + s->lane.bytes();
    return sizeof(*this) - sizeof(line_) - sizeof(host_) + line_.bytes() + host_.bytes() +
           (name_inside ? 0 : name.capacity() + 1) + (d != nullptr ? d->bytes() : 0) + cold_bytes() + shards;
  }

  std::size_t cold_bytes() const noexcept {
    cold_calls* c = cold_.load(std::memory_order_acquire);
    if (c == nullptr) return 0;
    std::lock_guard<std::mutex> lock(c->m);
    std::size_t n = sizeof(cold_calls) + c->recent.capacity() * sizeof(cold_window);
    if (c->first_host)
      for (const std::string& l : c->first_host->libraries_loaded) n += sizeof(std::string) + l.capacity();
    return n;
  }

  // ---- Memory signals, from the scope, outside the measured time.

  /// Call `index` of an allocation scope found its pool holding `before` then `after` bytes.
  void pool_reserved(std::uint64_t index, std::uint64_t before, std::uint64_t after) noexcept {
    pool_read_.fetch_add(1, std::memory_order_relaxed);
    if (after <= before) return;
    pool_grew_.fetch_add(1, std::memory_order_relaxed);
    pool_grown_.fetch_add(after - before, std::memory_order_relaxed);
    if (index == 0) pool_first_grown_.store(after - before, std::memory_order_relaxed);
  }
  /// A copy's host memory was pinned (true) or pageable (false).
  void host_memory(bool pinned) noexcept { (pinned ? host_pinned_ : host_pageable_).fetch_add(1, std::memory_order_relaxed); }

  /// Forgets every call, keeping the site's identity (name, id, NVTX string), so pointers held
  /// by `WARMUP_SCOPE` statics stay good. Only while no other thread can record: in a forked
  /// child, which starts with a clean report.
  void reset() noexcept {
    entered_.store(0, std::memory_order_relaxed);
    past_.store(false, std::memory_order_relaxed);
    spare_ = nullptr;  // every shard is free in the child: its one thread forgets those it held
    for (shard* s = shards_.load(std::memory_order_relaxed); s != nullptr; s = s->link) {
      s->next = s->end = 0;
      s->lane.reset();
      s->spare = std::exchange(spare_, s);
    }
    new (&shards_m_) std::mutex;  // a thread the child does not have may have held it
    new (&idle_) idle_tracker{};
    new (&sampler_) device_sampler{};
    for (auto* a : {&sampled_out_, &exceptions_, &bytes_first_, &bytes_total_, &captured_, &unavailable_, &dropped_,
                    &pool_read_, &pool_grew_, &pool_grown_, &pool_first_grown_, &host_pinned_, &host_pageable_})
      a->store(0, std::memory_order_relaxed);
    bytes_vary_.store(false, std::memory_order_relaxed);
    bytes_overflow_.store(false, std::memory_order_relaxed);
    host_.reset();
    line_.reset();
    delete device_.exchange(nullptr, std::memory_order_acq_rel);
    delete cold_.exchange(nullptr, std::memory_order_acq_rel);
  }

 private:
  /// Counts the bytes of call `index`.
  void add_bytes(std::uint64_t index, std::uint64_t n) noexcept {
    if (index == 0) bytes_first_.store(n, std::memory_order_relaxed);
    const std::uint64_t before = bytes_total_.fetch_add(n, std::memory_order_relaxed);
    if (before + n < before) bytes_overflow_.store(true, std::memory_order_relaxed);
    // Any size unlike the first marks the site (the first's own store may still be on its way
    // from another thread: the snapshot also compares the total with calls x first).
    if (index != 0 && n != bytes_first_.load(std::memory_order_relaxed))
      bytes_vary_.store(true, std::memory_order_relaxed);
  }

  /// The device series, made by the first device measurement (off the hot path, when events are
  /// read back), so host-only sites never pay for it. Returns nullptr only if memory ran out.
  series* device_series() noexcept {
    series* s = device_.load(std::memory_order_acquire);
    if (s != nullptr) return s;
    const busy_section busy;
    auto* fresh = new (std::nothrow) series{};
    if (fresh == nullptr) return nullptr;
    if (device_.compare_exchange_strong(s, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;
    return s;
  }

  /// The slow half of begin_call: the first calls, a thread's first block, a block used up.
  [[gnu::noinline]] call_ticket begin_call_slow(shard_slot* slot) noexcept {
    if (slot != nullptr && !slot->refused && past_.load(std::memory_order_relaxed)) {
      if (slot->p == nullptr && (slot->p = take_shard()) != nullptr && !hold_shard(this, slot)) {
        give_back(slot->p);  // no room to note it: it could not be given back at the thread's end
        slot->p = nullptr;
      }
      if (slot->p == nullptr) slot->refused = true;
      if (shard* sh = slot->p) {
        const std::uint64_t i = entered_.fetch_add(index_block, std::memory_order_relaxed);
        sh->next = i + 1;
        sh->end = i + index_block;
        return {i, sh};
      }
    }
    const std::uint64_t i = entered_.fetch_add(1, std::memory_order_relaxed);
    if (i + 1 >= past_at_ && !past_.load(std::memory_order_relaxed)) past_.store(true, std::memory_order_relaxed);
    return {i, nullptr};
  }

  /// A shard for the calling thread: one an ended thread gave back, else a new one; nullptr
  /// where the site gave all it gives.
  shard* take_shard() noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(shards_m_);
    if (shard* s = spare_) {
      spare_ = s->spare;
      return s;
    }
    if (shard_count_ == max_shards) return nullptr;
    auto* s = new (std::nothrow) shard{};
    if (s == nullptr) return nullptr;
    s->link = shards_.load(std::memory_order_relaxed);
    shards_.store(s, std::memory_order_release);
    ++shard_count_;
    return s;
  }

 public:
  /// A shard whose thread ended (or could not note it): its figures stay, its unused indexes
  /// are dropped, and the next thread that needs one takes it.
  void give_back(shard* s) noexcept {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(shards_m_);
    s->next = s->end = 0;
    s->spare = spare_;
    spare_ = s;
  }

 private:
  // The counter has a line of its own: every block taken writes it. What every call reads
  // shares the next line: after a kernel launch has swept the caches, each further line a scope
  // reads costs a miss.
  alignas(64) std::atomic<std::uint64_t> entered_{0};  ///< calls begun; also the next call's index
  alignas(64) time_base* time_ = &host_time();  // found once: the process anchor is behind it
  std::atomic<bool> past_{false};  ///< past the first calls: threads with a shard take blocks
  std::uint64_t past_at_ = series::window;
  idle_tracker idle_;
  device_sampler sampler_;
  std::atomic<std::uint64_t> sampled_out_{0};  ///< warm and steady: host time only
  std::atomic<std::uint64_t> exceptions_{0};   ///< calls left by an exception
  // Memory signals (detail/record/memory_probe.hpp), off the shared line: only allocation and copy
  // scopes given a stream or a host pointer touch them.
  std::atomic<std::uint64_t> pool_read_{0}, pool_grew_{0}, pool_grown_{0}, pool_first_grown_{0};
  std::atomic<std::uint64_t> host_pinned_{0}, host_pageable_{0};

  series host_;
  timeline line_;

  std::atomic<std::uint64_t> bytes_first_{0};
  std::atomic<std::uint64_t> bytes_total_{0};
  std::atomic<bool> bytes_vary_{false};
  std::atomic<bool> bytes_overflow_{false};

  std::atomic<std::uint64_t> captured_{0};
  std::atomic<std::uint64_t> unavailable_{0};
  std::atomic<std::uint64_t> dropped_{0};

  std::atomic<series*> device_{nullptr};
  std::atomic<cold_calls*> cold_{nullptr};

  std::atomic<shard*> shards_{nullptr};
  mutable std::mutex shards_m_;
  std::size_t shard_count_ = 0;
  shard* spare_ = nullptr;

  cold_calls* cold() noexcept {
    cold_calls* c = cold_.load(std::memory_order_acquire);
    if (c != nullptr) return c;
    auto* fresh = new (std::nothrow) cold_calls{};
    if (fresh == nullptr) return nullptr;
    if (cold_.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;
    return c;
  }
};

/// Says, once, that a scope was given a negative byte count. Out of line: the message is built
/// only on this path, never in a scope's inlined constructor.
[[gnu::noinline, gnu::cold]] inline void negative_bytes(long long bytes) noexcept {
  WARMUP_TRY {
    notice_board().raise(notice_kind::negative_bytes,
                         "a scope was given a negative byte count (" + std::to_string(bytes) + "); it counts as 0 bytes");
  } WARMUP_CATCH_ALL {
  }
}

/// A byte count of any integer type as the library keeps it; a negative one is the caller's
/// mistake, said once, and counted as 0 bytes.
template <class Int>
WARMUP_HOT_INLINE std::uint64_t byte_count(Int bytes) noexcept {
  if constexpr (std::is_signed_v<Int>) {
    if (bytes < 0) {
      negative_bytes(static_cast<long long>(bytes));
      return 0;
    }
  }
  return static_cast<std::uint64_t>(bytes);
}

/// The library's start-up (detail/runtime/runtime.hpp): made before the first site, whenever that is.
/// Not inline: a file built light (WARMUP_LIGHT) only declares it, and every file that compiles
/// the runtime defines it, weakly (the linker keeps one, as it does an inline function's copies).
/// Its name is the link error of a light program in which no file includes <warmup/runtime.hpp>.
void start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file() noexcept;

/// The most distinct sites a process keeps (about 300 MB at 3 KiB a site): names beyond it, a
/// name built from a request id say, are counted together in one site per kind.
inline constexpr std::size_t max_sites = 100'000;
inline constexpr std::string_view over_cap_name = "(names beyond the site cap)";

/// All sites of the process. Its mutex is taken only when a name is seen for the first time
/// (by the process, or by a thread for named scopes) and by snapshots: never per call.
class registry {
 public:
  site* find_or_add(op_kind k, std::string_view name) noexcept {
    start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file();
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& index = by_name_[static_cast<std::size_t>(k)];
      if (auto it = index.find(name); it != index.end()) return it->second;
      if (sites_.size() >= max_sites) {
        if (auto it = index.find(over_cap_name); it != index.end()) return it->second;
        notice_board().raise(notice_kind::site_cap, "more than " + std::to_string(max_sites) +
                                                        " distinct site names: the calls of further names are counted in one site per kind, '" +
                                                        std::string(over_cap_name) + "'");
        name = over_cap_name;
      }
      sites_.push_back(std::make_unique<site>(k, name, static_cast<std::uint32_t>(sites_.size())));
      site* s = sites_.back().get();
      index.emplace(std::string_view{s->name}, s);
      return s;
    } WARMUP_CATCH_ALL {
      return nullptr;  // out of memory: the scope measures nothing rather than failing
    }
  }

  std::vector<site*> all() const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<site*> out;
    out.reserve(sites_.size());
    for (const auto& s : sites_) out.push_back(s.get());
    return out;
  }

  /// For fork handlers: held across fork() so the child's copy is never locked by a thread
  /// that does not exist there.
  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets every site's calls; caller holds the lock and is the only thread.
  void reset_locked() noexcept {
    for (auto& s : sites_) s->reset();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<site>> sites_;
  std::unordered_map<std::string_view, site*> by_name_[op_kind_count];
};

/// The registry lives until the process ends (it is never destroyed), so scopes in static
/// destructors and reports at exit still find it.
inline registry& sites() noexcept {
  return shared<registry, slot::registry>();
}

/// A site as a thread finds it by name: the site, and the thread's shard of it.
struct named_site {
  site* s = nullptr;
  shard_slot slot;
};

/// Finds a site by name for the named-scope constructors: a per-thread cache first, so threads
/// do not meet on the registry's mutex once they have seen a name. In front of its hash table,
/// a small table keyed by the name's address: a name passed again from the same place (a
/// literal, a string kept by the caller) is found with one comparison of its characters, not a
/// hash and a division.
struct name_cache {
  std::unordered_map<std::string_view, named_site> by_kind[op_kind_count];
  struct recent {
    const char* data = nullptr;
    std::size_t size = 0;
    op_kind kind = op_kind::region;
    named_site* found = nullptr;
    const char* site_chars = nullptr;  ///< the site's own copy of the name: one load, not three
  };
  static constexpr std::size_t recent_count = 64;
  recent by_address[recent_count];

  /// The shards this thread took, given back when it ends (before the entries above, whose
  /// slots point at some of them, are freed). A scope that runs later in the thread's end, in
  /// another thread_local's destructor, finds its slot refused and uses the site's shared lane.
  struct held_shard {
    site* s;
    shard_slot* slot;
  };
  std::vector<held_shard> held;
  void give_back_shards() noexcept {
    for (const held_shard& h : held) {
      if (h.slot->p != nullptr) h.s->give_back(h.slot->p);
      h.slot->p = nullptr;
      h.slot->refused = true;
    }
    held.clear();
  }
  /// In a forked child: the sites made every shard spare; this thread holds none any more.
  void forget_shards() noexcept {
    for (const held_shard& h : held) *h.slot = shard_slot{};
    held.clear();
  }

  static std::size_t slot_of(op_kind k, std::string_view name) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(name.data());
    return ((a >> 3) ^ (a >> 9) ^ name.size() ^ (static_cast<std::size_t>(k) << 4)) % recent_count;
  }
};

/// The calling thread's cache, freed when the thread ends, except the main thread's: that one
/// ends inside exit(), possibly called by a signal handler that stopped the thread inside the
/// allocator, where a free would hang; the process is going away anyway.
inline name_cache& my_names() {
  // The cache lives in the thread's own storage (no pointer to follow on each named scope);
  // only its destruction is chosen by hand.
  struct holder {
    alignas(name_cache) unsigned char storage[sizeof(name_cache)];
    holder() { new (storage) name_cache; }
    ~holder() {
      if (static_cast<pid_t>(::syscall(SYS_gettid)) == ::getpid()) return;
      get().give_back_shards();
      get().~name_cache();
    }
    name_cache& get() noexcept { return *std::launder(reinterpret_cast<name_cache*>(storage)); }
  };
  thread_local holder h;
  return h.get();
}

inline bool hold_shard(site* s, shard_slot* slot) noexcept {
  WARMUP_TRY {
    const busy_section busy;
    my_names().held.push_back({s, slot});
    return true;
  } WARMUP_CATCH_ALL {
    return false;
  }
}

/// lookup() where the name is not in the small table: the hash table, then the registry.
[[gnu::noinline]] inline named_site* lookup_slow(name_cache& c, name_cache::recent& r, op_kind k,
                                                   std::string_view name) noexcept {
  WARMUP_TRY {
    auto& names = c.by_kind[static_cast<std::size_t>(k)];
    auto it = names.find(name);
    if (it == names.end()) {
      // A name this thread has not seen: the library may not have started yet (a scope in another
      // file's static constructor), and starting may apply WARMUP_ENABLE=0.
      start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file();
      if (!measuring.load(std::memory_order_relaxed)) return nullptr;
      const busy_section busy;
      site* s = sites().find_or_add(k, name);
      if (s == nullptr) return nullptr;
      it = names.emplace(std::string_view{s->name}, named_site{s, {}}).first;
    }
    r = {name.data(), name.size(), k, &it->second, it->second.s->name.data()};
    return &it->second;
  } WARMUP_CATCH_ALL {
    return nullptr;  // out of memory: the scope measures nothing rather than failing
  }
}

/// Whether `n` bytes at `a` and `b` are equal: names of 4 to 16 bytes (most) in two overlapping
/// word compares, inline, where memcmp is a call.
WARMUP_HOT_INLINE bool same_chars(const char* a, const char* b, std::size_t n) noexcept {
  if (n >= 8 && n <= 16) {
    std::uint64_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 8), std::memcpy(&y0, b, 8), std::memcpy(&x1, a + n - 8, 8), std::memcpy(&y1, b + n - 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  if (n >= 4 && n < 8) {
    std::uint32_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 4), std::memcpy(&y0, b, 4), std::memcpy(&x1, a + n - 4, 4), std::memcpy(&y1, b + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  return std::memcmp(a, b, n) == 0;
}

inline named_site* lookup(op_kind k, std::string_view name) noexcept {
  name_cache& c = my_names();
  name_cache::recent& r = c.by_address[name_cache::slot_of(k, name)];
  // The characters are compared: a caller's buffer may hold another name at the same address.
  if (r.found != nullptr && r.data == name.data() && r.size == name.size() && r.kind == k &&
      same_chars(r.site_chars, name.data(), name.size()))
    return r.found;
  return lookup_slow(c, r, k, name);
}

/// The per-site data of a `WARMUP_SCOPE`: a function-local static made once, so the hot path
/// passes a pointer and never hashes a string. Each thread's shard of the site is in a
/// thread_local `shard_slot` beside it.
struct static_site {
  site* const s;
  static_site(op_kind k, std::string_view name) noexcept : s(sites().find_or_add(k, name)) {}
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
