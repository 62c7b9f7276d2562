// The capture tool: NVTX calls nvtx_capture_initialize with an export table through which a
// tool installs its own function for each NVTX entry point.
#include "nvtx_capture.hpp"

#include <nvtx3/nvToolsExt.h>

#include <deque>
#include <map>
#include <mutex>

namespace nvtx_capture {
namespace {

struct domain_t {
  std::string name;
};
struct store_t {
  std::mutex m;
  bool attached = false;
  std::deque<domain_t> domains;
  std::deque<std::string> strings;
  std::map<std::string, std::vector<std::pair<std::uint32_t, std::string>>> categories;
  std::vector<event> events;
};
store_t& store() {
  static store_t* s = new store_t;  // used from NVTX calls made during static initialisation
  return *s;
}

std::string domain_name(nvtxDomainHandle_t d) {
  return d == nullptr ? std::string("<default>") : reinterpret_cast<domain_t*>(d)->name;
}

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  std::lock_guard<std::mutex> l(store().m);
  store().domains.push_back({name});
  return reinterpret_cast<nvtxDomainHandle_t>(&store().domains.back());
}
nvtxStringHandle_t NVTX_API register_string(nvtxDomainHandle_t, const char* s) {
  // A tool may decline to register a string (NVTX's own stub returns no handle): these names,
  // as such a tool would.
  if (std::string(s).rfind(declined_prefix, 0) == 0) return nullptr;
  std::lock_guard<std::mutex> l(store().m);
  store().strings.emplace_back(s);
  return reinterpret_cast<nvtxStringHandle_t>(&store().strings.back());
}
void NVTX_API name_category(nvtxDomainHandle_t d, std::uint32_t id, const char* name) {
  std::lock_guard<std::mutex> l(store().m);
  store().categories[domain_name(d)].emplace_back(id, name);
}
int NVTX_API push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  // The payload as a viewer reads it: only where its type says what it is.
  const std::uint64_t payload = a->payloadType == NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 ? a->payload.ullValue : 0;
  event e{event::push, domain_name(d), {}, a->category, a->color, payload, false};
  // A tool reads no field past the size the caller gave (nvtx_tool/site_lookup.cpp's message_of too).
  if (a->size < NVTX_EVENT_ATTRIB_STRUCT_SIZE) {
    e.message = "(attributes too small)";
  } else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
    e.registered_message = true;
    e.message = a->message.registered == nullptr ? "(no handle)"
                                                 : *reinterpret_cast<const std::string*>(a->message.registered);
  } else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII) {
    e.message = a->message.ascii;
  }
  std::lock_guard<std::mutex> l(store().m);
  store().events.push_back(std::move(e));
  return 0;
}
int NVTX_API pop(nvtxDomainHandle_t d) {
  std::lock_guard<std::mutex> l(store().m);
  store().events.push_back({event::pop, domain_name(d), {}, 0, 0, 0, false});
  return 0;
}

}  // namespace
}  // namespace nvtx_capture

// Called by NVTX through InitializeInjectionNvtx2_fnptr (nvtx_capture_hook.cpp).
extern "C" int nvtx_capture_initialize(NvtxGetExportTableFunc_t get_table) {
  using namespace nvtx_capture;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr) return 0;
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || table == nullptr) return 0;
  const auto set = [&](unsigned id, auto fn) {
    if (id < size) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
  };
  set(NVTX_CBID_CORE2_DomainCreateA, &domain_create);
  set(NVTX_CBID_CORE2_DomainRegisterStringA, &register_string);
  set(NVTX_CBID_CORE2_DomainNameCategoryA, &name_category);
  set(NVTX_CBID_CORE2_DomainRangePushEx, &push);
  set(NVTX_CBID_CORE2_DomainRangePop, &pop);
  store().attached = true;
  return 1;
}

namespace nvtx_capture {

bool attached() { return store().attached; }

std::vector<event> take() {
  std::lock_guard<std::mutex> l(store().m);
  std::vector<event> out;
  out.swap(store().events);
  return out;
}

std::vector<std::pair<std::uint32_t, std::string>> categories(const std::string& domain) {
  std::lock_guard<std::mutex> l(store().m);
  return store().categories[domain];
}

}  // namespace nvtx_capture
