/// @file
/// @brief CUPTI's activity records to cause records (detail/causes.hpp): which driver calls and
/// kinds of record are causes, their times on the library's clock, and the buffers CUPTI fills.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cupti_abi.hpp"
#include "warmup/detail/analysis/cupti_state.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/clock.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The driver calls whose intervals are causes. The runtime makes these calls underneath its
/// own (cudaMalloc calls cuMemAlloc_v2, ...), so runtime records are not needed.
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

/// Driver calls that queue work on the device, whose callbacks hand their correlation ids to the
/// listener while the device's work is watched (`cupti_watch_device_work`): a program that
/// launches through the driver (Triton does) makes no runtime call whose record would carry the
/// launch's link to a range.
inline constexpr cupti_abi::callback_id cupti_work_driver_calls[] = {
    cupti_abi::cbid_cuLaunchKernel,          cupti_abi::cbid_cuLaunchKernel_ptsz,
    cupti_abi::cbid_cuLaunchKernelEx,        cupti_abi::cbid_cuLaunchKernelEx_ptsz,
    cupti_abi::cbid_cuLaunchCooperativeKernel, cupti_abi::cbid_cuLaunchCooperativeKernel_ptsz,
    cupti_abi::cbid_cuMemcpyAsync,           cupti_abi::cbid_cuMemcpyHtoDAsync_v2,
    cupti_abi::cbid_cuMemcpyDtoHAsync_v2,    cupti_abi::cbid_cuMemcpyDtoDAsync_v2,
    cupti_abi::cbid_cuMemsetD8Async,         cupti_abi::cbid_cuMemsetD32Async,
};

/// Driver calls recorded only to mark where CUPTI attached (cupti_attached): the runtime makes
/// this one once, first thing after cuInit.
inline constexpr cupti_abi::callback_id cupti_marker_calls[] = {cupti_abi::cbid_cuModuleGetLoadingMode};

/// The library's clock, as CUPTI's timestamp source.
inline std::uint64_t cupti_clock() noexcept { return ns_since_epoch(clock::now()); }

/// A CUPTI timestamp on the library's clock.
inline std::uint64_t cupti_to_library_clock(const cupti_state& st, std::uint64_t t) noexcept {
  if (st.own_clock.load(std::memory_order_relaxed)) return t;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(t) + st.clock_offset.load(std::memory_order_relaxed));
}

inline void cupti_emit(cause what, std::uint64_t start, std::uint64_t end, std::uint64_t thread) noexcept {
  cupti_state& st = cupti();
  if (start == 0 && end == 0) return;  // CUPTI: "timestamp information could not be collected"
  start = cupti_to_library_clock(st, start);
  end = cupti_to_library_clock(st, end);
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

/// A record of the device's work or an external id's link, to the listener watching for them;
/// false for a record of another kind.
inline bool cupti_device_work(const cupti_state& st, const cupti_abi::activity* rec) noexcept {
  if (rec->kind == cupti_abi::activity_kind::external_correlation) {
    const auto* e = reinterpret_cast<const cupti_abi::activity_external_correlation*>(rec);
    const cupti_device_listener* l = st.device_listener.load(std::memory_order_acquire);
    if (l != nullptr && e->ext_kind == cupti_abi::external_kind::custom0) l->link(e->correlation_id, e->external_id);
    return true;
  }
  for (const cupti_abi::device_work_layout& w : cupti_abi::device_work_layouts) {
    if (rec->kind != w.kind) continue;
    const cupti_device_listener* l = st.device_listener.load(std::memory_order_acquire);
    if (l == nullptr) return true;
    const auto* bytes = reinterpret_cast<const unsigned char*>(rec);
    std::uint64_t start = 0, end = 0;
    std::uint32_t correlation = 0;
    std::memcpy(&start, bytes + cupti_abi::device_work_start_at, sizeof start);
    std::memcpy(&end, bytes + cupti_abi::device_work_end_at, sizeof end);
    std::memcpy(&correlation, bytes + w.correlation_at, sizeof correlation);
    if (start == 0 || end < start) return true;  // no timestamps could be collected
    l->work(correlation, cupti_to_library_clock(st, start), cupti_to_library_clock(st, end));
    return true;
  }
  return false;
}

/// One CUPTI record to at most one cause record.
inline void cupti_convert(const cupti_abi::activity* rec) noexcept {
  cupti_state& st = cupti();
  if (auto* observe = st.raw_observer.load(std::memory_order_acquire)) observe(rec);
  if (cupti_device_work(st, rec)) return;
  switch (rec->kind) {
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
  const cupti_api& api = st.library.api;
  cupti_abi::activity* rec = nullptr;
  while (valid > 0 && api.next_record(buffer, valid, &rec) == cupti_abi::result::success) cupti_convert(rec);
  std::size_t dropped = 0;
  if (api.dropped_records(ctx, stream, &dropped) == cupti_abi::result::success && dropped > 0)
    st.dropped.fetch_add(dropped, std::memory_order_relaxed);
  std::free(buffer);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
