/// @file
/// @brief NVTX as a scope sees it: a range pushed and popped where a tool is attached, and
/// nothing, not even NVTX's header, otherwise. The domain, its categories and the calls into
/// NVTX are the runtime's (detail/runtime/nvtx-inl.hpp): a file that measures does not compile
/// NVTX's initialisation code.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>
#include <string>

#include "warmup/config.hpp"
#include "warmup/op.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The library's NVTX domain (an `nvtxDomainHandle_t`) where a tool such as Nsight Systems is
/// attached; null where none is, as NVTX then records nothing. Set once, as this copy of the
/// library starts (before its first site), and never changed: NVTX picks its tool at its
/// initialisation.
inline std::atomic<void*> nvtx_tool_domain{nullptr};

/// A site's NVTX message: a registered string (an `nvtxStringHandle_t`) when a tool is attached
/// (the hot path then passes a handle, never a string), the plain name otherwise. NVTX takes C
/// strings: a NUL inside a name is written as the two characters "\0", so that "a\0b" and
/// "a\0c" stay two names in Nsight rather than both "a".
struct nvtx_name {
  void* handle = nullptr;
  const char* ascii = nullptr;
  std::string escaped;  ///< empty unless the name holds a NUL

  void set(const std::string& name) noexcept;
};

/// The range of call `call` of a site of kind `k`, in the library's domain: category = the
/// kind, the first call in red, payload = the call index (detail/runtime/nvtx-inl.hpp).
void nvtx_push_attached(const nvtx_name& name, op_kind k, std::uint64_t call) noexcept;
void nvtx_pop_attached() noexcept;

/// Returns whether a range was pushed, for nvtx_pop: one load and a branch with no tool.
WARMUP_HOT_INLINE bool nvtx_push(const nvtx_name& name, op_kind k, std::uint64_t call) noexcept {
  if (nvtx_tool_domain.load(std::memory_order_relaxed) == nullptr) return false;
  nvtx_push_attached(name, k, call);
  return true;
}

WARMUP_HOT_INLINE void nvtx_pop(bool pushed) noexcept {
  if (pushed) nvtx_pop_attached();
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
