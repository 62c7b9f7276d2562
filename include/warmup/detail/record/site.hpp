/// @file
/// @brief A measured site as a scope sees it: the calls' fast path, inlined in every file that
/// measures. What a scope does rarely (a site's first calls, a new thread, a name seen for the
/// first time) is declared here and compiled with the runtime (detail/runtime/site-inl.hpp,
/// detail/runtime/registry.hpp), once per program.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/record/ticks.hpp"
#include "warmup/detail/record/device_sampler.hpp"
#include "warmup/detail/record/device_sink.hpp"
#include "warmup/detail/record/nvtx.hpp"
#include "warmup/detail/record/recurrence.hpp"
#include "warmup/detail/record/series.hpp"
#include "warmup/detail/record/switches.hpp"
#include "warmup/detail/record/timeline.hpp"
#include "warmup/op.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

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
  bool ended = false;    ///< its thread is ending (or could not note a shard): the shared lane for good
  bool refused = false;  ///< the site had no shard left to give: the shared lane until one is given back
  std::uint32_t seen = 0;  ///< the site's count of shards given back when it refused
};

class site;

/// A call's index, and the shard it was taken from (nullptr: from the site's counter).
struct call_ticket {
  std::uint64_t index;
  shard* from;
};

struct cold_calls;  // detail/runtime/site_state.hpp

/// Everything the library knows about one (operation kind, name) pair, and the only code that
/// changes it: a scope measures and hands its figures here, the event reader hands back device
/// times here, a snapshot reads them. Sites are made once and never freed (a report at exit may
/// still read them); every field is an atomic or written once. The members a call makes every
/// time are defined here; the rest with the runtime (detail/runtime/site-inl.hpp).
class site final : public device_sink {
 public:
  site(op_kind k, std::string_view n, std::uint32_t i);
  site(const site&) = delete;
  site& operator=(const site&) = delete;
  ~site();  // the registry's sites are never destroyed

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
  const time_reading& time() const noexcept { return *time_; }

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
  /// thread's CPU sampler armed where sampling is on. `device_timed`: the call is timed on a
  /// stream, so whether the device's context existed is asked of the driver.
  void first_call_begins(bool device_timed) noexcept;

  /// The last thing before the first call's clock starts: the thread's CPU clock and page faults
  /// read again, so that the library's own work since first_call_begins (event rings made, NVTX)
  /// is not the call's.
  void first_call_clock_starts() noexcept;

  /// After a cold call's clock stopped: its window (from `start` to `stop`, ticks of time()),
  /// and for the first call what it did on the host.
  void cold_call_ends(std::uint64_t index, std::uint64_t start, std::uint64_t stop, bool after_idle) noexcept;

  /// The cold calls seen so far (a copy), or nothing where the site never had one.
  struct cold_view;
  cold_view cold_calls_seen() const;

  // ---- The event reader's side (device_sink).

  bool on_timeline(std::uint64_t index) const noexcept override { return line_.holds(index); }

  void device_time(std::uint64_t index, std::uint64_t ns, bool after_idle, std::uint64_t start_ns) noexcept override {
    if (series* d = device_series()) d->record(index, ns, after_idle);
    if (start_ns != 0) timeline_device(&line_, index, start_ns, ns);
  }

  // ---- A snapshot's side.

  /// The host series with every shard's lane, in ticks of time().
  series_data host_data() const;
  const series* device_series_if_any() const noexcept { return device_.load(std::memory_order_acquire); }
  std::vector<timeline_call> timeline_calls() const { return line_.read(); }
  site_counts counts() const noexcept;
  /// Shards made (given to threads or spare): at most max_shards.
  std::size_t shard_count() const noexcept;
  /// Memory held: the site, its timeline, its histograms' blocks, its device series, and its
  /// name where the string keeps it outside the site.
  std::size_t bytes() const noexcept;
  std::size_t cold_bytes() const noexcept;

  // ---- Memory signals, from the scope, outside the measured time.

  /// Call `index` of an allocation scope found its pool holding `before` then `after` bytes.
  void pool_reserved(std::uint64_t index, std::uint64_t before, std::uint64_t after) noexcept {
    pool_read_.fetch_add(1, std::memory_order_relaxed);
    if (after <= before) return;
    pool_grew_.fetch_add(1, std::memory_order_relaxed);
    pool_grown_.fetch_add(after - before, std::memory_order_relaxed);
    if (index == 0) pool_first_grown_.store(after - before, std::memory_order_relaxed);
  }
  /// A call's byte count passed 2^64 - 1 before it reached the site (a Python integer has no
  /// bound): the total is saturated, as when a sum passes it, and the report says so.
  void bytes_saturated() noexcept { bytes_overflow_.store(true, std::memory_order_relaxed); }
  /// A copy's host memory was pinned (true) or pageable (false).
  void host_memory(bool pinned) noexcept { (pinned ? host_pinned_ : host_pageable_).fetch_add(1, std::memory_order_relaxed); }

