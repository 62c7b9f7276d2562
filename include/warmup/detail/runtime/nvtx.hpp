/// @file
/// @brief NVTX emission: one `warmup` domain, a category per operation kind, registered names;
/// the calls a scope makes into NVTX where a tool is attached (detail/record/nvtx.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/detail/runtime/clock.hpp"
#include "warmup/detail/record/nvtx.hpp"
#include "warmup/op.hpp"

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
/// library makes it as it starts (detail/runtime/runtime.hpp), before `main` and before user
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

inline nvtx_state& nvtx() noexcept {
  static nvtx_state state;
  return state;
}

WARMUP_DETAIL_RUNTIME void nvtx_name::set(const std::string& name) noexcept {
  ascii = name.c_str();
  if (name.find('\0') != std::string::npos) {
    WARMUP_TRY {
      for (const char c : name) {
        if (c == '\0') escaped += "\\0";
        else escaped += c;
      }
      ascii = escaped.c_str();
    } WARMUP_CATCH_ALL {
    }
  }
  handle = nvtxDomainRegisterStringA(nvtx().domain, ascii);
}

WARMUP_DETAIL_RUNTIME void nvtx_push_attached(const nvtx_name& name, op_kind k, std::uint64_t call) noexcept {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = nvtx_category(k);
  a.colorType = NVTX_COLOR_ARGB;
  a.color = call == 0 ? first_call_color : kind_table[static_cast<std::size_t>(k)].nvtx_colour;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = call;
  if (name.handle != nullptr) {
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = static_cast<nvtxStringHandle_t>(name.handle);
  } else {
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name.ascii;
  }
  nvtxDomainRangePushEx(nvtx().domain, &a);
}

WARMUP_DETAIL_RUNTIME void nvtx_pop_attached() noexcept { nvtxDomainRangePop(nvtx().domain); }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
