/// @file
/// @brief CUPTI, loaded at run time: the driver's own account of why a call was slow. Its
/// lifecycle: start (before the program's first CUDA call where attribution is asked for),
/// flush (at each snapshot), stop (before the runtime's teardown).
///
/// Attribution (detail/analysis/attribution.hpp) joins cause records (detail/causes.hpp) to the
/// cold calls of each site; CUPTI gives them where it can. The parts: finding and loading
/// libcupti (cupti_library.hpp; its interface declared in cupti_abi.hpp, so no file compiles
/// CUPTI's headers), what the process keeps (cupti_state.hpp), records to causes
/// (cupti_records.hpp: `cupti_driver_causes` lists the driver calls that are causes), and the
/// pool-growth callback (cupti_callbacks.hpp). What CUPTI is asked for and why, and what it
/// costs: docs/design.md ("CUPTI") and BENCHMARKS.md.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cupti_state.hpp"

#if WARMUP_ENABLED
#include <cuda.h>

#include <cstring>
#include <iterator>
#include <mutex>

#include "warmup/detail/analysis/cupti_abi.hpp"
#include "warmup/detail/analysis/cupti_callbacks.hpp"
#include "warmup/detail/analysis/cupti_library.hpp"
#include "warmup/detail/analysis/cupti_records.hpp"
#include "warmup/detail/cuda_driver.hpp"
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

#if WARMUP_ENABLED

/// The kinds that watching the device's work enables: the work, the runtime's calls that launch
/// it (the links to external ids come with API records), and the links. The driver's launches
/// (`cupti_work_driver_calls`) are linked in their callbacks instead: the whole DRIVER kind would
/// hide the driver calls the runtime makes underneath its own, which attribution's causes are
/// (docs/design.md), and a chosen driver call's record comes with no link.
inline constexpr cupti_abi::activity_kind cupti_device_work_kinds[] = {
    cupti_abi::activity_kind::external_correlation, cupti_abi::activity_kind::runtime,
    cupti_abi::activity_kind::concurrent_kernel,    cupti_abi::activity_kind::memcpy,
    cupti_abi::activity_kind::memset,
};

/// Undoes whatever start enabled; caller holds st.m.
inline void cupti_disable_all(cupti_state& st) noexcept {
  const cupti_api& api = st.library.api;
  if (st.device_listener.exchange(nullptr, std::memory_order_acq_rel) != nullptr) {
    for (const cupti_abi::activity_kind k : cupti_device_work_kinds) (void)api.disable(k);
    if (st.subscriber != nullptr)
      for (const cupti_abi::callback_id cbid : cupti_work_driver_calls)
        (void)api.enable_callback(0, st.subscriber, cupti_abi::callback_domain::driver_api, cbid);
  }
  (void)api.disable(cupti_abi::activity_kind::overhead);
  (void)api.disable(cupti_abi::activity_kind::jit);
  for (const cupti_driver_cause& d : cupti_driver_causes) (void)api.enable_driver_api(d.cbid, 0);
  for (const cupti_abi::callback_id cbid : cupti_marker_calls) (void)api.enable_driver_api(cbid, 0);
  if (st.subscriber != nullptr)
    for (const cupti_abi::callback_id cbid : cupti_pool_allocs)
      (void)api.enable_callback(0, st.subscriber, cupti_abi::callback_domain::driver_api, cbid);
  if (st.subscriber != nullptr) (void)api.unsubscribe(st.subscriber);
  st.subscriber = nullptr;
  st.jit_enabled = false;
}

/// Measures `library clock - CUPTI clock` from the closest of a few paired reads.
inline std::int64_t cupti_measure_offset(const cupti_api& api) noexcept {
  std::uint64_t best_gap = ~std::uint64_t{0};
  std::int64_t offset = 0;
  for (int i = 0; i < 7; ++i) {
    std::uint64_t c = 0;
    const std::uint64_t a = cupti_clock();
    if (api.get_timestamp(&c) != cupti_abi::result::success) continue;
    const std::uint64_t b = cupti_clock();
    if (b - a < best_gap) {
      best_gap = b - a;
      offset = static_cast<std::int64_t>(a + (b - a) / 2) - static_cast<std::int64_t>(c);
    }
  }
  return offset;
}

