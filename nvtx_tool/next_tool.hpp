// A second NVTX tool behind this one (WARMUP_NVTX_NEXT=<path>), handed every call this one gets,
// with its own handles for domains and registered strings: NVTX loads one tool only.
//
// The next tool attaches through an export table of this tool's making: the core modules'
// function tables are this tool's copies (what the next tool writes there, the handlers call),
// every other module the program's own.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace warmup_nvtx {

struct next_tool {
  NvtxFunctionPointer core[NVTX_CBID_CORE_SIZE] = {};
  NvtxFunctionPointer core2[NVTX_CBID_CORE2_SIZE] = {};
  NvtxFunctionPointer* core_slots[NVTX_CBID_CORE_SIZE] = {};
  NvtxFunctionPointer* core2_slots[NVTX_CBID_CORE2_SIZE] = {};
  NvtxInitializeInjectionNvtxFunc_t init = nullptr;
  std::string path;
  std::string failure;  ///< why the next tool is not attached, where WARMUP_NVTX_NEXT names one

  /// The next tool's function for `id` of the core (v1) module, cast to its type; null where it
  /// installed none.
  template <class F>
  F in_core(unsigned id) const noexcept {
    return reinterpret_cast<F>(core[id]);
  }
  template <class F>
  F in_core2(unsigned id) const noexcept {
    return reinterpret_cast<F>(core2[id]);
  }
  bool attached() const noexcept { return init != nullptr; }
};

/// Loads the next tool WARMUP_NVTX_NEXT names, once (the tool's first NVTX call); `attached()`
/// false where none is named or it could not be loaded (then `failure` says why).
next_tool& load_next();

/// None attached: what a handler sees before load_next (never, as the handlers are installed
/// after it) or where loading it ran out of memory.
inline next_tool none_attached;
inline next_tool* loaded_next = &none_attached;

/// The next tool, as the handlers ask for it: a load, no guard.
inline next_tool& next() noexcept { return *loaded_next; }

/// Lets the next tool attach to one of the program's NVTX instances (`real`: that instance's
/// export table), as it would have were it NVTX's tool; returns whether it accepted.
bool attach_next(NvtxGetExportTableFunc_t real) noexcept;

}  // namespace warmup_nvtx
