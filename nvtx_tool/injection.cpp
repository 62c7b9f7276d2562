// The entry point NVTX calls (InitializeInjectionNvtx2, found in the library that
// NVTX_INJECTION64_PATH names) and the handlers it installs: each NVTX call of the program, in
// every one of its NVTX instances, lands here. Ranges become warmup sites (ranges.hpp); every
// call is then passed on to WARMUP_NVTX_NEXT's tool where one is attached (next_tool.hpp).
#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "device_time.hpp"
#include "late_ranges.hpp"
#include "next_tool.hpp"
#include "ranges.hpp"
#include "run_status.hpp"

namespace warmup_nvtx {
namespace {

constexpr std::size_t attributes_with_message = offsetof(nvtxEventAttributes_t, message) + sizeof(nvtxMessageValue_t);

/// The attributes as the next tool knows them: its handle in place of a registered string.
const nvtxEventAttributes_t* for_next(const nvtxEventAttributes_t* a, nvtxEventAttributes_t& copy) noexcept {
  if (a == nullptr || a->size < attributes_with_message || a->messageType != NVTX_MESSAGE_TYPE_REGISTERED) return a;
  copy = nvtxEventAttributes_t{};
  std::memcpy(&copy, a, std::min<std::size_t>(a->size, sizeof copy));
  copy.size = static_cast<std::uint16_t>(std::min<std::size_t>(a->size, sizeof copy));
  const registered* r = registered_of(a->message.registered);
  copy.message.registered = r != nullptr ? r->next : nullptr;
  return &copy;
}

message text_message(const char* s) noexcept {
  message m;
  m.ascii = s;
  return m;
}

// ---- Ranges: push/pop and start/end, with and without a domain.
int NVTX_API domain_push(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  domain& d = domain_of(h);
  std::string buffer;
  const int depth = push(d, message_of(a, buffer));
  if (const auto f = next().in_core2<nvtxDomainRangePushEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangePushEx)) {
    nvtxEventAttributes_t copy;
    f(d.next, for_next(a, copy));
  }
  return depth;
}
int NVTX_API domain_pop(nvtxDomainHandle_t h) {
  domain& d = domain_of(h);
  const int depth = pop(d);
  if (const auto f = next().in_core2<nvtxDomainRangePop_impl_fntype>(NVTX_CBID_CORE2_DomainRangePop)) f(d.next);
  return depth;
}
int NVTX_API push_ex(const nvtxEventAttributes_t* a) {
  std::string buffer;
  const int depth = push(default_domain(), message_of(a, buffer));
  if (const auto f = next().in_core<nvtxRangePushEx_impl_fntype>(NVTX_CBID_CORE_RangePushEx)) {
    nvtxEventAttributes_t copy;
    f(for_next(a, copy));
  }
  return depth;
}
int NVTX_API push_a(const char* s) {
  const int depth = push(default_domain(), text_message(s));
  if (const auto f = next().in_core<nvtxRangePushA_impl_fntype>(NVTX_CBID_CORE_RangePushA)) f(s);
  return depth;
}
int NVTX_API push_w(const wchar_t* s) {
  std::string buffer;
  const int depth = push(default_domain(), wide_message(s, buffer));
  if (const auto f = next().in_core<nvtxRangePushW_impl_fntype>(NVTX_CBID_CORE_RangePushW)) f(s);
  return depth;
}
int NVTX_API pop_default() {
  const int depth = pop(default_domain());
  if (const auto f = next().in_core<nvtxRangePop_impl_fntype>(NVTX_CBID_CORE_RangePop)) f();
  return depth;
}

nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  domain& d = domain_of(h);
  nvtxRangeId_t next_id = 0;
  if (const auto f = next().in_core2<nvtxDomainRangeStartEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangeStartEx)) {
    nvtxEventAttributes_t copy;
    next_id = f(d.next, for_next(a, copy));
  }
  std::string buffer;
  return start(d, message_of(a, buffer), next_id);
}
void NVTX_API domain_end(nvtxDomainHandle_t h, nvtxRangeId_t id) {
  const nvtxRangeId_t next_id = end(id);
  if (const auto f = next().in_core2<nvtxDomainRangeEnd_impl_fntype>(NVTX_CBID_CORE2_DomainRangeEnd))
    f(domain_of(h).next, next_id);
}
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) {
  nvtxRangeId_t next_id = 0;
  if (const auto f = next().in_core<nvtxRangeStartEx_impl_fntype>(NVTX_CBID_CORE_RangeStartEx)) {
    nvtxEventAttributes_t copy;
    next_id = f(for_next(a, copy));
  }
  std::string buffer;
  return start(default_domain(), message_of(a, buffer), next_id);
}
nvtxRangeId_t NVTX_API start_a(const char* s) {
  nvtxRangeId_t next_id = 0;
  if (const auto f = next().in_core<nvtxRangeStartA_impl_fntype>(NVTX_CBID_CORE_RangeStartA)) next_id = f(s);
  return start(default_domain(), text_message(s), next_id);
}
nvtxRangeId_t NVTX_API start_w(const wchar_t* s) {
  nvtxRangeId_t next_id = 0;
  if (const auto f = next().in_core<nvtxRangeStartW_impl_fntype>(NVTX_CBID_CORE_RangeStartW)) next_id = f(s);
  std::string buffer;
  return start(default_domain(), wide_message(s, buffer), next_id);
}
void NVTX_API end_default(nvtxRangeId_t id) {
  const nvtxRangeId_t next_id = end(id);
  if (const auto f = next().in_core<nvtxRangeEnd_impl_fntype>(NVTX_CBID_CORE_RangeEnd)) f(next_id);
}

