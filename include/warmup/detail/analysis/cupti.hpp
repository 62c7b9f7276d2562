/// @file
/// @brief CUPTI, loaded at run time: the driver's own account of why a call was slow.
///
/// Issue 14's attribution (detail/analysis/attribution.hpp) joins cause records (detail/causes.hpp) to the
/// cold calls of each site. This file gets them from CUPTI, NVIDIA's profiling interface, where
/// it can: the driver's records of lazy kernel loads, module loads and JIT compilations, and the
/// intervals of a few chosen driver calls (context creation, allocations, synchronisations).
///
/// The library never links CUPTI. `cupti_start` finds `libcupti.so` with `dlopen` (the versioned
/// name first, then the CUDA runtime's and toolkit's folders) and takes every function through
/// `dlsym`; nor does it include CUPTI's headers: the part of CUPTI's interface it uses is declared
/// in detail/analysis/cupti_abi.hpp (checked against the real headers by tests/host/cupti_abi_check.cpp),
/// so that no file that includes warmup compiles CUPTI's headers, or their warnings.
///
/// What CUPTI is asked for, and why (facts from CUPTI 13.0's headers, checked on an H200 by
/// tests/gpu/cupti_probe.cu):
/// - Its timestamps come from the library's clock: `cuptiActivityRegisterTimestampCallback`
///   (registered before any kind is enabled, as cupti_activity.h asks) returns steady-clock
///   nanoseconds, so records need no conversion. Where it is refused, a fixed offset to
///   `cuptiGetTimestamp` (CLOCK_REALTIME by default), measured at start, converts them.
/// - Its thread ids are kernel thread ids: `cuptiSetThreadIdType(cupti_abi::thread_id_type::system)`
///   makes them `syscall(SYS_gettid)`; by default they are `pthread_self()` cut to 32 bits. If
///   the type is refused, records carry thread 0 (any thread).
/// - Kinds: OVERHEAD (lazy function loading, runtime-triggered module loading, and CUPTI's own
///   overhead, counted apart), JIT (compile, cache load, cache store) and chosen driver calls
///   (`cuptiActivityEnableDriverApi(cbid, 1)`). The DRIVER kind itself stays off: it would
///   record every driver call, and on CUDA 13.0 it even hides the driver calls the runtime makes
///   underneath its own (cuMemAlloc under cudaMalloc), which chosen calls do report. The
///   runtime loads a program's module with cuLibraryLoadData at its first launch (lazy loading)
///   or at its initialisation (CUDA_MODULE_LOADING=EAGER): that call's record is the module load.
///   MEMORY2 and MEMORY_POOL stay off: their records are instants (one `timestamp`, no end, no
///   thread), so an allocation's interval comes from its driver call's record instead (and with
///   MEMORY2 on, CUDA 13.0 gave no record of the chosen cuMemAlloc and cuMemHostAlloc calls).
/// - Pool growth has no record of its own: the CUPTI callback of each stream-ordered allocation
///   (cuMemAllocAsync, cuMemAllocFromPoolAsync) reads the pool's reserved size before and after
///   the call; a call that grew it makes a pool_growth record of its own interval.
/// - Driver initialisation (cuInit) has no record: CUPTI attaches to the driver at its end.
///   `cupti_attached` says where that was, for the attribution to count the rest of the
///   process's first CUDA call as context_init.
/// - One CUPTI subscriber per process (CUDA 13.0): under Nsight Systems, Nsight Compute,
///   compute-sanitizer or cuda-gdb, or beside another CUPTI client, `cupti_start` says so
///   (`slot_taken`, naming the holder: "Nsight Compute" under ncu) and enables nothing.
/// - Seen on CUDA 13.0 and not yet solved: CUPTI keeps an activity buffer per thread by default
///   and asks for it at the thread's first record, which costs that thread's first recorded
///   call about 0.7 ms (BENCHMARKS.md: a new thread's first cudaMalloc 0.96 ms against 0.19 ms
///   without CUPTI); and a fresh thread's first lazy kernel load gave no record. Setting
///   cupti_abi::activity_attribute::per_thread_activity_buffer to 0 before the buffer callbacks are
///   registered may cure both: to be tried on a GPU with tests/gpu/cupti_probe.cu.
///
/// Cost (BENCHMARKS.md, figures the code's comments cite): `cupti_start` 4 to 6 ms before the first CUDA call
/// (loading libcupti, which loads libcuda without initialising it); 12 to 16 records; a flush of
/// those 0.2 to 0.3 ms; a cudaMallocAsync + cudaFreeAsync pair 0.5 to 1.3 us more (the pool
/// callback); CUPTI's own work inside the program's calls, 8 to 10 ms in all, 6.5 ms of it at
/// the context's creation, is `cupti_overhead_ns`.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/causes.hpp"

