/// @file
/// @brief What the site's compiled-once members (site-inl.hpp) share: a site's cold calls, the
/// lock of its shards, and the CPU sampler started and stopped around a first call.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/runtime/child_watch.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/analysis/host_probe.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/runtime/device_rings.hpp"
#include "warmup/detail/runtime/device_memory.hpp"  // device_memory_free: a first call's memory
#include "warmup/detail/record/site.hpp"
#include "warmup/detail/runtime/notices.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline bool hold_shard(site* s, shard_slot* slot) noexcept;  // detail/runtime/registry.hpp

/// Arms the calling thread's CPU sampler for a first call of `owner` where sampling is on
/// (settings.hpp, set_cpu_sampling). A reason it cannot be is said once: one that holds for the
/// process stands in the report's header too.
inline void start_cpu_sampling(const void* owner) noexcept {
  cause_store& store = cause_records();
  const std::uint64_t every = store.sampler.interval_ns.load(std::memory_order_relaxed);
  if (every == 0 || !cpu_sampling_supported || thread_sampling == sampler_stage::gone) return;
  const refusal r = my_sampler().begin(owner, every);
  if (r == refusal::none) return;
  const notice_kind kind = for_process(r) ? notice_kind::cpu_sampling : notice_kind::sampling_call;
  if (notice_board().raised(kind)) return;  // said once
  WARMUP_TRY {
    const std::string why = refusal_text(r);
    if (!for_process(r)) {
      notice_board().raise(kind, "CPU sampling skipped a first call: " + why);
      return;
    }
    const std::uint64_t before = store.sampler.calls_sampled.load(std::memory_order_relaxed);
    if (before == 0) {
      if (notice_board().raise(kind, "CPU sampling is off: " + why)) store.set_sampling_status("off: " + why);
      return;
    }
    const std::string stopped = "stopped after " + std::to_string(before) + " sampled first calls: " + why;
    if (notice_board().raise(kind, "CPU sampling " + stopped)) store.set_sampling_status(stopped);
  } WARMUP_CATCH_ALL {
  }
}

/// Ends the sampling of `owner`'s first call: its samples go to the store where this thread
/// sampled it; a call begun on another thread only has its tick ended.
inline void stop_cpu_sampling(const void* owner) noexcept {
  WARMUP_TRY {
    if (thread_sampling == sampler_stage::armed) {
      sampled_call call;
      if (my_sampler().end(owner, call)) {
        cause_records().add_samples(this_thread_id(), call);
        for (other_thread_samples& o : call.others) {  // the other threads' meanwhile, each its own
          sampled_call theirs;
          theirs.samples = std::move(o.samples);
          theirs.armed_cpu_ns = o.armed_cpu_ns;
          cause_records().add_samples(static_cast<std::uint64_t>(o.tid), theirs, this_thread_id());
        }
        if (call.cut_short && !notice_board().raised(notice_kind::sampling_cut))
          notice_board().raise(notice_kind::sampling_cut,
                               "a sampled first call's ticks stopped reaching the sampler (SIGURG blocked or "
                               "taken by the program): its CPU time after the last sample is unattributed");
        return;
      }
    }
    if (sampler_state().made.load(std::memory_order_relaxed) != 0) (void)end_elsewhere(owner);
  } WARMUP_CATCH_ALL {
  }
}

/// A site's cold calls, for attribution: its first call (with what it did on the host) and the
/// latest calls made after idling. Made at the first call, off its measured time.
struct cold_calls {
  static constexpr std::size_t kept = 16;  ///< calls after idling kept, the latest
  std::mutex m;
  std::uint64_t begun_on = 0;  ///< the thread the first call began on
  thread_usage before;
  objects_mark objects_before;
  std::optional<bool> context_existed;
  std::optional<std::uint64_t> device_free_before;  ///< device-timed, where a context existed
  children_reading children_before;  ///< the process's descendants at the first call's start, where watched
  std::optional<cold_window> first;
  std::optional<host_signals> first_host;
  std::vector<child_cpu> first_children;  ///< the CPU time they spent during it, by command
  std::vector<cold_window> recent;  ///< calls after idling, oldest first
};

/// Holds a site's shard list: a spin, as the list changes in a few loads and stores.
class shard_lock {
 public:
  explicit shard_lock(std::atomic<bool>& busy) noexcept : busy_(busy) {
    while (busy_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
  }
  ~shard_lock() { busy_.store(false, std::memory_order_release); }
  shard_lock(const shard_lock&) = delete;
  shard_lock& operator=(const shard_lock&) = delete;

 private:
  std::atomic<bool>& busy_;
};

struct site::cold_view {
  std::optional<cold_window> first;
  std::optional<host_signals> first_host;
  std::vector<child_cpu> first_children;
  std::vector<cold_window> recent;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
