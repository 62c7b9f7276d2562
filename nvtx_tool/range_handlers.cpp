// The handlers of NVTX's range calls (push/pop, start/end, with and without a domain) and of its
// domains and registered strings: each acts on the tool's bookkeeping (ranges.hpp), then passes
// the call on to the next tool where one is attached (next_tool.hpp).
#include <string>
#include <utility>

#include "handlers.hpp"
#include "names.hpp"
#include "next_tool.hpp"
#include "ranges.hpp"

namespace warmup_nvtx {
namespace {

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

}  // namespace

void install_range_handlers(NvtxCallbackModule module, const function_table& t) noexcept {
  if (module == NVTX_CB_MODULE_CORE) {
    t.set(NVTX_CBID_CORE_RangePushEx, as_pointer(&push_ex));
    t.set(NVTX_CBID_CORE_RangePushA, as_pointer(&push_a));
    t.set(NVTX_CBID_CORE_RangePushW, as_pointer(&push_w));
    t.set(NVTX_CBID_CORE_RangePop, as_pointer(&pop_default));
    t.set(NVTX_CBID_CORE_RangeStartEx, as_pointer(&start_ex));
    t.set(NVTX_CBID_CORE_RangeStartA, as_pointer(&start_a));
    t.set(NVTX_CBID_CORE_RangeStartW, as_pointer(&start_w));
    t.set(NVTX_CBID_CORE_RangeEnd, as_pointer(&end_default));
  } else {
    t.set(NVTX_CBID_CORE2_DomainRangePushEx, as_pointer(&domain_push));
    t.set(NVTX_CBID_CORE2_DomainRangePop, as_pointer(&domain_pop));
    t.set(NVTX_CBID_CORE2_DomainRangeStartEx, as_pointer(&domain_start));
    t.set(NVTX_CBID_CORE2_DomainRangeEnd, as_pointer(&domain_end));
    t.set(NVTX_CBID_CORE2_DomainCreateA, as_pointer(&domain_create_a));
    t.set(NVTX_CBID_CORE2_DomainCreateW, as_pointer(&domain_create_w));
    t.set(NVTX_CBID_CORE2_DomainRegisterStringA, as_pointer(&register_a));
    t.set(NVTX_CBID_CORE2_DomainRegisterStringW, as_pointer(&register_w));
  }
}

}  // namespace warmup_nvtx
