/// @file
/// @brief One clear message per kind of trouble, printed once and kept for the report.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/busy.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

WARMUP_BEGIN_NAMESPACE
namespace detail {

enum class notice_kind : unsigned {
  no_device,
  device_error,
  ring_full,
  negative_bytes,
  bad_setting,
  site_cap,
  long_name,        ///< a site's name cut to its limit (detail/runtime/registry.hpp)
  attribution,
  cpu_sampling,     ///< sampling cannot run in this process
  sampling_call,    ///< a first call went unsampled for a reason of its own (detail/analysis/cpu_sampler.hpp)
  sampling_cut,     ///< a sampled call's ticks went uncounted
  sampling_moved,   ///< a first call ended on a thread other than its own
  copies_apart,     ///< another copy of the library keeps its sites apart (detail/process.hpp)
  rank,
  nvtx_range,       ///< the NVTX tool met a misbehaving range (nvtx_tool/, docs/nvtx-tool.md)
  nvtx_ranges_left, ///< at exit: ranges the tool saw never closed, and pops with no push
  nvtx_next,        ///< the tool could not pass NVTX's calls on to WARMUP_NVTX_NEXT
  nvtx_not_chosen,  ///< the NVTX tool was configured but NVTX chose another
  nvtx_host_timed,  ///< how the NVTX tool timed its ranges: on the host, or on the device (WARMUP_NVTX_DEVICE)
  nvtx_domains,     ///< WARMUP_NVTX_DOMAINS named no domain the program made a range in
  count
};

class notices {
 public:
  /// Prints "warmup: <text>" to stderr the first time a kind is raised and keeps the text for
  /// reports; later calls of the same kind cost one atomic load. True for the call that raised
  /// it: what else should happen once per kind hangs on that.
  bool raise(notice_kind k, const std::string& text) noexcept {
    if (raised_[static_cast<unsigned>(k)].exchange(true, std::memory_order_acq_rel)) return false;
    const busy_section busy;
    WARMUP_TRY {
      std::lock_guard<std::mutex> lock(mutex_);
      texts_.push_back(text);
    } WARMUP_CATCH_ALL {
    }
    std::fprintf(stderr, "warmup: %s\n", text.c_str());
    return true;
  }

  /// Whether a kind was raised already (one atomic load): lets a caller skip building the text.
  bool raised(notice_kind k) const noexcept { return raised_[static_cast<unsigned>(k)].load(std::memory_order_acquire); }

  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets every notice; caller holds the lock and is the only thread (a forked child).
  void reset_locked() noexcept {
    for (auto& r : raised_) r.store(false, std::memory_order_relaxed);
    texts_.clear();
  }

  std::vector<std::string> all() const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    return texts_;
  }

 private:
  std::atomic<bool> raised_[static_cast<unsigned>(notice_kind::count)]{};
  mutable std::mutex mutex_;
  std::vector<std::string> texts_;
};

inline notices& notice_board() noexcept {
  return shared<notices, slot::notices>();  // never destroyed: scopes in static destructors may raise
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