inline cupti_start_result cupti_start_locked(cupti_state& st, cause_sink sink) {
  const auto fallback = [](std::string what) { return what + ": attribution falls back to host signals"; };
  if constexpr (!cupti_abi::declared_for_this_cuda)
    return {cupti_status::unavailable,
            fallback("this program was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                     std::to_string(CUDA_VERSION % 1000 / 10) +
                     ", and the library knows the CUPTI interface of CUDA 12.5 to 13.x only")};
  if (!st.load_tried) {
    st.load_tried = true;
    std::string why;
    st.loaded = cupti_load(st.library, why);
    if (!st.loaded) st.last = {cupti_status::unavailable, fallback(why)};
  }
  if (!st.loaded) return st.last;
  const cupti_api& api = st.library.api;

  // The one subscriber. CUDA 13 names whoever holds it.
  cupti_abi::result r = cupti_abi::result::success;
  char holder[cupti_abi::old_subscriber_name_min_len + 1] = {};
  if (api.subscribe_v2 != nullptr) {
    cupti_abi::subscriber_params params{};
    params.struct_size = cupti_abi::subscriber_params_struct_size;
    params.subscriber_name = "warmup";
    params.old_subscriber_name = holder;
    params.old_subscriber_size = cupti_abi::old_subscriber_name_min_len;
    r = api.subscribe_v2(&st.subscriber, &cupti_callback, nullptr, &params);
  } else {
    r = api.subscribe(&st.subscriber, &cupti_callback, nullptr);
  }
  if (r != cupti_abi::result::success) {
    st.subscriber = nullptr;
    if (r == cupti_abi::result::multiple_subscribers_not_supported) {
      holder[cupti_abi::old_subscriber_name_min_len] = '\0';
      const std::string name = holder;
      if (name.find("warmup") != std::string::npos)  // another copy of this library in the process
        return {cupti_status::slot_taken,
                "another copy of warmup in this process holds CUPTI: its records go to that copy"};
      return {cupti_status::slot_taken,
              fallback("CUPTI's subscriber slot is taken by " +
                       (name.empty() ? std::string("another tool (a profiler, a debugger or the program's own CUPTI client)")
                                     : name))};
    }
    if (!cuda_driver_installed())
      return {cupti_status::unavailable, fallback("CUPTI found no CUDA driver (libcuda.so.1)")};
    if (r == cupti_abi::result::not_initialized)
      return {cupti_status::unavailable,
              fallback("CUPTI " + std::to_string(st.library.version) + " could not start (" + cupti_result_text(r) +
                       "; is the driver older than this CUPTI?)")};
    return {cupti_status::failed, fallback("CUPTI refused a subscriber (" + cupti_result_text(r) + ")")};
  }

  // Thread ids and timestamps first: both must be set before any kind is enabled.
  st.system_thread_ids.store(
      api.set_thread_id_type != nullptr && api.set_thread_id_type(cupti_abi::thread_id_type::system) == cupti_abi::result::success,
      std::memory_order_relaxed);
  const bool own_clock = api.register_timestamp != nullptr && api.register_timestamp(&cupti_clock) == cupti_abi::result::success;
  st.clock_offset.store(own_clock ? 0 : cupti_measure_offset(api), std::memory_order_relaxed);
  st.own_clock.store(own_clock, std::memory_order_relaxed);
  st.sink.store(sink, std::memory_order_release);

  const auto refuse = [&](const char* step, cupti_abi::result e) -> cupti_start_result {
    cupti_disable_all(st);
    st.sink.store(nullptr, std::memory_order_release);
    return {cupti_status::failed, fallback(std::string("CUPTI refused ") + step + " (" + cupti_result_text(e) + ")")};
  };
  // One buffer for the process, not one per thread: a per-thread buffer is asked for at the
  // thread's first record, inside the program's call (its cost: BENCHMARKS.md).
  if (api.set_attribute != nullptr) {
    std::uint8_t per_thread = 0;
    std::size_t size = sizeof per_thread;
    (void)api.set_attribute(cupti_abi::activity_attribute::per_thread_activity_buffer, &size, &per_thread);
  }
  if ((r = api.register_callbacks(&cupti_buffer_requested, &cupti_buffer_completed)) != cupti_abi::result::success)
    return refuse("its record buffers", r);
  if ((r = api.enable(cupti_abi::activity_kind::overhead)) != cupti_abi::result::success) return refuse("overhead records", r);
  // A call id this CUPTI does not know (a newer driver call) is refused alone: the others still count.
  std::size_t refused_calls = 0;
  for (const cupti_driver_cause& d : cupti_driver_causes)
    if ((r = api.enable_driver_api(d.cbid, 1)) != cupti_abi::result::success) ++refused_calls;
  if (refused_calls == std::size(cupti_driver_causes)) return refuse("driver-call records", r);
  for (const cupti_abi::callback_id cbid : cupti_marker_calls) (void)api.enable_driver_api(cbid, 1);
  std::string missing;
  if (refused_calls > 0) missing = std::to_string(refused_calls) + " of its driver-call records";
  const cupti_abi::result jit = api.enable(cupti_abi::activity_kind::jit);
  st.jit_enabled = jit == cupti_abi::result::success;
  if (!st.jit_enabled)
    missing += std::string(missing.empty() ? "" : " and ") + "JIT records (" + cupti_result_text(jit) + ")";
  bool pool_callbacks = true;
  for (const cupti_abi::callback_id cbid : cupti_pool_allocs)
    pool_callbacks = api.enable_callback(1, st.subscriber, cupti_abi::callback_domain::driver_api, cbid) == cupti_abi::result::success && pool_callbacks;
  if (!pool_callbacks) missing += std::string(missing.empty() ? "" : " and ") + "pool-growth callbacks";

  st.running = true;
  std::string note;
  if (!missing.empty()) note = "CUPTI runs without " + missing;
  if (!own_clock) note += std::string(note.empty() ? "" : "; ") + "CUPTI's clock is converted by an offset measured at start";
  return {cupti_status::running, note};
}

