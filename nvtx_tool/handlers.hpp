// What the tool's handlers share: a slot of NVTX's function tables written, the attributes as the
// next tool knows them, and the two sets of handlers (range_handlers.cpp, pass_on_handlers.cpp).
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ranges.hpp"

namespace warmup_nvtx {

/// One module's function table of one NVTX instance, as NVTX hands it to its tool.
struct function_table {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  /// Writes `f` in the slot of `id`, where the table has that slot.
  void set(unsigned id, NvtxFunctionPointer f) const noexcept {
    if (id < size && table[id] != nullptr) *table[id] = f;
  }
};

template <class F>
NvtxFunctionPointer as_pointer(F f) noexcept {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

inline constexpr std::size_t attributes_with_message = offsetof(nvtxEventAttributes_t, message) + sizeof(nvtxMessageValue_t);

/// The attributes as the next tool knows them: its handle in place of a registered string.
inline const nvtxEventAttributes_t* for_next(const nvtxEventAttributes_t* a, nvtxEventAttributes_t& copy) noexcept {
  if (a == nullptr || a->size < attributes_with_message || a->messageType != NVTX_MESSAGE_TYPE_REGISTERED) return a;
  copy = nvtxEventAttributes_t{};
  std::memcpy(&copy, a, std::min<std::size_t>(a->size, sizeof copy));
  copy.size = static_cast<std::uint16_t>(std::min<std::size_t>(a->size, sizeof copy));
  const registered* r = registered_of(a->message.registered);
  copy.message.registered = r != nullptr ? r->next : nullptr;
  return &copy;
}

/// Writes the handlers of ranges, domains and registered strings into `t`, a table of `module`.
void install_range_handlers(NvtxCallbackModule module, const function_table& t) noexcept;
/// Writes the handlers that only pass a call on to the next tool into `t`, a table of `module`.
void install_pass_on_handlers(NvtxCallbackModule module, const function_table& t) noexcept;

}  // namespace warmup_nvtx