// ---- Domains and registered strings: the tool's handles, each holding the next tool's.
nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  domain* d = nullptr;
  try {
    d = make_domain(name != nullptr ? name : "");
  } catch (...) {
  }
  if (d == nullptr) return nullptr;  // out of memory: the default domain stands in
  if (const auto f = next().in_core2<nvtxDomainCreateA_impl_fntype>(NVTX_CBID_CORE2_DomainCreateA)) d->next = f(name);
  return d->handle;
}
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* name) {
  domain* d = nullptr;
  try {
    std::string utf8;
    append_utf8(utf8, name);
    d = make_domain(std::move(utf8));
  } catch (...) {
  }
  if (d == nullptr) return nullptr;
  if (const auto f = next().in_core2<nvtxDomainCreateW_impl_fntype>(NVTX_CBID_CORE2_DomainCreateW)) d->next = f(name);
  return d->handle;
}
nvtxStringHandle_t NVTX_API register_a(nvtxDomainHandle_t h, const char* s) {
  domain& d = domain_of(h);
  registered* r = nullptr;
  try {
    r = make_registered(d, s != nullptr ? s : "");
  } catch (...) {
  }
  if (r == nullptr) return nullptr;  // NVTX's way to decline a string: the range names none
  if (const auto f = next().in_core2<nvtxDomainRegisterStringA_impl_fntype>(NVTX_CBID_CORE2_DomainRegisterStringA))
    r->next = f(d.next, s);
  return r->handle;
}
nvtxStringHandle_t NVTX_API register_w(nvtxDomainHandle_t h, const wchar_t* s) {
  domain& d = domain_of(h);
  registered* r = nullptr;
  try {
    std::string utf8;
    append_utf8(utf8, s);
    r = make_registered(d, std::move(utf8));
  } catch (...) {
  }
  if (r == nullptr) return nullptr;
  if (const auto f = next().in_core2<nvtxDomainRegisterStringW_impl_fntype>(NVTX_CBID_CORE2_DomainRegisterStringW))
    r->next = f(d.next, s);
  return r->handle;
}