#if WARMUP_ENABLED
#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <type_traits>

#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "warmup/detail/analysis/cupti_abi.hpp"
#include "warmup/detail/analysis/memory_driver.hpp"
#include "warmup/detail/clock.hpp"
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

// The CUPTI of the CUDA this program is built with: 12.5 (cuptiActivityEnableDriverApi) to 13.x,
// the versions whose interface cupti_abi.hpp declares.
#if CUDA_VERSION >= 12050 && CUDA_VERSION < 14000
#define WARMUP_DETAIL_CUPTI_USABLE 1
#else
#define WARMUP_DETAIL_CUPTI_USABLE 0
#endif

/// A CUPTI version's family: 13 for 13.x (versions 130000 and up), 12 for CUDA 12.x (19..28).
constexpr std::uint32_t cupti_major(std::uint32_t v) noexcept {
  return v >= 10000 ? v / 10000 : v >= 19 ? 12 : 11;
}

/// The major version of the libcupti to load: the CUDA headers' (CUPTI ships with the toolkit).
inline constexpr std::uint32_t cupti_wanted_major = CUDA_VERSION / 1000;

/// The first CUPTI of major 12 that has cuptiActivityEnableDriverApi (CUDA 12.5).
inline constexpr std::uint32_t cupti_first_usable_version = 23;

/// The CUPTI functions the library uses, each taken with dlsym; the types are cupti_abi's.
/// One list: (member, CUPTI's name, required).
#define WARMUP_DETAIL_CUPTI_FUNCTIONS(X)                                    \
  X(get_version, cuptiGetVersion, true)                                     \
  X(result_string, cuptiGetResultString, false)                             \
  X(subscribe, cuptiSubscribe, true)                                        \
  X(unsubscribe, cuptiUnsubscribe, true)                                    \
  X(enable_callback, cuptiEnableCallback, true)                             \
  X(set_thread_id_type, cuptiSetThreadIdType, false)                        \
  X(get_timestamp, cuptiGetTimestamp, true)                                 \
  X(register_timestamp, cuptiActivityRegisterTimestampCallback, false)      \
  X(register_callbacks, cuptiActivityRegisterCallbacks, true)               \
  X(enable, cuptiActivityEnable, true)                                      \
  X(disable, cuptiActivityDisable, true)                                    \
  X(next_record, cuptiActivityGetNextRecord, true)                          \
  X(dropped_records, cuptiActivityGetNumDroppedRecords, true)               \
  X(flush_all, cuptiActivityFlushAll, true)                                 \
  X(set_attribute, cuptiActivitySetAttribute, false)                       \
  X(subscribe_v2, cuptiSubscribe_v2, false) /* CUPTI 13 */                  \
  X(enable_driver_api, cuptiActivityEnableDriverApi, true) /* CUPTI 12.5 */

struct cupti_api {
#define WARMUP_DETAIL_MEMBER(member, name, required) cupti_abi::name member = nullptr;
  WARMUP_DETAIL_CUPTI_FUNCTIONS(WARMUP_DETAIL_MEMBER)
#undef WARMUP_DETAIL_MEMBER

  /// Takes every function from `lib`; false if a required one is missing.
  bool load(void* lib) noexcept {
    bool ok = true;
    auto take = [&](auto& fn, const char* name, bool required) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (fn == nullptr && required) ok = false;
    };
#define WARMUP_DETAIL_TAKE(member, name, required) take(member, #name, required);
    WARMUP_DETAIL_CUPTI_FUNCTIONS(WARMUP_DETAIL_TAKE)
#undef WARMUP_DETAIL_TAKE
    return ok;
  }
};

