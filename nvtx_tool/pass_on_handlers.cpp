// The handlers of the NVTX calls the tool only passes on, where a next tool is attached: marks,
// names of categories, threads and resources, a domain's end, NVTX's own initialisation.
#include "handlers.hpp"
#include "next_tool.hpp"
#include "ranges.hpp"

namespace warmup_nvtx {
namespace {

// A category does not split a site.
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

}  // namespace

void install_pass_on_handlers(NvtxCallbackModule module, const function_table& t) noexcept {
  if (module == NVTX_CB_MODULE_CORE) {
    t.set(NVTX_CBID_CORE_MarkEx, as_pointer(&mark_ex));
    t.set(NVTX_CBID_CORE_MarkA, as_pointer(&mark_a));
    t.set(NVTX_CBID_CORE_MarkW, as_pointer(&mark_w));
    t.set(NVTX_CBID_CORE_NameCategoryA, as_pointer(&name_category_a));
    t.set(NVTX_CBID_CORE_NameCategoryW, as_pointer(&name_category_w));
    t.set(NVTX_CBID_CORE_NameOsThreadA, as_pointer(&name_thread_a));
    t.set(NVTX_CBID_CORE_NameOsThreadW, as_pointer(&name_thread_w));
  } else {
    t.set(NVTX_CBID_CORE2_DomainMarkEx, as_pointer(&domain_mark));
    t.set(NVTX_CBID_CORE2_DomainNameCategoryA, as_pointer(&domain_name_category_a));
    t.set(NVTX_CBID_CORE2_DomainNameCategoryW, as_pointer(&domain_name_category_w));
    t.set(NVTX_CBID_CORE2_DomainResourceCreate, as_pointer(&resource_create));
    t.set(NVTX_CBID_CORE2_DomainResourceDestroy, as_pointer(&resource_destroy));
    t.set(NVTX_CBID_CORE2_DomainDestroy, as_pointer(&domain_destroy));
    t.set(NVTX_CBID_CORE2_Initialize, as_pointer(&initialize));
  }
}

}  // namespace warmup_nvtx