// ---- Passed on only, where a next tool is attached: marks, names of categories, threads and
// resources, a domain's end, NVTX's own initialisation. A category does not split a site.
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) {
  nvtxEventAttributes_t copy;
  if (const auto f = next().in_core<nvtxMarkEx_impl_fntype>(NVTX_CBID_CORE_MarkEx)) f(for_next(a, copy));
}
void NVTX_API mark_a(const char* s) {
  if (const auto f = next().in_core<nvtxMarkA_impl_fntype>(NVTX_CBID_CORE_MarkA)) f(s);
}
void NVTX_API mark_w(const wchar_t* s) {
  if (const auto f = next().in_core<nvtxMarkW_impl_fntype>(NVTX_CBID_CORE_MarkW)) f(s);
}
void NVTX_API name_category_a(std::uint32_t id, const char* s) {
  if (const auto f = next().in_core<nvtxNameCategoryA_impl_fntype>(NVTX_CBID_CORE_NameCategoryA)) f(id, s);
}
void NVTX_API name_category_w(std::uint32_t id, const wchar_t* s) {
  if (const auto f = next().in_core<nvtxNameCategoryW_impl_fntype>(NVTX_CBID_CORE_NameCategoryW)) f(id, s);
}
void NVTX_API name_thread_a(std::uint32_t id, const char* s) {
  if (const auto f = next().in_core<nvtxNameOsThreadA_impl_fntype>(NVTX_CBID_CORE_NameOsThreadA)) f(id, s);
}
void NVTX_API name_thread_w(std::uint32_t id, const wchar_t* s) {
  if (const auto f = next().in_core<nvtxNameOsThreadW_impl_fntype>(NVTX_CBID_CORE_NameOsThreadW)) f(id, s);
}
void NVTX_API domain_mark(nvtxDomainHandle_t h, const nvtxEventAttributes_t* a) {
  nvtxEventAttributes_t copy;
  if (const auto f = next().in_core2<nvtxDomainMarkEx_impl_fntype>(NVTX_CBID_CORE2_DomainMarkEx))
    f(domain_of(h).next, for_next(a, copy));
}
void NVTX_API domain_name_category_a(nvtxDomainHandle_t h, std::uint32_t id, const char* s) {
  if (const auto f = next().in_core2<nvtxDomainNameCategoryA_impl_fntype>(NVTX_CBID_CORE2_DomainNameCategoryA))
    f(domain_of(h).next, id, s);
}
void NVTX_API domain_name_category_w(nvtxDomainHandle_t h, std::uint32_t id, const wchar_t* s) {
  if (const auto f = next().in_core2<nvtxDomainNameCategoryW_impl_fntype>(NVTX_CBID_CORE2_DomainNameCategoryW))
    f(domain_of(h).next, id, s);
}
nvtxResourceHandle_t NVTX_API resource_create(nvtxDomainHandle_t h, nvtxResourceAttributes_t* a) {
  if (const auto f = next().in_core2<nvtxDomainResourceCreate_impl_fntype>(NVTX_CBID_CORE2_DomainResourceCreate))
    return f(domain_of(h).next, a);
  return nullptr;
}
void NVTX_API resource_destroy(nvtxResourceHandle_t r) {
  if (const auto f = next().in_core2<nvtxDomainResourceDestroy_impl_fntype>(NVTX_CBID_CORE2_DomainResourceDestroy)) f(r);
}
void NVTX_API domain_destroy(nvtxDomainHandle_t h) {
  // The tool's domain stays: a range may still name it.
  if (const auto f = next().in_core2<nvtxDomainDestroy_impl_fntype>(NVTX_CBID_CORE2_DomainDestroy)) f(domain_of(h).next);
}
void NVTX_API initialize(const void* reserved) {
  if (const auto f = next().in_core2<nvtxInitialize_impl_fntype>(NVTX_CBID_CORE2_Initialize)) f(reserved);
}

