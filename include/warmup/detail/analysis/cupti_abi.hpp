/// @file
/// @brief The part of CUPTI's binary interface the library uses, declared here instead of taken
/// from CUPTI's headers.
///
/// The library loads libcupti with dlopen (detail/analysis/cupti_library.hpp), so it needs CUPTI's
/// types, not its declarations: a few enumerators, three activity records, the callback data,
/// the subscriber parameters and the signatures of the functions it takes with dlsym. Including
/// CUPTI's headers for these put them into every file that includes a whole warmup header, and
/// with them their warnings: cupti_callbacks.h fails `clang++ -Wpedantic -Werror` ("anonymous
/// types declared in an anonymous union are an extension") where the toolkit is on `-I`, in a
/// program that never asked for CUPTI. Declared here, the library needs no CUPTI header at all,
/// and builds with CUPTI support wherever cuda.h is found.
///
/// What holds these declarations to CUPTI: its interface is stable within what they cover.
/// Records are versioned by name (CUpti_ActivityOverhead3 keeps its layout; a new layout is a
/// new name), enumerators and driver callback ids carry explicit numbers that are never reused,
/// and the library loads only a libcupti of the major version its CUDA headers name (12.5 and
/// later, or 13), which gives the record versions declared here. tests/host/cupti_abi_check.cpp
/// compiles them beside the real headers and checks every value, offset, size and signature, so
/// a toolkit whose CUPTI differs fails the build of the tests.
///
/// Everything is in `warmup::detail::cupti_abi`, under names of its own: a program may include
/// CUPTI's headers too.
///
/// @code
///   namespace abi = warmup::detail::cupti_abi;
///   if (rec->kind == abi::activity_kind::overhead) {
///     const auto* o = reinterpret_cast<const abi::activity_overhead3*>(rec);
///   }
/// @endcode
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
namespace cupti_abi {

/// Whether these declarations are those of the CUPTI that comes with the CUDA this program is
/// built with: 12.5 (cuptiActivityEnableDriverApi) to 13.x. Elsewhere CUPTI is not started.
inline constexpr bool declared_for_this_cuda = CUDA_VERSION >= 12050 && CUDA_VERSION < 14000;

/// CUptiResult: the values the library tests for; any other is an error to print.
enum class result : std::uint32_t {
  success = 0,
  not_initialized = 15,
  multiple_subscribers_not_supported = 39,
};

/// CUpti_CallbackId: a driver call's id within its domain.
using callback_id = std::uint32_t;

/// CUpti_CallbackDomain.
enum class callback_domain : std::uint32_t { driver_api = 1 };

/// CUpti_ApiCallbackSite.
enum class callback_site : std::uint32_t { enter = 0, exit = 1 };

/// CUpti_ActivityKind: the kinds the library enables.
enum class activity_kind : std::uint32_t {
  memcpy = 1,
  memset = 2,
  driver = 4,
  runtime = 5,
  concurrent_kernel = 10,
  overhead = 17,
  external_correlation = 39,
  jit = 52,
};

/// CUpti_ExternalCorrelationKind: the kind under which the library pushes its ids.
enum class external_kind : std::uint32_t { custom0 = 3 };

/// CUpti_ActivityObjectKind.
enum class object_kind : std::uint32_t { thread = 2 };

/// CUpti_ActivityOverheadKind.
enum class overhead_kind : std::uint32_t {
  driver_compiler = 1,
  cupti_buffer_flush = 1u << 16,
  cupti_instrumentation = 2u << 16,
  cupti_resource = 3u << 16,
  runtime_triggered_module_loading = 4u << 16,
  lazy_function_loading = 5u << 16,
  activity_buffer_request = 7u << 16,
};

/// CUpti_ActivityJitOperationType.
enum class jit_operation : std::uint32_t { cache_load = 1, cache_store = 2, compile = 3 };

/// CUpti_ActivityThreadIdType.
enum class thread_id_type : std::uint32_t { system = 1 };

/// CUpti_ActivityAttribute.
enum class activity_attribute : std::uint32_t { per_thread_activity_buffer = 9 };

/// CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, for cuptiActivityFlushAll.
inline constexpr std::uint32_t flush_forced = 1;

/// CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN: the room cuptiSubscribe_v2 needs to name the holder.
inline constexpr std::size_t old_subscriber_name_min_len = 64;

/// CUpti_SubscriberHandle.
struct subscriber_st;
using subscriber_handle = subscriber_st*;

/// CUpti_CallbackData: what a driver call's callback receives.
struct callback_data {
  callback_site site;
  const char* function_name;
  const void* function_params;  ///< the call's parameters, as generated_cuda_meta.h declares them
  void* function_return_value;
  const char* symbol_name;
  CUcontext context;
  std::uint32_t context_uid;
  std::uint64_t* correlation_data;
  std::uint32_t correlation_id;
};

/// CUpti_SubscriberParams (CUPTI 13), for cuptiSubscribe_v2.
struct subscriber_params {
  std::size_t struct_size;
  const char* subscriber_name;
  char* old_subscriber_name;
  std::size_t old_subscriber_size;
};
/// CUpti_SubscriberParams_STRUCT_SIZE: the size up to its last field.
inline constexpr std::size_t subscriber_params_struct_size = sizeof(subscriber_params);

// Activity records are 8-byte aligned (CUPTI's PACKED_ALIGNMENT); the fields below are already
// naturally aligned, so packing changes nothing in them.

/// CUpti_Activity: the kind every record starts with.
struct alignas(8) activity {
  activity_kind kind;
};

/// CUpti_ActivityAPI: a driver call's record (kind driver).
struct alignas(8) activity_api {
  activity_kind kind;
  callback_id cbid;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t process_id;
  std::uint32_t thread_id;
  std::uint32_t correlation_id;
  std::uint32_t return_value;
};

/// CUpti_ActivityObjectKindId: the process and thread, or device, context and stream.
union object_kind_id {
  struct {
    std::uint32_t process_id;
    std::uint32_t thread_id;
  } pt;
  struct {
    std::uint32_t device_id;
    std::uint32_t context_id;
    std::uint32_t stream_id;
  } dcs;
};

/// CUpti_ActivityOverhead3: an overhead record (kind overhead), CUPTI 12.2 and later.
struct alignas(8) activity_overhead3 {
  activity_kind kind;
  overhead_kind overhead;
  object_kind object;
  object_kind_id object_id;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t correlation_id;
  std::uint32_t reserved0;
  void* overhead_data;  ///< malloc'ed by CUPTI where set; the client frees it
};

/// CUpti_ActivityJit2: a JIT record (kind jit).
struct alignas(8) activity_jit2 {
  activity_kind kind;
  std::uint32_t entry_type;
  jit_operation operation;
  std::uint32_t device_id;
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t correlation_id;
  std::uint32_t padding;
  std::uint64_t operation_correlation_id;
  std::uint64_t cache_size;
  const char* cache_path;
  std::uint32_t process_id;
  std::uint32_t thread_id;
};

/// CUpti_ActivityExternalCorrelation: an API call's correlation id and the external id pushed
/// on its thread when it was made (kind external_correlation).
struct alignas(8) activity_external_correlation {
  activity_kind kind;
  external_kind ext_kind;
  std::uint64_t external_id;
  std::uint32_t correlation_id;
  std::uint32_t reserved;
};

/// Where a record of the device's work keeps its interval and the correlation id of the call
/// that launched it: CUpti_ActivityKernel9 and 10 (concurrent_kernel), CUpti_ActivityMemcpy5 and
/// 6, CUpti_ActivityMemset4 share `start` at 16 and `end` at 24; the id lies at 92 in a kernel's,
/// 44 in the others'. The records are longer; only these fields are read.
struct device_work_layout {
  activity_kind kind;
  std::size_t correlation_at;
};
inline constexpr std::size_t device_work_start_at = 16, device_work_end_at = 24;
inline constexpr device_work_layout device_work_layouts[] = {
    {activity_kind::concurrent_kernel, 92},
    {activity_kind::memcpy, 44},
    {activity_kind::memset, 44},
};

/// The callbacks CUPTI calls (CUpti_CallbackFunc, CUpti_TimestampCallbackFunc,
/// CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc).
using callback_fn = void (*)(void* userdata, callback_domain, callback_id, const void* data);
using timestamp_fn = std::uint64_t (*)();
using buffer_requested_fn = void (*)(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
using buffer_completed_fn = void (*)(CUcontext, std::uint32_t stream, std::uint8_t* buffer, std::size_t size,
                                     std::size_t valid);

/// The signatures of the functions taken with dlsym, by CUPTI's name.
using cuptiGetVersion = result (*)(std::uint32_t*);
using cuptiGetResultString = result (*)(result, const char**);
using cuptiSubscribe = result (*)(subscriber_handle*, callback_fn, void*);
using cuptiSubscribe_v2 = result (*)(subscriber_handle*, callback_fn, void*, subscriber_params*);
using cuptiUnsubscribe = result (*)(subscriber_handle);
using cuptiEnableCallback = result (*)(std::uint32_t enable, subscriber_handle, callback_domain, callback_id);
using cuptiSetThreadIdType = result (*)(thread_id_type);
using cuptiGetTimestamp = result (*)(std::uint64_t*);
using cuptiActivityRegisterTimestampCallback = result (*)(timestamp_fn);
using cuptiActivityRegisterCallbacks = result (*)(buffer_requested_fn, buffer_completed_fn);
using cuptiActivityEnable = result (*)(activity_kind);
using cuptiActivityDisable = result (*)(activity_kind);
using cuptiActivityGetNextRecord = result (*)(std::uint8_t* buffer, std::size_t valid, activity** record);
using cuptiActivityGetNumDroppedRecords = result (*)(CUcontext, std::uint32_t stream, std::size_t* dropped);
using cuptiActivityFlushAll = result (*)(std::uint32_t flag);
using cuptiActivitySetAttribute = result (*)(activity_attribute, std::size_t* size, void* value);
using cuptiActivityEnableDriverApi = result (*)(callback_id, std::uint8_t enable);
using cuptiActivityPushExternalCorrelationId = result (*)(external_kind, std::uint64_t id);
using cuptiActivityPopExternalCorrelationId = result (*)(external_kind, std::uint64_t* last_id);

/// CUpti_driver_api_trace_cbid: the driver calls the library records or watches, each
/// CUPTI_DRIVER_TRACE_CBID_<call> as cbid_<call> (not <call>: cuda.h defines some calls' names
/// as macros, cuMemAlloc as cuMemAlloc_v2).
inline constexpr callback_id cbid_cuInit = 1;
inline constexpr callback_id cbid_cuCtxCreate = 10;
inline constexpr callback_id cbid_cuCtxSynchronize = 17;
inline constexpr callback_id cbid_cuModuleLoad = 18;
inline constexpr callback_id cbid_cuModuleLoadData = 19;
inline constexpr callback_id cbid_cuModuleLoadDataEx = 20;
inline constexpr callback_id cbid_cuModuleLoadFatBinary = 21;
inline constexpr callback_id cbid_cuMemAlloc = 29;
inline constexpr callback_id cbid_cuMemAllocPitch = 31;
inline constexpr callback_id cbid_cuMemAllocHost = 37;
inline constexpr callback_id cbid_cuMemHostAlloc = 39;
inline constexpr callback_id cbid_cuEventSynchronize = 121;
inline constexpr callback_id cbid_cuStreamSynchronize = 126;
inline constexpr callback_id cbid_cuCtxCreate_v2 = 235;
inline constexpr callback_id cbid_cuMemAlloc_v2 = 243;
inline constexpr callback_id cbid_cuMemAllocPitch_v2 = 244;
inline constexpr callback_id cbid_cuMemHostAlloc_v2 = 271;
inline constexpr callback_id cbid_cuMemAllocHost_v2 = 294;
inline constexpr callback_id cbid_cuMemHostRegister = 301;
inline constexpr callback_id cbid_cuMemAllocManaged = 371;
inline constexpr callback_id cbid_cuMemHostRegister_v2 = 379;
inline constexpr callback_id cbid_cuDevicePrimaryCtxRetain = 386;
inline constexpr callback_id cbid_cuStreamSynchronize_ptsz = 440;
inline constexpr callback_id cbid_cuMemCreate = 549;
inline constexpr callback_id cbid_cuMemAllocAsync = 598;
inline constexpr callback_id cbid_cuMemAllocAsync_ptsz = 599;
inline constexpr callback_id cbid_cuMemAllocFromPoolAsync = 611;
inline constexpr callback_id cbid_cuMemAllocFromPoolAsync_ptsz = 612;
inline constexpr callback_id cbid_cuCtxCreate_v3 = 645;
inline constexpr callback_id cbid_cuModuleGetLoadingMode = 673;
inline constexpr callback_id cbid_cuLibraryLoadData = 678;
inline constexpr callback_id cbid_cuLibraryLoadFromFile = 679;
inline constexpr callback_id cbid_cuCtxCreate_v4 = 757;
inline constexpr callback_id cbid_cuCtxSynchronize_v2 = 800;
inline constexpr callback_id cbid_cuMemsetD8Async = 216;
inline constexpr callback_id cbid_cuMemsetD32Async = 220;
inline constexpr callback_id cbid_cuMemcpyHtoDAsync_v2 = 277;
inline constexpr callback_id cbid_cuMemcpyDtoHAsync_v2 = 279;
inline constexpr callback_id cbid_cuMemcpyDtoDAsync_v2 = 281;
inline constexpr callback_id cbid_cuMemcpyAsync = 306;
inline constexpr callback_id cbid_cuLaunchKernel = 307;
inline constexpr callback_id cbid_cuLaunchKernel_ptsz = 442;
inline constexpr callback_id cbid_cuLaunchCooperativeKernel = 477;
inline constexpr callback_id cbid_cuLaunchCooperativeKernel_ptsz = 478;
inline constexpr callback_id cbid_cuLaunchKernelEx = 652;
inline constexpr callback_id cbid_cuLaunchKernelEx_ptsz = 653;

}  // namespace cupti_abi
}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