/// @brief Starts CUPTI: loads it, takes its subscriber, sets its clock and thread ids to the
/// library's, registers the record buffers and enables the kinds above. Records then go to
/// `sink` at each flush. Idempotent: while running, a second call returns `running` and keeps
/// the first sink. Works before the program's first CUDA call (it needs none, and then sees
/// the context's creation and the first module loads). Never throws, aborts or prints.
inline cupti_start_result cupti_start(cause_sink sink) noexcept {
  cupti_state& st = cupti();
  WARMUP_TRY {
    std::lock_guard<std::mutex> lock(st.m);
    if (st.running) return {cupti_status::running, "CUPTI was already started"};
    if (sink == nullptr) return {cupti_status::failed, "cupti_start needs a sink"};
    st.last = cupti_start_locked(st, sink);
    return st.last;
  } WARMUP_CATCH_ALL {
    return {cupti_status::failed, {}};
  }
}

/// @brief Watches the device's work while CUPTI runs: every kernel, copy and memset, and the
/// API call that launched each, go to `listener`, linked to the external ids that the calling
/// thread pushed (`cupti_push_external`). Costs every CUDA call of the program a record (the
/// NVTX tool's device time asks for it: docs/nvtx-tool.md). Returns false, with `why`, where
/// CUPTI is not running or refuses a kind; then nothing is left enabled.
inline bool cupti_watch_device_work(const cupti_device_listener* listener, std::string& why) noexcept {
  cupti_state& st = cupti();
  WARMUP_TRY {
    std::lock_guard<std::mutex> lock(st.m);
    const cupti_api& api = st.library.api;
    if (!st.running) {
      why = st.last.message.empty() ? "CUPTI is not running" : st.last.message;
      return false;
    }
    if (api.push_external == nullptr || api.pop_external == nullptr) {
      why = "this CUPTI has no external correlation ids";
      return false;
    }
    if (st.device_listener.load(std::memory_order_relaxed) != nullptr) return true;
    std::size_t enabled = 0;
    for (const cupti_abi::activity_kind k : cupti_device_work_kinds) {
      const cupti_abi::result r = api.enable(k);
      if (r == cupti_abi::result::success) {
        ++enabled;
        continue;
      }
      for (std::size_t i = 0; i < enabled; ++i) (void)api.disable(cupti_device_work_kinds[i]);
      why = "CUPTI refused the records of kind " + std::to_string(static_cast<std::uint32_t>(k)) + " (" +
            cupti_result_text(r) + ")";
      return false;
    }
    st.device_listener.store(listener, std::memory_order_release);
    for (const cupti_abi::callback_id cbid : cupti_work_driver_calls)
      (void)api.enable_callback(1, st.subscriber, cupti_abi::callback_domain::driver_api, cbid);
    return true;
  } WARMUP_CATCH_ALL {
    return false;
  }
}

/// @brief Opens an external id on the calling thread: the CUDA calls it makes until the matching
/// `cupti_pop_external` are linked to `id`. CUPTI keeps a stack per thread. Call only after
/// `cupti_watch_device_work` returned true.
inline void cupti_push_external(std::uint64_t id) noexcept {
  (void)cupti().library.api.push_external(cupti_abi::external_kind::custom0, id);
}
/// @brief Closes the calling thread's latest external id.
inline void cupti_pop_external() noexcept {
  (void)cupti().library.api.pop_external(cupti_abi::external_kind::custom0, nullptr);
}