/// The process's use of CUPTI (one per copy of the library: see cupti_start on a second copy).
struct cupti_state {
  std::mutex m;  ///< start, stop, flush
  void* lib = nullptr;
  cupti_api api;
  std::uint32_t version = 0;
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

  // Pool growth, found in the allocation callbacks and kept here until the next flush.
  memory_driver driver;
  std::atomic<int> driver_state{0};  // 0 not looked up, 1 ready, 2 unusable
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
  const cupti_api& api = cupti().api;
  if (api.result_string != nullptr && api.result_string(r, &text) == cupti_abi::result::success && text != nullptr)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

/// The driver calls whose intervals are causes. The runtime makes these calls underneath its
/// own (cudaMalloc calls cuMemAlloc_v2, ...), so runtime records are not needed.
#if WARMUP_DETAIL_CUPTI_USABLE
struct cupti_driver_cause {
  cupti_abi::callback_id cbid;
  cause what;
};
inline constexpr cupti_driver_cause cupti_driver_causes[] = {
    {cupti_abi::cbid_cuInit, cause::context_init},
    {cupti_abi::cbid_cuDevicePrimaryCtxRetain, cause::context_init},
    {cupti_abi::cbid_cuCtxCreate, cause::context_init},
    {cupti_abi::cbid_cuCtxCreate_v2, cause::context_init},
    {cupti_abi::cbid_cuCtxCreate_v3, cause::context_init},
    {cupti_abi::cbid_cuCtxCreate_v4, cause::context_init},
    {cupti_abi::cbid_cuModuleLoad, cause::module_load},
    {cupti_abi::cbid_cuModuleLoadData, cause::module_load},
    {cupti_abi::cbid_cuModuleLoadDataEx, cause::module_load},
    {cupti_abi::cbid_cuModuleLoadFatBinary, cause::module_load},
    {cupti_abi::cbid_cuLibraryLoadData, cause::module_load},
    {cupti_abi::cbid_cuLibraryLoadFromFile, cause::module_load},
    {cupti_abi::cbid_cuMemAlloc, cause::device_alloc},
    {cupti_abi::cbid_cuMemAlloc_v2, cause::device_alloc},
    {cupti_abi::cbid_cuMemAllocPitch, cause::device_alloc},
    {cupti_abi::cbid_cuMemAllocPitch_v2, cause::device_alloc},
    {cupti_abi::cbid_cuMemAllocManaged, cause::device_alloc},
    {cupti_abi::cbid_cuMemCreate, cause::device_alloc},
    {cupti_abi::cbid_cuMemAllocHost, cause::pinned_alloc},
    {cupti_abi::cbid_cuMemAllocHost_v2, cause::pinned_alloc},
    {cupti_abi::cbid_cuMemHostAlloc, cause::pinned_alloc},
    {cupti_abi::cbid_cuMemHostAlloc_v2, cause::pinned_alloc},
    {cupti_abi::cbid_cuMemHostRegister, cause::pinned_alloc},
    {cupti_abi::cbid_cuMemHostRegister_v2, cause::pinned_alloc},
    {cupti_abi::cbid_cuStreamSynchronize, cause::sync_wait},
    {cupti_abi::cbid_cuStreamSynchronize_ptsz, cause::sync_wait},
    {cupti_abi::cbid_cuEventSynchronize, cause::sync_wait},
    {cupti_abi::cbid_cuCtxSynchronize, cause::sync_wait},
    {cupti_abi::cbid_cuCtxSynchronize_v2, cause::sync_wait},
};

/// Driver calls recorded only to mark where CUPTI attached (cupti_attached): the runtime makes
/// this one once, first thing after cuInit.
inline constexpr cupti_abi::callback_id cupti_marker_calls[] = {cupti_abi::cbid_cuModuleGetLoadingMode};

/// The stream-ordered allocations whose callbacks look for pool growth.
inline constexpr cupti_abi::callback_id cupti_pool_allocs[] = {
    cupti_abi::cbid_cuMemAllocAsync, cupti_abi::cbid_cuMemAllocAsync_ptsz,
    cupti_abi::cbid_cuMemAllocFromPoolAsync, cupti_abi::cbid_cuMemAllocFromPoolAsync_ptsz};
#endif

/// The library's clock, as CUPTI's timestamp source.
inline std::uint64_t cupti_clock() noexcept { return ns_since_epoch(clock::now()); }

inline std::uint64_t cupti_thread_id() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

inline void cupti_emit(cause what, std::uint64_t start, std::uint64_t end, std::uint64_t thread) noexcept {
  cupti_state& st = cupti();
  if (start == 0 && end == 0) return;  // CUPTI: "timestamp information could not be collected"
  if (!st.own_clock.load(std::memory_order_relaxed)) {
    const std::int64_t off = st.clock_offset.load(std::memory_order_relaxed);
    start = static_cast<std::uint64_t>(static_cast<std::int64_t>(start) + off);
    end = static_cast<std::uint64_t>(static_cast<std::int64_t>(end) + off);
  }
  if (end < start) end = start;
  const cause_sink sink = st.sink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  cause_record r;
  r.what = what;
  r.start_ns = start;
  r.end_ns = end;
  r.thread = st.system_thread_ids.load(std::memory_order_relaxed) ? thread : 0;
  sink(r);
  st.delivered.fetch_add(1, std::memory_order_relaxed);
}

/// Keeps the earliest record seen: CUPTI attaches to the driver at the end of cuInit, so the
/// first record marks where driver initialisation ended, on the thread that ran it.
inline void cupti_note_first(std::uint64_t start, std::uint64_t thread) noexcept {
  cupti_state& st = cupti();
  if (start == 0) return;
  std::uint64_t seen = st.first_ns.load(std::memory_order_relaxed);
  while (start < seen)
    if (st.first_ns.compare_exchange_weak(seen, start, std::memory_order_relaxed)) {
      st.first_thread.store(thread, std::memory_order_relaxed);
      break;
    }
}

/// One CUPTI record to at most one cause record.
inline void cupti_convert(const cupti_abi::activity* rec) noexcept {
  cupti_state& st = cupti();
  if (auto* observe = st.raw_observer.load(std::memory_order_acquire)) observe(rec);
  switch (rec->kind) {
#if WARMUP_DETAIL_CUPTI_USABLE
    case cupti_abi::activity_kind::driver: {
      const auto* a = reinterpret_cast<const cupti_abi::activity_api*>(rec);
      cupti_note_first(a->start, a->thread_id);
      for (const cupti_driver_cause& d : cupti_driver_causes)
        if (d.cbid == a->cbid) {
          cupti_emit(d.what, a->start, a->end, a->thread_id);
          break;
        }
      break;
    }
#endif
    case cupti_abi::activity_kind::overhead: {
      const auto* o = reinterpret_cast<const cupti_abi::activity_overhead3*>(rec);
      const std::uint64_t thread = o->object == cupti_abi::object_kind::thread ? o->object_id.pt.thread_id : 0;
      cupti_note_first(o->start, thread);
      switch (o->overhead) {
        case cupti_abi::overhead_kind::lazy_function_loading:
          cupti_emit(cause::lazy_kernel_load, o->start, o->end, thread);
          break;
        case cupti_abi::overhead_kind::runtime_triggered_module_loading:
          cupti_emit(cause::module_load, o->start, o->end, thread);
          break;
        case cupti_abi::overhead_kind::driver_compiler:  // the JIT kind says the same where it is on
          if (!st.jit_enabled) cupti_emit(cause::jit_compile, o->start, o->end, thread);
          break;
        case cupti_abi::overhead_kind::cupti_buffer_flush:
        case cupti_abi::overhead_kind::cupti_instrumentation:
        case cupti_abi::overhead_kind::cupti_resource:
        case cupti_abi::overhead_kind::activity_buffer_request:  // CUPTI's own cost, inside the program's calls
          if (o->end > o->start) st.overhead_ns.fetch_add(o->end - o->start, std::memory_order_relaxed);
          break;
        default:
          break;
      }
      // cupti_activity.h: "Client is responsible for freeing this memory" (command-buffer data).
      if (o->overhead_data != nullptr) std::free(o->overhead_data);
      break;
    }
    case cupti_abi::activity_kind::jit: {
      const auto* j = reinterpret_cast<const cupti_abi::activity_jit2*>(rec);
      cupti_note_first(j->start, j->thread_id);
      switch (j->operation) {
        case cupti_abi::jit_operation::compile:
        case cupti_abi::jit_operation::cache_store:  // paid because the code was compiled
          cupti_emit(cause::jit_compile, j->start, j->end, j->thread_id);
          break;
        case cupti_abi::jit_operation::cache_load:
          cupti_emit(cause::jit_cache_load, j->start, j->end, j->thread_id);
          break;
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
}

inline void cupti_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) noexcept {
  constexpr std::size_t bytes = std::size_t{1} << 20;  // about 10 000 records
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer != nullptr ? bytes : 0;
  *max_records = 0;  // as many as fit
}

inline void cupti_buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                                            std::size_t valid) noexcept {
  cupti_state& st = cupti();
  if (buffer == nullptr) return;
  cupti_abi::activity* rec = nullptr;
  while (valid > 0 && st.api.next_record(buffer, valid, &rec) == cupti_abi::result::success) cupti_convert(rec);
  std::size_t dropped = 0;
  if (st.api.dropped_records(ctx, stream, &dropped) == cupti_abi::result::success && dropped > 0)
    st.dropped.fetch_add(dropped, std::memory_order_relaxed);
  std::free(buffer);
}

/// Looks up, once, the driver calls the pool-growth callback needs (libcuda is loaded by then).
inline bool cupti_driver_ready() noexcept {
  cupti_state& st = cupti();
  const int state = st.driver_state.load(std::memory_order_acquire);
  if (state != 0) return state == 1;
  memory_driver d;
  const bool ok = d.load();
  if (ok) st.driver = d;
  int expected = 0;
  (void)st.driver_state.compare_exchange_strong(expected, ok ? 1 : 2, std::memory_order_acq_rel);
  return st.driver_state.load(std::memory_order_acquire) == 1;
}

#if WARMUP_DETAIL_CUPTI_USABLE
/// The parameters CUPTI's callback data point to for these calls, as generated_cuda_meta.h
/// declares them (that header needs the driver's internal typedefs, so it is not included).
struct cupti_mem_alloc_async_params {
  CUdeviceptr* dptr;
  std::size_t bytesize;
  CUstream hStream;
};
struct cupti_mem_alloc_from_pool_async_params {
  CUdeviceptr* dptr;
  std::size_t bytesize;
  CUmemoryPool pool;
  CUstream hStream;
};

/// The pool a stream-ordered allocation draws from, or nullptr.
inline CUmemoryPool cupti_pool_of(cupti_abi::callback_id cbid, const void* params) noexcept {
  if (cbid == cupti_abi::cbid_cuMemAllocFromPoolAsync || cbid == cupti_abi::cbid_cuMemAllocFromPoolAsync_ptsz)
    return static_cast<const cupti_mem_alloc_from_pool_async_params*>(params)->pool;
  return cupti().driver.pool_of(static_cast<const cupti_mem_alloc_async_params*>(params)->hStream);
}

inline std::uint64_t cupti_pool_reserved(CUmemoryPool pool) noexcept { return cupti().driver.reserved(pool).value_or(0); }

/// CUPTI's callback: around each stream-ordered allocation, whether the pool grew.
inline void cupti_callback(void*, cupti_abi::callback_domain domain, cupti_abi::callback_id cbid, const void* data) noexcept {
  struct in_flight {
    CUmemoryPool pool = nullptr;
    std::uint64_t reserved = 0;
    std::uint64_t start = 0;
  };
  static thread_local in_flight call;
  if (domain != cupti_abi::callback_domain::driver_api || data == nullptr) return;
  const auto* cb = static_cast<const cupti_abi::callback_data*>(data);
  if (cb->site == cupti_abi::callback_site::enter) {
    call = in_flight{};
    if (!cupti_driver_ready()) return;
    call.pool = cupti_pool_of(cbid, cb->function_params);
    if (call.pool == nullptr) return;
    call.reserved = cupti_pool_reserved(call.pool);
    call.start = cupti_clock();  // last, so the lookups stay out of the interval
    return;
  }
  const std::uint64_t end = cupti_clock();
  if (call.pool == nullptr) return;
  const CUmemoryPool pool = call.pool;
  call.pool = nullptr;
  if (cupti_pool_reserved(pool) <= call.reserved) return;
  cupti_state& st = cupti();
  cause_record r;
  r.what = cause::pool_growth;
  r.start_ns = call.start;
  r.end_ns = end;
  r.thread = cupti_thread_id();
  std::lock_guard<std::mutex> lock(st.pending_m);
  if (st.pending_count < st.pending.size()) st.pending[st.pending_count++] = r;
  else st.dropped.fetch_add(1, std::memory_order_relaxed);
}
#endif

/// Hands the pool-growth records kept since the last flush to the sink.
inline void cupti_deliver_pending() noexcept {
  cupti_state& st = cupti();
  std::array<cause_record, 256> batch;
  std::size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(st.pending_m);
    n = st.pending_count;
    for (std::size_t i = 0; i < n; ++i) batch[i] = st.pending[i];
    st.pending_count = 0;
  }
  const cause_sink sink = st.sink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  for (std::size_t i = 0; i < n; ++i) {
    sink(batch[i]);
    st.delivered.fetch_add(1, std::memory_order_relaxed);
  }
}

/// The folder of a loaded shared object whose file name contains `part`, with a trailing '/'.
inline std::string cupti_loaded_folder(const char* part) {
  struct query {
    const char* part;
    std::string folder;
  } q{part, {}};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* p) -> int {
        auto* qq = static_cast<query*>(p);
        const char* name = info->dlpi_name;
        if (name == nullptr || std::strstr(name, qq->part) == nullptr) return 0;
        const char* slash = std::strrchr(name, '/');
        if (slash == nullptr) return 0;
        qq->folder.assign(name, static_cast<std::size_t>(slash - name + 1));
        return 1;
      },
      &q);
  return q.folder;
}