template <class F>
NvtxFunctionPointer as_pointer(F f) noexcept {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

/// Writes the handlers into one module's table of one NVTX instance; `all`: the pass-on-only
/// ones too.
bool install(const NvtxExportTableCallbacks* cb, NvtxCallbackModule module, bool all) noexcept {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (cb->GetModuleFunctionTable == nullptr || !cb->GetModuleFunctionTable(module, &table, &size) || table == nullptr)
    return false;
  const auto set = [&](unsigned id, NvtxFunctionPointer f) {
    if (id < size && table[id] != nullptr) *table[id] = f;
  };
  if (module == NVTX_CB_MODULE_CORE) {
    set(NVTX_CBID_CORE_RangePushEx, as_pointer(&push_ex));
    set(NVTX_CBID_CORE_RangePushA, as_pointer(&push_a));
    set(NVTX_CBID_CORE_RangePushW, as_pointer(&push_w));
    set(NVTX_CBID_CORE_RangePop, as_pointer(&pop_default));
    set(NVTX_CBID_CORE_RangeStartEx, as_pointer(&start_ex));
    set(NVTX_CBID_CORE_RangeStartA, as_pointer(&start_a));
    set(NVTX_CBID_CORE_RangeStartW, as_pointer(&start_w));
    set(NVTX_CBID_CORE_RangeEnd, as_pointer(&end_default));
    if (all) {
      set(NVTX_CBID_CORE_MarkEx, as_pointer(&mark_ex));
      set(NVTX_CBID_CORE_MarkA, as_pointer(&mark_a));
      set(NVTX_CBID_CORE_MarkW, as_pointer(&mark_w));
      set(NVTX_CBID_CORE_NameCategoryA, as_pointer(&name_category_a));
      set(NVTX_CBID_CORE_NameCategoryW, as_pointer(&name_category_w));
      set(NVTX_CBID_CORE_NameOsThreadA, as_pointer(&name_thread_a));
      set(NVTX_CBID_CORE_NameOsThreadW, as_pointer(&name_thread_w));
    }
  } else {
    set(NVTX_CBID_CORE2_DomainRangePushEx, as_pointer(&domain_push));
    set(NVTX_CBID_CORE2_DomainRangePop, as_pointer(&domain_pop));
    set(NVTX_CBID_CORE2_DomainRangeStartEx, as_pointer(&domain_start));
    set(NVTX_CBID_CORE2_DomainRangeEnd, as_pointer(&domain_end));
    set(NVTX_CBID_CORE2_DomainCreateA, as_pointer(&domain_create_a));
    set(NVTX_CBID_CORE2_DomainCreateW, as_pointer(&domain_create_w));
    set(NVTX_CBID_CORE2_DomainRegisterStringA, as_pointer(&register_a));
    set(NVTX_CBID_CORE2_DomainRegisterStringW, as_pointer(&register_w));
    if (all) {
      set(NVTX_CBID_CORE2_DomainMarkEx, as_pointer(&domain_mark));
      set(NVTX_CBID_CORE2_DomainNameCategoryA, as_pointer(&domain_name_category_a));
      set(NVTX_CBID_CORE2_DomainNameCategoryW, as_pointer(&domain_name_category_w));
      set(NVTX_CBID_CORE2_DomainResourceCreate, as_pointer(&resource_create));
      set(NVTX_CBID_CORE2_DomainResourceDestroy, as_pointer(&resource_destroy));
      set(NVTX_CBID_CORE2_DomainDestroy, as_pointer(&domain_destroy));
      set(NVTX_CBID_CORE2_Initialize, as_pointer(&initialize));
    }
  }
  return true;
}

void at_exit() {
  say_what_was_left();
  say_if_no_domain_counted();
}

/// In a forked child: a process of its own.
void in_child() noexcept {
  after_fork_in_child();
  run_status::after_fork_in_child();
  late::after_fork_in_child();
}

/// Once per process: the hooks at exit and fork. Registered at the first NVTX call, after
/// warmup's report at exit was (the library starts as this tool is loaded), so they run before it.
void once_per_process() noexcept {
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      run_status::start();  // before the handlers are installed: the first range is recorded
      late::watch_the_report();
      prepare();
      (void)config();
      (void)default_domain();
      (void)load_next();
      (void)std::atexit(&at_exit);
      device::start(config().device);  // after: its exit hook, which gives the last ranges their device time, runs first
      (void)pthread_atfork(nullptr, nullptr, &in_child);
    });
  } catch (...) {
  }
}

}  // namespace
}  // namespace warmup_nvtx

extern "C" {

/// Marks this library as warmup's NVTX tool: the library, in a program that measures too, looks
/// for it to tell whether NVTX chose this tool (detail/runtime/nvtx_domain.hpp).
__attribute__((visibility("default"))) extern const char warmup_nvtx_tool[] = "warmup NVTX tool";

/// NVTX's entry point, called once by each NVTX instance of the program (each shared object
/// built with NVTX's headers) at its first NVTX call, with that instance's export table.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace warmup_nvtx;
  if (get_table == nullptr) return 0;
  const auto* cb = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (cb == nullptr) return 0;
  once_per_process();
  const bool all = next().attached();
  if (!install(cb, NVTX_CB_MODULE_CORE, all) || !install(cb, NVTX_CB_MODULE_CORE2, all)) return 0;
  if (all) (void)attach_next(get_table);
  return 1;
}

}  // extern "C"