/// Tells the device-work listener that a flush ended; caller holds st.m.
inline void cupti_flushed(cupti_state& st, bool last) noexcept {
  if (const cupti_device_listener* l = st.device_listener.load(std::memory_order_acquire)) l->flushed(last);
}

/// @brief Delivers every finished record to the sink (`cuptiActivityFlushAll`), on this thread
/// and perhaps on CUPTI's. Blocks for the flush; never call it inside a measured scope.
inline void cupti_flush() noexcept {
  cupti_state& st = cupti();
  std::lock_guard<std::mutex> lock(st.m);
  if (!st.running) return;
  (void)st.library.api.flush_all(0);
  cupti_deliver_pending();
  cupti_flushed(st, false);
}

/// @brief Flushes everything (also records not finished), disables what start enabled and
/// gives the subscriber back; for the end of the process. Safe if never started.
inline void cupti_stop() noexcept {
  cupti_state& st = cupti();
  std::lock_guard<std::mutex> lock(st.m);
  if (!st.running) return;
  (void)st.library.api.flush_all(cupti_abi::flush_forced);
  cupti_deliver_pending();
  cupti_flushed(st, true);
  cupti_disable_all(st);
  st.sink.store(nullptr, std::memory_order_release);
  st.running = false;
  st.last = {cupti_status::off, {}};
  // libcupti stays loaded: its threads and the driver's hooks into it may outlive this call.
}

/// @brief Records CUPTI dropped (its buffers full) plus pool-growth records that found their
/// queue full.
inline std::uint64_t cupti_dropped() noexcept { return cupti().dropped.load(std::memory_order_relaxed); }

/// @brief Records handed to the sink so far.
inline std::uint64_t cupti_delivered() noexcept { return cupti().delivered.load(std::memory_order_relaxed); }

/// @brief CUPTI's own overhead inside the program's calls, as its overhead records give it (its
/// instrumentation and resources at each context's creation, buffer requests and flushes):
/// time the measured calls paid for being observed, to report as the library's own cost.
inline std::uint64_t cupti_overhead_ns() noexcept { return cupti().overhead_ns.load(std::memory_order_relaxed); }

/// Where CUPTI attached to the driver, as far as the records flushed so far say.
struct cupti_attach_point {
  std::uint64_t ns = 0;      ///< library clock; 0 while no record has come
  std::uint64_t thread = 0;  ///< gettid of the thread that initialised the driver, or 0
};

/// @brief The end of driver initialisation (cuInit), which no CUPTI record covers: CUPTI
/// attaches to the driver at the end of cuInit, so its earliest record (the runtime's
/// cuModuleGetLoadingMode, made first thing after cuInit, is recorded for this) marks that
/// point, on the thread that called it. Attribution can count the time from the start of the
/// process's first CUDA call on that thread to here as context_init. Meaningful only where
/// cupti_start ran before the first CUDA call.
inline cupti_attach_point cupti_attached() noexcept {
  const cupti_state& st = cupti();
  cupti_attach_point p;
  const std::uint64_t first = st.first_ns.load(std::memory_order_relaxed);
  if (first == ~std::uint64_t{0}) return p;
  p.ns = first;
  if (!st.own_clock.load(std::memory_order_relaxed))
    p.ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(first) + st.clock_offset.load(std::memory_order_relaxed));
  p.thread = st.system_thread_ids.load(std::memory_order_relaxed) ? st.first_thread.load(std::memory_order_relaxed) : 0;
  return p;
}

#else  // WARMUP_DISABLE: the same functions, doing nothing

inline cupti_start_result cupti_start(cause_sink) noexcept { return {}; }
struct cupti_device_listener;
inline bool cupti_watch_device_work(const cupti_device_listener*, std::string& why) noexcept {
  why = "warmup is compiled out (WARMUP_DISABLE)";
  return false;
}
inline void cupti_push_external(std::uint64_t) noexcept {}
inline void cupti_pop_external() noexcept {}
inline void cupti_flush() noexcept {}
inline void cupti_stop() noexcept {}
inline std::uint64_t cupti_dropped() noexcept { return 0; }
inline std::uint64_t cupti_delivered() noexcept { return 0; }
inline std::uint64_t cupti_overhead_ns() noexcept { return 0; }
struct cupti_attach_point {
  std::uint64_t ns = 0;
  std::uint64_t thread = 0;
};
inline cupti_attach_point cupti_attached() noexcept { return {}; }

#endif

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
