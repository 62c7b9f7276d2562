/// @file
/// @brief The NVTX calls detail/record/nvtx.hpp declares,
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/nvtx_domain.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

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
