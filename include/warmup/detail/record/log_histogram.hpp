/// @file
/// @brief A lock-free log-linear histogram of durations in nanoseconds (HdrHistogram's layout).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <new>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Counts values in buckets 64 to a power of two: every value below 64 exactly, every larger
/// value v in a bucket of width 2^(floor(log2 v) - 6). Reading a bucket's midpoint is therefore
/// within 1/128 (0.78%) of any value in it. Blocks of 64 counters are allocated the first time a
/// value lands in their power of two, so a site whose calls span three octaves holds three
/// blocks (1.5 KiB), and no number of calls grows it further.
class log_histogram {
 public:
  static constexpr unsigned sub_bits = 6;
  static constexpr std::uint64_t sub_count = 1u << sub_bits;
  static constexpr std::size_t block_count = 64 - sub_bits + 1;  // every uint64_t value fits

  log_histogram() = default;
  log_histogram(const log_histogram&) = delete;
  log_histogram& operator=(const log_histogram&) = delete;
  ~log_histogram() {
    for (auto& b : blocks_) delete b.load(std::memory_order_relaxed);
  }

  /// Adds one value. Lock-free; allocates only the first time a power of two is reached, and
  /// counts the value as lost (never throws) if that allocation fails.
  void add(std::uint64_t v) noexcept {
    const auto [b, i] = locate(v);
    block* blk = blocks_[b].load(std::memory_order_acquire);
    if (blk == nullptr && (blk = grow(b)) == nullptr) {
      lost_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    blk->n[i].fetch_add(1, std::memory_order_relaxed);
  }

  /// add() for a histogram only one thread ever adds to: a plain load and store, no locked
  /// read-modify-write. Readers on other threads still see whole counts.
  WARMUP_HOT_INLINE void add_single_writer(std::uint64_t v) noexcept {
    const auto [b, i] = locate(v);
    block* blk = blocks_[b].load(std::memory_order_acquire);
    if (blk == nullptr && (blk = grow(b)) == nullptr) {
      lost_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    blk->n[i].store(blk->n[i].load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  /// Calls f(lowest, highest, count) for every non-empty bucket, in increasing order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t b = 0; b < block_count; ++b) {
      const block* blk = blocks_[b].load(std::memory_order_acquire);
      if (blk == nullptr) continue;
      for (std::size_t i = 0; i < sub_count; ++i) {
        const std::uint64_t c = blk->n[i].load(std::memory_order_relaxed);
        if (c != 0) f(lowest(b, i), highest(b, i), c);
      }
    }
  }

  /// Values that could not be stored because a block allocation failed.
  std::uint64_t lost() const noexcept { return lost_.load(std::memory_order_relaxed); }

  /// Bytes this histogram holds now (the pointer table and the blocks allocated so far).
  std::size_t bytes() const noexcept {
    std::size_t n = sizeof(*this);
    for (const auto& b : blocks_)
      if (b.load(std::memory_order_relaxed) != nullptr) n += sizeof(block);
    return n;
  }

  struct position {
    std::size_t block;
    std::size_t index;
  };
  static constexpr position locate(std::uint64_t v) noexcept {
    if (v < sub_count) return {0, static_cast<std::size_t>(v)};
    const unsigned k = 63u - static_cast<unsigned>(__builtin_clzll(v));  // k >= sub_bits
    const unsigned shift = k - sub_bits;
    return {static_cast<std::size_t>(k - sub_bits + 1),
            static_cast<std::size_t>((v >> shift) - sub_count)};
  }
  static constexpr std::uint64_t lowest(std::size_t b, std::size_t i) noexcept {
    if (b == 0) return i;
    return (sub_count + i) << (b - 1);
  }
  static constexpr std::uint64_t highest(std::size_t b, std::size_t i) noexcept {
    if (b == 0) return i;
    return lowest(b, i) + ((std::uint64_t{1} << (b - 1)) - 1);
  }

 private:
  struct alignas(64) block {  // no line shared with another thread's histogram
    std::array<std::atomic<std::uint64_t>, sub_count> n{};
  };

  block* grow(std::size_t b) noexcept {
    const busy_section busy;
    block* fresh = new (std::nothrow) block{};
    if (fresh == nullptr) return nullptr;
    block* expected = nullptr;
    if (blocks_[b].compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;  // another thread won the race; use its block
    return expected;
  }

  std::array<std::atomic<block*>, block_count> blocks_{};
  std::atomic<std::uint64_t> lost_{0};
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
