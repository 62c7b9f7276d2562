/// @file
/// @brief Finding and loading libcupti, and taking its functions: the library never links
/// CUPTI, so that a program runs where it is absent, and loads only the CUPTI whose interface
/// cupti_abi.hpp declares (the CUDA headers' major version).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include <dlfcn.h>
#include <link.h>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/cupti_abi.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A CUPTI version's family: 13 for 13.x (versions 130000 and up), 12 for CUDA 12.x (19..28).
constexpr std::uint32_t cupti_major(std::uint32_t v) noexcept {
  return v >= 10000 ? v / 10000 : v >= 19 ? 12 : 11;
}

/// The major version of the libcupti to load: the CUDA headers' (CUPTI ships with the toolkit).
inline constexpr std::uint32_t cupti_wanted_major = CUDA_VERSION / 1000;

/// The first CUPTI of major 12 that has cuptiActivityEnableDriverApi (CUDA 12.5).
inline constexpr std::uint32_t cupti_first_usable_version = 23;

/// The CUPTI functions the library uses, each taken with dlsym; the types are cupti_abi's.
/// One list: (member, CUPTI's name, required).
#define WARMUP_DETAIL_CUPTI_FUNCTIONS(X)                                    \
  X(get_version, cuptiGetVersion, true)                                     \
  X(result_string, cuptiGetResultString, false)                             \
  X(subscribe, cuptiSubscribe, true)                                        \
  X(unsubscribe, cuptiUnsubscribe, true)                                    \
  X(enable_callback, cuptiEnableCallback, true)                             \
  X(set_thread_id_type, cuptiSetThreadIdType, false)                        \
  X(get_timestamp, cuptiGetTimestamp, true)                                 \
  X(register_timestamp, cuptiActivityRegisterTimestampCallback, false)      \
  X(register_callbacks, cuptiActivityRegisterCallbacks, true)               \
  X(enable, cuptiActivityEnable, true)                                      \
  X(disable, cuptiActivityDisable, true)                                    \
  X(next_record, cuptiActivityGetNextRecord, true)                          \
  X(dropped_records, cuptiActivityGetNumDroppedRecords, true)               \
  X(flush_all, cuptiActivityFlushAll, true)                                 \
  X(set_attribute, cuptiActivitySetAttribute, false)                       \
  X(subscribe_v2, cuptiSubscribe_v2, false) /* CUPTI 13 */                  \
  X(enable_driver_api, cuptiActivityEnableDriverApi, true) /* CUPTI 12.5 */ \
  X(push_external, cuptiActivityPushExternalCorrelationId, false)           \
  X(pop_external, cuptiActivityPopExternalCorrelationId, false)

struct cupti_api {
#define WARMUP_DETAIL_MEMBER(member, name, required) cupti_abi::name member = nullptr;
  WARMUP_DETAIL_CUPTI_FUNCTIONS(WARMUP_DETAIL_MEMBER)
#undef WARMUP_DETAIL_MEMBER

  /// Takes every function from `lib`; false if a required one is missing.
  bool load(void* lib) noexcept {
    bool ok = true;
    auto take = [&](auto& fn, const char* name, bool required) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (fn == nullptr && required) ok = false;
    };
#define WARMUP_DETAIL_TAKE(member, name, required) take(member, #name, required);
    WARMUP_DETAIL_CUPTI_FUNCTIONS(WARMUP_DETAIL_TAKE)
#undef WARMUP_DETAIL_TAKE
    return ok;
  }
};

#undef WARMUP_DETAIL_CUPTI_FUNCTIONS

/// The libcupti in use: its handle, its functions, its version.
struct cupti_library {
  void* lib = nullptr;
  cupti_api api;
  std::uint32_t version = 0;
};

/// The folder of a loaded shared object whose file name contains `part`, with a trailing '/'.
inline std::string cupti_loaded_folder(const char* part) {
  struct query {
    const char* part;
    std::string folder;
  } q{part, {}};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* p) -> int {
        auto* qq = static_cast<query*>(p);
        const char* name = info->dlpi_name;
        if (name == nullptr || std::strstr(name, qq->part) == nullptr) return 0;
        const char* slash = std::strrchr(name, '/');
        if (slash == nullptr) return 0;
        qq->folder.assign(name, static_cast<std::size_t>(slash - name + 1));
        return 1;
      },
      &q);
  return q.folder;
}

/// Opens a libcupti of the CUDA headers' major version into `out`; false with `why` set if
/// none is found.
inline bool cupti_load(cupti_library& out, std::string& why) {
  const std::string major = std::to_string(cupti_wanted_major);
  const std::string versioned = "libcupti.so." + major;
  std::string candidates[24];
  std::size_t n = 0;
  candidates[n++] = versioned;
  candidates[n++] = "libcupti.so";
  // Beside the CUDA runtime the program loaded: the toolkit's lib64 (CUPTI there since 12.x, or
  // ../extras/CUPTI/lib64), or a pip wheel's nvidia/cuda_runtime/lib beside nvidia/cuda_cupti/lib.
  const std::string cudart = cupti_loaded_folder("libcudart.so");
  if (!cudart.empty()) {
    candidates[n++] = cudart + versioned;
    candidates[n++] = cudart + "../extras/CUPTI/lib64/" + versioned;
    candidates[n++] = cudart + "../../cuda_cupti/lib/" + versioned;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* root = std::getenv(var);
    if (root == nullptr || *root == '\0') continue;
    candidates[n++] = std::string(root) + "/extras/CUPTI/lib64/" + versioned;
    candidates[n++] = std::string(root) + "/lib64/" + versioned;
    candidates[n++] = std::string(root) + "/targets/x86_64-linux/lib/" + versioned;
  }
  candidates[n++] = "/usr/local/cuda/extras/CUPTI/lib64/" + versioned;
  candidates[n++] = "/usr/local/cuda/lib64/" + versioned;
  candidates[n++] = "/usr/local/cuda/targets/x86_64-linux/lib/" + versioned;
  candidates[n++] = "/usr/local/cuda/targets/sbsa-linux/lib/" + versioned;
  std::uint32_t other_version = 0;
  for (std::size_t i = 0; i < n; ++i) {
    void* lib = ::dlopen(candidates[i].c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) continue;
    cupti_api api;
    std::uint32_t version = 0;
    const bool complete = api.load(lib);
    if (api.get_version == nullptr || api.get_version(&version) != cupti_abi::result::success) version = 0;
    // A libcupti of 12 older than 12.5 lacks a required function: its version still says why.
    if (complete && cupti_major(version) == cupti_wanted_major && version >= cupti_first_usable_version) {
      out.lib = lib;
      out.api = api;
      out.version = version;
      return true;
    }
    if (version != 0) other_version = version;
    ::dlclose(lib);  // only its version was asked: nothing of it runs
  }
  why = other_version != 0
            ? "the CUPTI found is version " + std::to_string(other_version) + ", not of CUDA " + major +
                  " (12.5 or later) whose headers this program was built with"
            : "no " + versioned + " was found (nor beside the CUDA runtime, nor under CUDA_HOME or /usr/local/cuda)";
  return false;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
