/// @file
/// @brief NVTX emission: one `warmup` domain, a category per operation kind, registered names;
/// the calls a scope makes into NVTX where a tool is attached (detail/record/nvtx.hpp declares
/// them, nvtx-inl.hpp defines them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/record/nvtx.hpp"
#include "warmup/op.hpp"
#include "warmup/settings.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// ARGB: every site's first call is drawn in red so it stands apart in Nsight Systems' timeline;
/// later calls in their kind's colour (its row in op.hpp's `kind_table`).
inline constexpr std::uint32_t first_call_color = 0xFFE0321Eu;

/// NVTX category ids are op_kind + 1: category 0 means "none" to NVTX.
constexpr std::uint32_t nvtx_category(op_kind k) noexcept {
  return static_cast<std::uint32_t>(k) + 1;
}

/// The library's NVTX state, made once. NVTX picks its tool at the first NVTX call and its lazy
/// initialisation races when that first call comes from several threads at once, so the
/// library makes it as it starts (detail/runtime/compiled_once.hpp), before `main` and before user
/// threads; the time it took is reported apart from every measurement. With no tool attached
/// NVTX hands back no domain, and scopes then make no NVTX call at all.
struct nvtx_state {
  nvtxDomainHandle_t domain = nullptr;
  std::uint64_t init_ns = 0;

  nvtx_state() noexcept {
    const auto t0 = clock::now();
    nvtxInitialize(nullptr);
    domain = nvtxDomainCreateA("warmup");
    for (std::size_t k = 0; k < op_kind_count; ++k) {
      const std::string name{to_string(static_cast<op_kind>(k))};
      nvtxDomainNameCategoryA(domain, nvtx_category(static_cast<op_kind>(k)), name.c_str());
    }
    init_ns = ns_between(t0, clock::now());
    nvtx_tool_domain.store(domain, std::memory_order_release);
  }
};

/// Where the NVTX tool's settings are set (WARMUP_NVTX_*: docs/nvtx-tool.md) but NVTX chose no
/// tool or another one (a program started without `warmup-report run`, or under Nsight alone),
/// says so once: the program's own NVTX ranges are not measured. The tool marks itself with the
/// symbol `warmup_nvtx_tool`; the library NVTX loaded is asked for it, never loaded here.
inline void say_if_nvtx_tool_not_chosen() noexcept {
  bool set = false;
  for (const setting_row& r : setting_table)  // a literal's view: NUL-terminated
    set = set || (r.reader == read_by::nvtx_tool && std::getenv(r.variable.data()) != nullptr);
  if (!set) return;
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  if (path != nullptr && *path != '\0') {
    if (void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD)) {
      const bool ours = dlsym(h, "warmup_nvtx_tool") != nullptr;
      dlclose(h);
      if (ours) return;
    }
  }
  WARMUP_TRY {
    notice_board().raise(notice_kind::nvtx_not_chosen,
                         std::string("WARMUP_NVTX_* is set, but NVTX's tool is ") +
                             (path != nullptr && *path != '\0' ? "'" + printable(path, 200) + "'" : std::string("none")) +
                             ", not warmup's NVTX tool: the program's NVTX ranges are not measured "
                             "(start it with `warmup-report run -- PROGRAM`; docs/nvtx-tool.md)");
  } WARMUP_CATCH_ALL {
  }
}

inline nvtx_state& nvtx() noexcept {
  static nvtx_state state;
  return state;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
