// The library's own declarations of CUPTI's interface (detail/analysis/cupti_abi.hpp) against
// CUPTI's real headers, in one file that includes both: every value, record field offset, size
// and function signature the library relies on. A mismatch fails this file's build, naming the
// declaration; the program only says what was checked. Without CUPTI's headers it exits 77.
#include "warmup/detail/analysis/cupti_abi.hpp"

#include <cstdio>

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_result.h>
#include <cupti_version.h>

#include <cstddef>
#include <type_traits>

namespace {
namespace abi = warmup::detail::cupti_abi;

// Two types passed the same way across the C interface: the same type; integers or enumerations
// of one size (CUPTI's C enums against the library's fixed-size scoped ones); pointers to such
// types, or to records (their layouts are checked field by field below) or opaque handles; and
// functions whose return and parameters all pair up.
template <class A, class B>
constexpr bool same_scalar() {
  if constexpr ((std::is_integral_v<A> || std::is_enum_v<A>)&&(std::is_integral_v<B> || std::is_enum_v<B>))
    return sizeof(A) == sizeof(B);
  else
    return false;
}
template <class A, class B>
struct same_abi {
  static constexpr bool value = std::is_same_v<A, B> || same_scalar<A, B>();
};
template <class A, class B>
struct same_abi<A*, B*> {
  static constexpr bool pointees() {
    if constexpr (std::is_class_v<A> && std::is_class_v<B>)
      return true;
    else
      return same_abi<std::remove_cv_t<A>, std::remove_cv_t<B>>::value;
  }
  static constexpr bool value = std::is_const_v<A> == std::is_const_v<B> && pointees();
};
template <class RA, class... PA, class RB, class... PB>
struct same_abi<RA (*)(PA...), RB (*)(PB...)> {
  static constexpr bool parameters() {
    if constexpr (sizeof...(PA) == sizeof...(PB))
      return (true && ... && same_abi<PA, PB>::value);
    else
      return false;
  }
  static constexpr bool value = same_abi<RA, RB>::value && parameters();
};

#define WARMUP_SAME_VALUE(ours, theirs) \
  static_assert(static_cast<long long>(ours) == static_cast<long long>(theirs), #ours " is not " #theirs)
#define WARMUP_SAME_FIELD(ours, field, theirs, their_field)                                                   \
  static_assert(offsetof(ours, field) == offsetof(theirs, their_field), #ours "::" #field " is not at " #theirs \
                                                                                     "::" #their_field);         \
  static_assert(sizeof(ours::field) == sizeof(theirs::their_field), #ours "::" #field " is not the size of " #their_field)
#define WARMUP_SAME_RECORD(ours, theirs)                                      \
  static_assert(sizeof(ours) == sizeof(theirs), #ours " is not the size of " #theirs); \
  static_assert(alignof(ours) == alignof(theirs), #ours " is not aligned as " #theirs)
#define WARMUP_SAME_FUNCTION(name) \
  static_assert(same_abi<abi::name, decltype(&::name)>::value, #name ": the library's signature is not CUPTI's")

// Results, kinds and flags.
WARMUP_SAME_VALUE(abi::result::success, CUPTI_SUCCESS);
WARMUP_SAME_VALUE(abi::result::not_initialized, CUPTI_ERROR_NOT_INITIALIZED);
WARMUP_SAME_VALUE(abi::result::multiple_subscribers_not_supported, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
WARMUP_SAME_VALUE(abi::callback_domain::driver_api, CUPTI_CB_DOMAIN_DRIVER_API);
WARMUP_SAME_VALUE(abi::callback_site::enter, CUPTI_API_ENTER);
WARMUP_SAME_VALUE(abi::callback_site::exit, CUPTI_API_EXIT);
WARMUP_SAME_VALUE(abi::activity_kind::driver, CUPTI_ACTIVITY_KIND_DRIVER);
WARMUP_SAME_VALUE(abi::activity_kind::overhead, CUPTI_ACTIVITY_KIND_OVERHEAD);
WARMUP_SAME_VALUE(abi::activity_kind::jit, CUPTI_ACTIVITY_KIND_JIT);
WARMUP_SAME_VALUE(abi::activity_kind::memcpy, CUPTI_ACTIVITY_KIND_MEMCPY);
WARMUP_SAME_VALUE(abi::activity_kind::memset, CUPTI_ACTIVITY_KIND_MEMSET);
WARMUP_SAME_VALUE(abi::activity_kind::runtime, CUPTI_ACTIVITY_KIND_RUNTIME);
WARMUP_SAME_VALUE(abi::activity_kind::concurrent_kernel, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
WARMUP_SAME_VALUE(abi::activity_kind::external_correlation, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
WARMUP_SAME_VALUE(abi::external_kind::custom0, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
WARMUP_SAME_VALUE(abi::object_kind::thread, CUPTI_ACTIVITY_OBJECT_THREAD);
WARMUP_SAME_VALUE(abi::overhead_kind::driver_compiler, CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER);
WARMUP_SAME_VALUE(abi::overhead_kind::cupti_buffer_flush, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH);
WARMUP_SAME_VALUE(abi::overhead_kind::cupti_instrumentation, CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION);
WARMUP_SAME_VALUE(abi::overhead_kind::cupti_resource, CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE);
WARMUP_SAME_VALUE(abi::overhead_kind::runtime_triggered_module_loading,
                  CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING);
WARMUP_SAME_VALUE(abi::overhead_kind::lazy_function_loading, CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING);
WARMUP_SAME_VALUE(abi::overhead_kind::activity_buffer_request, CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST);
WARMUP_SAME_VALUE(abi::jit_operation::cache_load, CUPTI_ACTIVITY_JIT_OPERATION_CACHE_LOAD);
WARMUP_SAME_VALUE(abi::jit_operation::cache_store, CUPTI_ACTIVITY_JIT_OPERATION_CACHE_STORE);
WARMUP_SAME_VALUE(abi::jit_operation::compile, CUPTI_ACTIVITY_JIT_OPERATION_COMPILE);
WARMUP_SAME_VALUE(abi::thread_id_type::system, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
WARMUP_SAME_VALUE(abi::activity_attribute::per_thread_activity_buffer, CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER);
WARMUP_SAME_VALUE(abi::flush_forced, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
WARMUP_SAME_VALUE(abi::old_subscriber_name_min_len, CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN);
static_assert(std::is_same_v<abi::callback_id, CUpti_CallbackId>);
// Each enumeration as wide as CUPTI's.
static_assert(sizeof(abi::result) == sizeof(CUptiResult) && sizeof(abi::activity_kind) == sizeof(CUpti_ActivityKind) &&
              sizeof(abi::overhead_kind) == sizeof(CUpti_ActivityOverheadKind) &&
              sizeof(abi::object_kind) == sizeof(CUpti_ActivityObjectKind) &&
              sizeof(abi::jit_operation) == sizeof(CUpti_ActivityJitOperationType) &&
              sizeof(abi::callback_site) == sizeof(CUpti_ApiCallbackSite) &&
              sizeof(abi::callback_domain) == sizeof(CUpti_CallbackDomain) &&
              sizeof(abi::thread_id_type) == sizeof(CUpti_ActivityThreadIdType) &&
              sizeof(abi::activity_attribute) == sizeof(CUpti_ActivityAttribute));

// The driver calls' ids.
#define WARMUP_SAME_CBID(call) WARMUP_SAME_VALUE(abi::cbid_##call, CUPTI_DRIVER_TRACE_CBID_##call)
WARMUP_SAME_CBID(cuInit);
WARMUP_SAME_CBID(cuCtxCreate);
WARMUP_SAME_CBID(cuCtxSynchronize);
WARMUP_SAME_CBID(cuModuleLoad);
WARMUP_SAME_CBID(cuModuleLoadData);
WARMUP_SAME_CBID(cuModuleLoadDataEx);
WARMUP_SAME_CBID(cuModuleLoadFatBinary);
WARMUP_SAME_CBID(cuMemAlloc);
WARMUP_SAME_CBID(cuMemAllocPitch);
WARMUP_SAME_CBID(cuMemAllocHost);
WARMUP_SAME_CBID(cuMemHostAlloc);
WARMUP_SAME_CBID(cuEventSynchronize);
WARMUP_SAME_CBID(cuStreamSynchronize);
WARMUP_SAME_CBID(cuCtxCreate_v2);
WARMUP_SAME_CBID(cuMemAlloc_v2);
WARMUP_SAME_CBID(cuMemAllocPitch_v2);
WARMUP_SAME_CBID(cuMemHostAlloc_v2);
WARMUP_SAME_CBID(cuMemAllocHost_v2);
WARMUP_SAME_CBID(cuMemHostRegister);
WARMUP_SAME_CBID(cuMemAllocManaged);
WARMUP_SAME_CBID(cuMemHostRegister_v2);
WARMUP_SAME_CBID(cuDevicePrimaryCtxRetain);
WARMUP_SAME_CBID(cuStreamSynchronize_ptsz);
WARMUP_SAME_CBID(cuMemCreate);
WARMUP_SAME_CBID(cuMemAllocAsync);
WARMUP_SAME_CBID(cuMemAllocAsync_ptsz);
WARMUP_SAME_CBID(cuMemAllocFromPoolAsync);
WARMUP_SAME_CBID(cuMemAllocFromPoolAsync_ptsz);
WARMUP_SAME_CBID(cuCtxCreate_v3);
WARMUP_SAME_CBID(cuModuleGetLoadingMode);
WARMUP_SAME_CBID(cuLibraryLoadData);
WARMUP_SAME_CBID(cuLibraryLoadFromFile);
WARMUP_SAME_CBID(cuCtxCreate_v4);
WARMUP_SAME_CBID(cuCtxSynchronize_v2);
WARMUP_SAME_CBID(cuMemsetD8Async);
WARMUP_SAME_CBID(cuMemsetD32Async);
WARMUP_SAME_CBID(cuMemcpyHtoDAsync_v2);
WARMUP_SAME_CBID(cuMemcpyDtoHAsync_v2);
WARMUP_SAME_CBID(cuMemcpyDtoDAsync_v2);
WARMUP_SAME_CBID(cuMemcpyAsync);
WARMUP_SAME_CBID(cuLaunchKernel);
WARMUP_SAME_CBID(cuLaunchKernel_ptsz);
WARMUP_SAME_CBID(cuLaunchCooperativeKernel);
WARMUP_SAME_CBID(cuLaunchCooperativeKernel_ptsz);
WARMUP_SAME_CBID(cuLaunchKernelEx);
WARMUP_SAME_CBID(cuLaunchKernelEx_ptsz);

// The records and structures, field by field.
WARMUP_SAME_RECORD(abi::activity, CUpti_Activity);
WARMUP_SAME_FIELD(abi::activity, kind, CUpti_Activity, kind);

WARMUP_SAME_RECORD(abi::activity_api, CUpti_ActivityAPI);
WARMUP_SAME_FIELD(abi::activity_api, kind, CUpti_ActivityAPI, kind);
WARMUP_SAME_FIELD(abi::activity_api, cbid, CUpti_ActivityAPI, cbid);
WARMUP_SAME_FIELD(abi::activity_api, start, CUpti_ActivityAPI, start);
WARMUP_SAME_FIELD(abi::activity_api, end, CUpti_ActivityAPI, end);
WARMUP_SAME_FIELD(abi::activity_api, process_id, CUpti_ActivityAPI, processId);
WARMUP_SAME_FIELD(abi::activity_api, thread_id, CUpti_ActivityAPI, threadId);
WARMUP_SAME_FIELD(abi::activity_api, correlation_id, CUpti_ActivityAPI, correlationId);
WARMUP_SAME_FIELD(abi::activity_api, return_value, CUpti_ActivityAPI, returnValue);

WARMUP_SAME_RECORD(abi::object_kind_id, CUpti_ActivityObjectKindId);
WARMUP_SAME_FIELD(abi::object_kind_id, pt.process_id, CUpti_ActivityObjectKindId, pt.processId);
WARMUP_SAME_FIELD(abi::object_kind_id, pt.thread_id, CUpti_ActivityObjectKindId, pt.threadId);
WARMUP_SAME_FIELD(abi::object_kind_id, dcs.stream_id, CUpti_ActivityObjectKindId, dcs.streamId);

WARMUP_SAME_RECORD(abi::activity_overhead3, CUpti_ActivityOverhead3);
WARMUP_SAME_FIELD(abi::activity_overhead3, kind, CUpti_ActivityOverhead3, kind);
WARMUP_SAME_FIELD(abi::activity_overhead3, overhead, CUpti_ActivityOverhead3, overheadKind);
WARMUP_SAME_FIELD(abi::activity_overhead3, object, CUpti_ActivityOverhead3, objectKind);
WARMUP_SAME_FIELD(abi::activity_overhead3, object_id, CUpti_ActivityOverhead3, objectId);
WARMUP_SAME_FIELD(abi::activity_overhead3, start, CUpti_ActivityOverhead3, start);
WARMUP_SAME_FIELD(abi::activity_overhead3, end, CUpti_ActivityOverhead3, end);
WARMUP_SAME_FIELD(abi::activity_overhead3, correlation_id, CUpti_ActivityOverhead3, correlationId);
WARMUP_SAME_FIELD(abi::activity_overhead3, overhead_data, CUpti_ActivityOverhead3, overheadData);

WARMUP_SAME_RECORD(abi::activity_jit2, CUpti_ActivityJit2);
WARMUP_SAME_FIELD(abi::activity_jit2, kind, CUpti_ActivityJit2, kind);
WARMUP_SAME_FIELD(abi::activity_jit2, entry_type, CUpti_ActivityJit2, jitEntryType);
WARMUP_SAME_FIELD(abi::activity_jit2, operation, CUpti_ActivityJit2, jitOperationType);
WARMUP_SAME_FIELD(abi::activity_jit2, device_id, CUpti_ActivityJit2, deviceId);
WARMUP_SAME_FIELD(abi::activity_jit2, start, CUpti_ActivityJit2, start);
WARMUP_SAME_FIELD(abi::activity_jit2, end, CUpti_ActivityJit2, end);
WARMUP_SAME_FIELD(abi::activity_jit2, correlation_id, CUpti_ActivityJit2, correlationId);
WARMUP_SAME_FIELD(abi::activity_jit2, operation_correlation_id, CUpti_ActivityJit2, jitOperationCorrelationId);
WARMUP_SAME_FIELD(abi::activity_jit2, cache_size, CUpti_ActivityJit2, cacheSize);
WARMUP_SAME_FIELD(abi::activity_jit2, cache_path, CUpti_ActivityJit2, cachePath);
WARMUP_SAME_FIELD(abi::activity_jit2, process_id, CUpti_ActivityJit2, processId);
WARMUP_SAME_FIELD(abi::activity_jit2, thread_id, CUpti_ActivityJit2, threadId);

WARMUP_SAME_RECORD(abi::activity_external_correlation, CUpti_ActivityExternalCorrelation);
WARMUP_SAME_FIELD(abi::activity_external_correlation, kind, CUpti_ActivityExternalCorrelation, kind);
WARMUP_SAME_FIELD(abi::activity_external_correlation, ext_kind, CUpti_ActivityExternalCorrelation, externalKind);
WARMUP_SAME_FIELD(abi::activity_external_correlation, external_id, CUpti_ActivityExternalCorrelation, externalId);
WARMUP_SAME_FIELD(abi::activity_external_correlation, correlation_id, CUpti_ActivityExternalCorrelation, correlationId);

// The device's work: only the interval and the launching call's id are read, at offsets every
// record version CUPTI 12.5 to 13.x hands over shares.
#define WARMUP_SAME_WORK(record, corr_at)                                                                 \
  static_assert(offsetof(record, start) == abi::device_work_start_at && sizeof(record::start) == 8);     \
  static_assert(offsetof(record, end) == abi::device_work_end_at && sizeof(record::end) == 8);           \
  static_assert(offsetof(record, correlationId) == corr_at && sizeof(record::correlationId) == 4)
WARMUP_SAME_WORK(CUpti_ActivityKernel9, abi::device_work_layouts[0].correlation_at);
WARMUP_SAME_WORK(CUpti_ActivityMemcpy5, abi::device_work_layouts[1].correlation_at);
WARMUP_SAME_WORK(CUpti_ActivityMemset4, abi::device_work_layouts[2].correlation_at);
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
WARMUP_SAME_WORK(CUpti_ActivityKernel10, abi::device_work_layouts[0].correlation_at);
WARMUP_SAME_WORK(CUpti_ActivityMemcpy6, abi::device_work_layouts[1].correlation_at);
#endif
static_assert(abi::device_work_layouts[0].kind == abi::activity_kind::concurrent_kernel &&
              abi::device_work_layouts[1].kind == abi::activity_kind::memcpy &&
              abi::device_work_layouts[2].kind == abi::activity_kind::memset);

WARMUP_SAME_RECORD(abi::callback_data, CUpti_CallbackData);
WARMUP_SAME_FIELD(abi::callback_data, site, CUpti_CallbackData, callbackSite);
WARMUP_SAME_FIELD(abi::callback_data, function_name, CUpti_CallbackData, functionName);
WARMUP_SAME_FIELD(abi::callback_data, function_params, CUpti_CallbackData, functionParams);
WARMUP_SAME_FIELD(abi::callback_data, function_return_value, CUpti_CallbackData, functionReturnValue);
WARMUP_SAME_FIELD(abi::callback_data, symbol_name, CUpti_CallbackData, symbolName);
WARMUP_SAME_FIELD(abi::callback_data, context, CUpti_CallbackData, context);
WARMUP_SAME_FIELD(abi::callback_data, context_uid, CUpti_CallbackData, contextUid);
WARMUP_SAME_FIELD(abi::callback_data, correlation_data, CUpti_CallbackData, correlationData);
WARMUP_SAME_FIELD(abi::callback_data, correlation_id, CUpti_CallbackData, correlationId);

#if defined(CUpti_SubscriberParams_STRUCT_SIZE)  // CUPTI 13
WARMUP_SAME_RECORD(abi::subscriber_params, CUpti_SubscriberParams);
WARMUP_SAME_FIELD(abi::subscriber_params, struct_size, CUpti_SubscriberParams, structSize);
WARMUP_SAME_FIELD(abi::subscriber_params, subscriber_name, CUpti_SubscriberParams, subscriberName);
WARMUP_SAME_FIELD(abi::subscriber_params, old_subscriber_name, CUpti_SubscriberParams, oldSubscriberName);
WARMUP_SAME_FIELD(abi::subscriber_params, old_subscriber_size, CUpti_SubscriberParams, oldSubscriberSize);
WARMUP_SAME_VALUE(abi::subscriber_params_struct_size, CUpti_SubscriberParams_STRUCT_SIZE);
WARMUP_SAME_FUNCTION(cuptiSubscribe_v2);
#endif

// The callbacks' types, and the functions taken with dlsym.
static_assert(same_abi<abi::callback_fn, CUpti_CallbackFunc>::value);
static_assert(same_abi<abi::timestamp_fn, CUpti_TimestampCallbackFunc>::value);
static_assert(same_abi<abi::buffer_requested_fn, CUpti_BuffersCallbackRequestFunc>::value);
static_assert(same_abi<abi::buffer_completed_fn, CUpti_BuffersCallbackCompleteFunc>::value);
WARMUP_SAME_FUNCTION(cuptiGetVersion);
WARMUP_SAME_FUNCTION(cuptiGetResultString);
WARMUP_SAME_FUNCTION(cuptiSubscribe);
WARMUP_SAME_FUNCTION(cuptiUnsubscribe);
WARMUP_SAME_FUNCTION(cuptiEnableCallback);
WARMUP_SAME_FUNCTION(cuptiSetThreadIdType);
WARMUP_SAME_FUNCTION(cuptiGetTimestamp);
WARMUP_SAME_FUNCTION(cuptiActivityRegisterTimestampCallback);
WARMUP_SAME_FUNCTION(cuptiActivityRegisterCallbacks);
WARMUP_SAME_FUNCTION(cuptiActivityEnable);
WARMUP_SAME_FUNCTION(cuptiActivityDisable);
WARMUP_SAME_FUNCTION(cuptiActivityGetNextRecord);
WARMUP_SAME_FUNCTION(cuptiActivityGetNumDroppedRecords);
WARMUP_SAME_FUNCTION(cuptiActivityFlushAll);
WARMUP_SAME_FUNCTION(cuptiActivitySetAttribute);
#if CUPTI_API_VERSION >= 23
WARMUP_SAME_FUNCTION(cuptiActivityEnableDriverApi);
#endif
WARMUP_SAME_FUNCTION(cuptiActivityPushExternalCorrelationId);
WARMUP_SAME_FUNCTION(cuptiActivityPopExternalCorrelationId);

// The checker itself can fail: a wrong width, a wrong pointee and a wrong arity are told apart.
static_assert(!same_abi<std::uint64_t, std::uint32_t>::value);
static_assert(!same_abi<abi::result (*)(std::uint64_t*), CUptiResult (*)(std::uint32_t*)>::value);
static_assert(!same_abi<abi::result (*)(), CUptiResult (*)(std::uint32_t*)>::value);
}  // namespace

int main() {
  std::printf("warmup's CUPTI declarations match CUPTI %u's headers: values, records, callbacks and functions\n",
              static_cast<unsigned>(CUPTI_API_VERSION));
  return 0;
}
#else
int main() {
  std::printf("skipped: no CUPTI headers (cupti_activity.h) on this build's include path\n");
  return 77;
}
#endif