  /// Forgets every call, keeping the site's identity (name, id, NVTX string), so pointers held
  /// by `WARMUP_SCOPE` statics stay good. Only while no other thread can record: in a forked
  /// child, which starts with a clean report.
  void reset() noexcept;

  /// A shard whose thread ended (or could not note it): its figures stay, its unused indexes
  /// are dropped, and the next thread that needs one takes it.
  void give_back(shard* s) noexcept;

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
  series* device_series() noexcept;

  /// The slow half of begin_call: the first calls, a thread's first block, a block used up.
  [[gnu::noinline]] call_ticket begin_call_slow(shard_slot* slot) noexcept;

  /// A shard for the calling thread: one an ended thread gave back, else a new one; nullptr
  /// where the site gave all it gives.
  shard* take_shard() noexcept;

  // The counter has a line of its own: every block taken writes it. What every call reads
  // shares the next line: after a kernel launch has swept the caches, each further line a scope
  // reads costs a miss.
  alignas(64) std::atomic<std::uint64_t> entered_{0};  ///< calls begun; also the next call's index
  alignas(64) time_reading* time_;  // found once (the process anchor is behind it): the runtime's time_base
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
  /// Guards the shard list's changes (a thread's first calls, a thread's end): held for a few
  /// loads and stores, so a spin (detail/runtime/site_state.hpp, shard_lock), and no <mutex> here.
  mutable std::atomic<bool> shards_busy_{false};
  std::size_t shard_count_ = 0;
  shard* spare_ = nullptr;
  /// Shards given back so far: a thread refused one tries again once this moves, and only then
  /// (a load a call meanwhile, no lock).
  std::atomic<std::uint32_t> given_back_{0};

  cold_calls* cold() noexcept;
};

/// Says, once, that a scope was given a negative byte count (counted as 0 bytes). Defined with
/// the runtime: the message is built only on this path.
[[gnu::cold]] void negative_bytes(long long bytes) noexcept;

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

/// The library's start-up (detail/runtime/compiled_once.hpp), made before the first site, whenever
/// that is: a scope in another file's static constructor may come first. Defined by every file
/// that compiles the runtime; its name is the link error of a program built light
/// (`WARMUP_LIGHT`) in which no file includes <warmup/runtime.hpp>.
void start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file() noexcept;

/// The registry's site of (`k`, `name`), made the first time (detail/runtime/registry.hpp);
/// nullptr where memory ran out.
site* find_or_add_site(op_kind k, std::string_view name) noexcept;

inline site* find_site(op_kind k, std::string_view name) noexcept {
  start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file();
  return find_or_add_site(k, name);
}

/// A site as a thread finds it by name: the site, and the thread's shard of it.
struct named_site {
  site* s = nullptr;
  shard_slot slot;
};

/// The named-scope constructors find their site by the name's address first, in a small table
/// per thread: a name passed again from the same place (a literal, a string kept by the caller)
/// is found with one comparison of its characters, not a hash and a division. Plain data, zero
/// at thread start, so that reaching it costs no call. Behind it is the thread's hash table of
/// every name it passed (detail/runtime/registry.hpp).
struct recent_name {
  const char* data;
  std::size_t size;
  op_kind kind;
  named_site* found;
  const char* site_chars;  ///< the site's own copy of the name: one load, not three
};
struct recent_names {
  static constexpr std::size_t count = 64;
  recent_name at[count];
  static std::size_t slot_of(op_kind k, std::string_view name) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(name.data());
    return ((a >> 3) ^ (a >> 9) ^ name.size() ^ (static_cast<std::size_t>(k) << 4)) % count;
  }
};
inline thread_local recent_names recent_names_here;

/// lookup() where the name is not in the small table: the thread's hash table, then the
/// registry. Fills `r`; nullptr where the scope measures nothing.
[[gnu::noinline]] named_site* lookup_slow(recent_name& r, op_kind k, std::string_view name) noexcept;

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

WARMUP_HOT_INLINE named_site* lookup(op_kind k, std::string_view name) noexcept {
  recent_name& r = recent_names_here.at[recent_names::slot_of(k, name)];
  // The characters are compared: a caller's buffer may hold another name at the same address.
  if (r.found != nullptr && r.data == name.data() && r.size == name.size() && r.kind == k &&
      same_chars(r.site_chars, name.data(), name.size()))
    return r.found;
  start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file();  // a name never seen may be the first
  return lookup_slow(r, k, name);
}

/// The per-site data of a `WARMUP_SCOPE`: a function-local static made once, so the hot path
/// passes a pointer and never hashes a string. Each thread's shard of the site is in a
/// thread_local `shard_slot` beside it.
struct static_site {
  site* const s;
  static_site(op_kind k, std::string_view name) noexcept : s(find_site(k, name)) {}
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
