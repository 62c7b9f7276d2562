// NVTX's default domain, the domains and registered strings the program makes, and the handle
// behind which each is found again (handles.hpp).
#include "handles.hpp"

#include <string>
#include <utility>

#include "names.hpp"

namespace warmup_nvtx {

domains_and_strings& handle_registry() {
  static domains_and_strings* h = new domains_and_strings;
  return *h;
}

domain& make_default_domain() {
  static domain* d = [] {
    auto* x = new domain;
    x->counted = domain_counted(config().domains, "", true);
    default_domain_made.store(x, std::memory_order_release);
    return x;
  }();
  return *d;
}

domain& domain_of(nvtxDomainHandle_t h) noexcept {
  if (h == nullptr) return default_domain();
  domain* d = handle_registry().domain_handles.find(reinterpret_cast<std::uintptr_t>(h));
  return d != nullptr ? *d : default_domain();
}

domain* make_domain(std::string name) {
  domains_and_strings& h = handle_registry();
  std::lock_guard<std::mutex> lock(h.m);
  domain& d = h.domains.emplace_back();
  const std::uintptr_t handle = h.domain_handles.add(&d);
  if (handle == 0) return nullptr;  // the object stays, unused: handles are never taken back
  d.handle = reinterpret_cast<nvtxDomainHandle_t>(handle);
  d.counted = domain_counted(config().domains, name, false);
  d.own = name == "warmup";
  d.prefix = domain_prefix(name);
  d.name = std::move(name);
  return &d;
}

registered* make_registered(domain& d, std::string text) {
  domains_and_strings& h = handle_registry();
  std::lock_guard<std::mutex> lock(h.m);
  registered& r = h.strings.emplace_back();
  r.owner = &d;
  site_name(r.site, d.prefix, text, config().varying);
  r.text = std::move(text);
  const std::uintptr_t handle = h.string_handles.add(&r);
  if (handle == 0) return nullptr;
  r.handle = reinterpret_cast<nvtxStringHandle_t>(handle);
  return &r;
}

const registered* registered_of(nvtxStringHandle_t h) noexcept {
  return h == nullptr ? nullptr : handle_registry().string_handles.find(reinterpret_cast<std::uintptr_t>(h));
}

}  // namespace warmup_nvtx
