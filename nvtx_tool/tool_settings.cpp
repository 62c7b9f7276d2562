// The tool's settings (ranges.hpp's `settings`): WARMUP_NVTX_DOMAINS, WARMUP_NVTX_VARYING and
// WARMUP_NVTX_DEVICE, read once, at the first NVTX call of the process.
#include <cstdlib>
#include <string_view>

#include "names.hpp"
#include "ranges.hpp"

namespace warmup_nvtx {

settings& config() {
  static settings* s = [] {
    auto* c = new settings;
    const char* d = std::getenv("WARMUP_NVTX_DOMAINS");
    c->domains = d != nullptr ? d : "all";
    const char* v = std::getenv("WARMUP_NVTX_VARYING");
    c->varying = comma_list(v != nullptr ? std::string_view{v} : default_varying);
    const char* device = std::getenv("WARMUP_NVTX_DEVICE");
    c->device = device != nullptr ? device : "";
    return c;
  }();
  return *s;
}

}  // namespace warmup_nvtx