/// Opens a libcupti of the CUDA headers' major version; false with `why` set if none is found.
inline bool cupti_load(cupti_state& st, std::string& why) {
  const std::string major = std::to_string(cupti_wanted_major);
  const std::string versioned = "libcupti.so." + major;
  std::string candidates[24];
  std::size_t n = 0;
  candidates[n++] = versioned;
  candidates[n++] = "libcupti.so";
  // Beside the CUDA runtime the program loaded: the toolkit's lib64 (CUPTI there since 12.x, or
  // ../extras/CUPTI/lib64), or a pip wheel's nvidia/cuda_runtime/lib beside nvidia/cuda_cupti/lib.
  const std::string cudart = cupti_loaded_folder("libcudart.so");
  if (!cudart.empty()) {
    candidates[n++] = cudart + versioned;
    candidates[n++] = cudart + "../extras/CUPTI/lib64/" + versioned;
    candidates[n++] = cudart + "../../cuda_cupti/lib/" + versioned;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(var);
    if (root == nullptr || *root == '\0') continue;
    candidates[n++] = std::string(root) + "/extras/CUPTI/lib64/" + versioned;
    candidates[n++] = std::string(root) + "/lib64/" + versioned;
    candidates[n++] = std::string(root) + "/targets/x86_64-linux/lib/" + versioned;
  }
  candidates[n++] = "/usr/local/cuda/extras/CUPTI/lib64/" + versioned;
  candidates[n++] = "/usr/local/cuda/lib64/" + versioned;
  candidates[n++] = "/usr/local/cuda/targets/x86_64-linux/lib/" + versioned;
  candidates[n++] = "/usr/local/cuda/targets/sbsa-linux/lib/" + versioned;
  std::uint32_t other_version = 0;
  for (std::size_t i = 0; i < n; ++i) {
    void* lib = ::dlopen(candidates[i].c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) continue;
    cupti_api api;
    std::uint32_t version = 0;
    const bool complete = api.load(lib);
    if (api.get_version == nullptr || api.get_version(&version) != cupti_abi::result::success) version = 0;
    // A libcupti of 12 older than 12.5 lacks a required function: its version still says why.
    if (complete && cupti_major(version) == cupti_wanted_major && version >= cupti_first_usable_version) {
      st.lib = lib;
      st.api = api;
      st.version = version;
      return true;
    }
    if (version != 0) other_version = version;
    ::dlclose(lib);  // only its version was asked: nothing of it runs
  }
  why = other_version != 0
            ? "the CUPTI found is version " + std::to_string(other_version) + ", not of CUDA " + major +
                  " (12.5 or later) whose headers this program was built with"
            : "no " + versioned + " was found (nor beside the CUDA runtime, nor under CUDA_HOME or /usr/local/cuda)";
  return false;
}

