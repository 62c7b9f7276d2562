// The tool's settings (ranges.hpp's `settings`): WARMUP_NVTX_DOMAINS, WARMUP_NVTX_VARYING and
// WARMUP_NVTX_DEVICE, read once, at the first NVTX call of the process, each by its row of the
// library's setting table (settings.hpp), as the library reads its own.
#include <string_view>

#include <warmup/detail/runtime/environment.hpp>

#include "names.hpp"
#include "ranges.hpp"

namespace warmup_nvtx {

settings& config() {
  namespace wd = cuda_warmup::detail;
  static settings* s = [] {
    auto* c = new settings;
    const char* d = wd::read_setting<wd::setting::nvtx_domains>().text;
    c->domains = d != nullptr ? d : "all";
    const char* v = wd::read_setting<wd::setting::nvtx_varying>().text;
    c->varying = comma_list(v != nullptr ? std::string_view{v} : default_varying);
    wd::setting_value device = wd::read_setting<wd::setting::nvtx_device>();
    c->device = device.value == 1;
    c->device_refused = std::move(device.message);
    return c;
  }();
  return *s;
}

}  // namespace warmup_nvtx
