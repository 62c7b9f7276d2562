/// @file
/// @brief CUPTI's callback around the program's stream-ordered allocations: pool growth has no
/// CUPTI record of its own, so the callback reads the pool's reserved bytes before and after
/// each such call (detail/cuda_driver.hpp), and a call that grew it becomes a pool_growth
/// record of its own interval, kept until the next flush. While the device's work is watched
/// (cupti.hpp), it also hands each driver launch's correlation id to the listener.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cupti_abi.hpp"
#include "warmup/detail/analysis/cupti_records.hpp"
#include "warmup/detail/analysis/cupti_state.hpp"
#include "warmup/detail/analysis/host_probe.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/cuda_driver.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The stream-ordered allocations whose callbacks look for pool growth.
inline constexpr cupti_abi::callback_id cupti_pool_allocs[] = {
    cupti_abi::cbid_cuMemAllocAsync, cupti_abi::cbid_cuMemAllocAsync_ptsz,
    cupti_abi::cbid_cuMemAllocFromPoolAsync, cupti_abi::cbid_cuMemAllocFromPoolAsync_ptsz};

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

/// The driver's pool calls, where it has them (libcuda is loaded by the time a driver call's
/// callback runs: the table is found at the first); nullptr otherwise.
inline const cuda_driver* cupti_pool_calls() noexcept {
  const cuda_driver* d = cuda_driver_table();
  return d != nullptr && d->has(driver_feature::pool_reserve) ? d : nullptr;
}

/// The pool a stream-ordered allocation draws from, or nullptr.
inline CUmemoryPool cupti_pool_of(const cuda_driver& d, cupti_abi::callback_id cbid, const void* params) noexcept {
  if (cbid == cupti_abi::cbid_cuMemAllocFromPoolAsync || cbid == cupti_abi::cbid_cuMemAllocFromPoolAsync_ptsz)
    return static_cast<const cupti_mem_alloc_from_pool_async_params*>(params)->pool;
  return d.pool_of(static_cast<const cupti_mem_alloc_async_params*>(params)->hStream);
}

/// CUPTI's callback: around each stream-ordered allocation, whether the pool grew.
inline void cupti_callback(void*, cupti_abi::callback_domain domain, cupti_abi::callback_id cbid, const void* data) noexcept {
  struct in_flight {
    const cuda_driver* driver = nullptr;
    CUmemoryPool pool = nullptr;
    std::uint64_t reserved = 0;
    std::uint64_t start = 0;
  };
  static thread_local in_flight call;
  if (domain != cupti_abi::callback_domain::driver_api || data == nullptr) return;
  const auto* cb = static_cast<const cupti_abi::callback_data*>(data);
  for (const cupti_abi::callback_id launch : cupti_work_driver_calls) {
    if (cbid != launch) continue;
    const cupti_device_listener* l = cupti().device_listener.load(std::memory_order_acquire);
    if (l != nullptr && cb->site == cupti_abi::callback_site::enter) l->launching(cb->correlation_id);
    return;
  }
  if (cb->site == cupti_abi::callback_site::enter) {
    call = in_flight{};
    call.driver = cupti_pool_calls();
    if (call.driver == nullptr) return;
    call.pool = cupti_pool_of(*call.driver, cbid, cb->function_params);
    if (call.pool == nullptr) return;
    call.reserved = call.driver->reserved(call.pool).value_or(0);
    call.start = cupti_clock();  // last, so the lookups stay out of the interval
    return;
  }
  const std::uint64_t end = cupti_clock();
  if (call.pool == nullptr) return;
  const CUmemoryPool pool = call.pool;
  call.pool = nullptr;
  if (call.driver->reserved(pool).value_or(0) <= call.reserved) return;
  cupti_state& st = cupti();
  cause_record r;
  r.what = cause::pool_growth;
  r.start_ns = call.start;
  r.end_ns = end;
  r.thread = this_thread_id();
  std::lock_guard<std::mutex> lock(st.pending_m);
  if (st.pending_count < st.pending.size()) st.pending[st.pending_count++] = r;
  else st.dropped.fetch_add(1, std::memory_order_relaxed);
}

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

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