/// Undoes whatever start enabled; caller holds st.m.
inline void cupti_disable_all(cupti_state& st) noexcept {
  const cupti_api& api = st.api;
  (void)api.disable(cupti_abi::activity_kind::overhead);
  (void)api.disable(cupti_abi::activity_kind::jit);
#if WARMUP_DETAIL_CUPTI_USABLE
  for (const cupti_driver_cause& d : cupti_driver_causes) (void)api.enable_driver_api(d.cbid, 0);
  for (const cupti_abi::callback_id cbid : cupti_marker_calls) (void)api.enable_driver_api(cbid, 0);
  if (st.subscriber != nullptr)
    for (const cupti_abi::callback_id cbid : cupti_pool_allocs)
      (void)api.enable_callback(0, st.subscriber, cupti_abi::callback_domain::driver_api, cbid);
#endif
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
#if !WARMUP_DETAIL_CUPTI_USABLE
  (void)sink;
  return {cupti_status::unavailable,
          fallback("this program was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                   std::to_string(CUDA_VERSION % 1000 / 10) +
                   ", and the library knows the CUPTI interface of CUDA 12.5 to 13.x only")};
#else
  if (!st.load_tried) {
    st.load_tried = true;
    std::string why;
    st.loaded = cupti_load(st, why);
    if (!st.loaded) st.last = {cupti_status::unavailable, fallback(why)};
  }
  if (!st.loaded) return st.last;
  const cupti_api& api = st.api;

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
    if (void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      ::dlclose(driver);
    } else if ((driver = ::dlopen("libcuda.so.1", RTLD_LAZY)) == nullptr) {
      return {cupti_status::unavailable, fallback("CUPTI found no CUDA driver (libcuda.so.1)")};
    } else {
      ::dlclose(driver);
    }
    if (r == cupti_abi::result::not_initialized)
      return {cupti_status::unavailable,
              fallback("CUPTI " + std::to_string(st.version) + " could not start (" + cupti_result_text(r) +
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
  // thread's first record, inside the program's call (0.7 ms, BENCHMARKS.md).
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
#endif
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

/// @brief Delivers every finished record to the sink (`cuptiActivityFlushAll`), on this thread
/// and perhaps on CUPTI's. Blocks for the flush; never call it inside a measured scope.
inline void cupti_flush() noexcept {
  cupti_state& st = cupti();
  std::lock_guard<std::mutex> lock(st.m);
  if (!st.running) return;
  (void)st.api.flush_all(0);
  cupti_deliver_pending();
}

/// @brief Flushes everything (also records not finished), disables what start enabled and
/// gives the subscriber back; for the end of the process. Safe if never started.
inline void cupti_stop() noexcept {
  cupti_state& st = cupti();
  std::lock_guard<std::mutex> lock(st.m);
  if (!st.running) return;
  (void)st.api.flush_all(cupti_abi::flush_forced);
  cupti_deliver_pending();
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

#undef WARMUP_DETAIL_CUPTI_USABLE
#undef WARMUP_DETAIL_CUPTI_FUNCTIONS

#else  // WARMUP_DISABLE: the same functions, doing nothing

inline cupti_start_result cupti_start(cause_sink) noexcept { return {}; }
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
