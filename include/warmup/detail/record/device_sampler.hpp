/// @file
/// @brief Which calls of a warm site are timed on the device (warmup::device_sampling::adaptive).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <atomic>
#include <cstdint>

#include "warmup/detail/record/series.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Per site. Every call of the exact window is device-timed (warm-up lives there); after it,
/// 1 call in 2^shift, the shift growing by one every 256 calls up to 6. A run of eight host
/// times far from the site's typical time (a quarter of it or four times it) means the site
/// changed: the shift goes back to 0 and every call is device-timed again. Launch times on the
/// host are noisy (twice the typical time is common), hence the wide band and the long run. All relaxed atomics, written rarely, so
/// threads sharing a site do not fight over its cache line.
class device_sampler {
 public:
  static constexpr std::uint32_t max_shift = 6;
  static constexpr std::uint32_t changed_after = 8;

  bool wants(std::uint64_t index) const noexcept {
    if (index < series::window) return true;
    const std::uint32_t k = shift_.load(std::memory_order_relaxed);
    return (index & ((std::uint64_t{1} << k) - 1)) == 0;
  }

  /// Learns from a finished call's host time.
  void observe(std::uint64_t index, std::uint64_t host_ns) noexcept {
    if (index < series::window) return;
    const std::uint64_t typical = typical_ns_.load(std::memory_order_relaxed);
    if (typical == 0) {
      typical_ns_.store(host_ns, std::memory_order_relaxed);
      return;
    }
    if (host_ns > 4 * typical || 4 * host_ns < typical) {
      if (outliers_.fetch_add(1, std::memory_order_relaxed) + 1 >= changed_after) {
        shift_.store(0, std::memory_order_relaxed);
        typical_ns_.store(host_ns, std::memory_order_relaxed);
        outliers_.store(0, std::memory_order_relaxed);
      }
      return;
    }
    if (outliers_.load(std::memory_order_relaxed) != 0) outliers_.store(0, std::memory_order_relaxed);
    if ((index & 63) == 0) typical_ns_.store((typical * 7 + host_ns) / 8, std::memory_order_relaxed);
    if ((index & 255) == 0) {
      const std::uint32_t k = shift_.load(std::memory_order_relaxed);
      if (k < max_shift) shift_.store(k + 1, std::memory_order_relaxed);
    }
  }

 private:
  std::atomic<std::uint32_t> shift_{0};
  std::atomic<std::uint32_t> outliers_{0};
  std::atomic<std::uint64_t> typical_ns_{0};
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
