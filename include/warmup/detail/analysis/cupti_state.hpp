/// @file
/// @brief What the process's use of CUPTI keeps: its library, subscriber and settings, where
/// records go, the counts the report gives, and the pool-growth records waiting for a flush.
/// One per copy of the library, never destroyed: CUPTI's threads may outlive statics.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/causes.hpp"

#if WARMUP_ENABLED
#include <array>
#include <atomic>
#include <mutex>

#include "warmup/detail/analysis/cupti_abi.hpp"
#include "warmup/detail/analysis/cupti_library.hpp"
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Where CUPTI's records go: called from CUPTI's buffer-completed callback thread (or the
/// flushing thread), once per record. It may be called from two threads at once.
using cause_sink = void (*)(const cause_record&) noexcept;

/// What `cupti_start` achieved.
enum class cupti_status : std::uint8_t {
  off,          ///< never started, or stopped
  running,      ///< records flow to the sink
  unavailable,  ///< no usable libcupti (absent, another major version, no driver)
  slot_taken,   ///< another CUPTI client (a profiler, a debugger) holds CUPTI's one subscriber
  failed,       ///< CUPTI refused a step; nothing was left enabled
};

/// The status and, where it is not plain `running`, one sentence for the report's notice.
struct cupti_start_result {
  cupti_status status = cupti_status::off;
  std::string message;
};

#if WARMUP_ENABLED

/// A listener to the device's work (`cupti_watch_device_work`): each kernel, copy and memset,
/// on the library's clock, with the correlation id of the API call that launched it; each API
/// call's link to the external id pushed on its thread (`cupti_push_external`); the end of each
/// flush (`last`: CUPTI is stopping); and each driver launch, as it is made. Called on CUPTI's buffer thread or the flushing one,
/// never inside a program's call. One per process, never destroyed.
struct cupti_device_listener {
  void (*work)(std::uint32_t correlation, std::uint64_t start_ns, std::uint64_t end_ns) noexcept;
  void (*link)(std::uint32_t correlation, std::uint64_t external_id) noexcept;
  void (*flushed)(bool last) noexcept;
  /// At the entry of a driver call that queues work (`cupti_work_driver_calls`), on its thread:
  /// the listener links it to what that thread has open.
  void (*launching)(std::uint32_t correlation) noexcept;
};

/// The process's use of CUPTI (one per copy of the library: see cupti_start on a second copy).
struct cupti_state {
  std::mutex m;  ///< start, stop, flush
  cupti_library library;
  bool loaded = false;
  bool load_tried = false;
  cupti_start_result last;  ///< what the last start said (returned again while running)
  cupti_abi::subscriber_handle subscriber = nullptr;
  bool running = false;
  bool jit_enabled = false;

  std::atomic<cause_sink> sink{nullptr};
  std::atomic<bool> system_thread_ids{false};  ///< CUPTI's threadId is gettid
  std::atomic<bool> own_clock{false};          ///< CUPTI stamps with the library's clock
  std::atomic<std::int64_t> clock_offset{0};   ///< else: library ns = CUPTI ns + offset
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> overhead_ns{0};  ///< CUPTI's own overhead records, summed
  std::atomic<std::uint64_t> first_ns{~std::uint64_t{0}};  ///< the earliest record's start (CUPTI's clock)
  std::atomic<std::uint64_t> first_thread{0};
  std::atomic<const cupti_device_listener*> device_listener{nullptr};  ///< while the device's work is watched

  // Pool growth, found in the allocation callbacks and kept here until the next flush.
  std::mutex pending_m;
  std::array<cause_record, 256> pending{};
  std::size_t pending_count = 0;

  /// Test hook: sees every raw record before it is converted (tests/gpu/cupti_probe.cu).
  std::atomic<void (*)(const cupti_abi::activity*) noexcept> raw_observer{nullptr};
};

inline cupti_state& cupti() noexcept {
  static cupti_state* const state = new cupti_state;  // never destroyed: CUPTI's threads may outlive statics
  return *state;
}

inline std::string cupti_result_text(cupti_abi::result r) {
  const char* text = nullptr;
  const cupti_api& api = cupti().library.api;
  if (api.result_string != nullptr && api.result_string(r, &text) == cupti_abi::result::success && text != nullptr)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

#endif  // WARMUP_ENABLED

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
