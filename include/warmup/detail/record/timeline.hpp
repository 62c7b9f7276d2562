/// @file
/// @brief When each call happened: the first calls of a site and a thinning sample after them.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Settings read when a site is made.
struct timeline_settings {
  /// Calls of each site placed on the timeline from its first; `warmup::set_timeline_calls`.
  std::atomic<std::uint32_t> first_calls{16};
};

timeline_settings& timeline_config() noexcept;  // the process's one (detail/runtime/site-inl.hpp)

/// One call on the timeline. Host fields are written by the scope, device fields by whoever
/// reads the call's events back; 0 means "not yet".
struct timeline_entry {
  std::atomic<std::uint64_t> index_plus_one{0};
  std::atomic<std::uint64_t> host_start{0};  ///< ticks of the site's time base (snapshots convert)
  std::atomic<std::uint64_t> host_ns{0};     ///< ticks, likewise
  std::atomic<std::uint64_t> device_start{0};  ///< steady-clock ns, via the device's anchor
  std::atomic<std::uint64_t> device_ns{0};
};

/// A plain copy of an entry, for the report writers.
struct timeline_call {
  std::uint64_t index, host_start, host_ns, device_start, device_ns;
};

/// The first `first_calls` calls of a site, and after them a ring of `sampled` calls, taking
/// every call at first and every 2^k-th call once the site has made 2^k times the first calls:
/// a bounded sample spread over the whole run, the most recent stretch densest.
class timeline {
 public:
  static constexpr std::size_t sampled = 16;

  explicit timeline(std::size_t first_calls)
      : first_(first_calls == 0 ? 1 : first_calls), entries_(first_ + sampled) {}

  /// The entry for call `index`, or nullptr when the call is not on the timeline.
  timeline_entry* entry_for(std::uint64_t index) noexcept {
    if (index < first_) return &entries_[index];
    // Stride 2^(log2(index) - log2(first)): bit arithmetic, no division on the hot path.
    const int octaves = __builtin_clzll(first_) - __builtin_clzll(index);
    if ((index & ((std::uint64_t{1} << octaves) - 1)) != 0) return nullptr;
    const std::uint64_t n = taken_.fetch_add(1, std::memory_order_relaxed);
    timeline_entry& e = entries_[first_ + n % sampled];
    e.device_start.store(0, std::memory_order_relaxed);
    e.device_ns.store(0, std::memory_order_relaxed);
    return &e;
  }

  /// The entry holding call `index`, for the device side (after the host side wrote it).
  timeline_entry* find(std::uint64_t index) noexcept {
    return const_cast<timeline_entry*>(static_cast<const timeline*>(this)->find(index));
  }
  const timeline_entry* find(std::uint64_t index) const noexcept {
    if (index < first_) return &entries_[index];
    for (std::size_t i = first_; i < entries_.size(); ++i)
      if (entries_[i].index_plus_one.load(std::memory_order_acquire) == index + 1) return &entries_[i];
    return nullptr;
  }
  bool holds(std::uint64_t index) const noexcept { return find(index) != nullptr; }
  /// Calls placed from the site's first, one by one.
  std::size_t first_calls() const noexcept { return first_; }

  std::vector<timeline_call> read() const {
    std::vector<timeline_call> out;
    for (const auto& e : entries_) {
      const std::uint64_t i = e.index_plus_one.load(std::memory_order_acquire);
      if (i == 0) continue;
      out.push_back({i - 1, e.host_start.load(std::memory_order_relaxed), e.host_ns.load(std::memory_order_relaxed),
                     e.device_start.load(std::memory_order_relaxed), e.device_ns.load(std::memory_order_relaxed)});
    }
    return out;
  }

  std::size_t bytes() const noexcept { return sizeof(*this) + entries_.size() * sizeof(timeline_entry); }

  /// Forgets every call. Only while no other thread can record (in a forked child).
  void reset() noexcept {
    for (auto& e : entries_) {
      e.index_plus_one.store(0, std::memory_order_relaxed);
      e.host_start.store(0, std::memory_order_relaxed);
      e.host_ns.store(0, std::memory_order_relaxed);
      e.device_start.store(0, std::memory_order_relaxed);
      e.device_ns.store(0, std::memory_order_relaxed);
    }
    taken_.store(0, std::memory_order_relaxed);
  }

 private:
  const std::size_t first_;
  std::vector<timeline_entry> entries_;
  std::atomic<std::uint64_t> taken_{0};
};

/// Writes the host side of a call, if the call is on the timeline.
inline void timeline_host(timeline* t, std::uint64_t index, std::uint64_t start, std::uint64_t ns) noexcept {
  if (t == nullptr) return;
  timeline_entry* e = t->entry_for(index);
  if (e == nullptr) return;
  e->index_plus_one.store(0, std::memory_order_relaxed);
  e->host_start.store(start, std::memory_order_relaxed);
  e->host_ns.store(ns, std::memory_order_relaxed);
  e->index_plus_one.store(index + 1, std::memory_order_release);
}

/// Writes the device side of a call the timeline holds: `start` in steady-clock ns.
inline void timeline_device(timeline* t, std::uint64_t index, std::uint64_t start, std::uint64_t ns) noexcept {
  timeline_entry* e = t->find(index);
  if (e == nullptr) return;
  e->device_start.store(start, std::memory_order_relaxed);
  e->device_ns.store(ns, std::memory_order_relaxed);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
