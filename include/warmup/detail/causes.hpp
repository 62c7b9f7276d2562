/// @file
/// @brief Why a call was slow: the named causes, and the records that name them.
///
/// A cause record is an interval of time on one thread spent on one cause (a module load, a JIT
/// compilation, an allocation...), from CUPTI (detail/cupti.hpp) or from the library's own host
/// signals. detail/attribution.hpp joins them to the cold calls of each site.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief What a slow first call (or a call cold again) spent its time on.
enum class cause : std::uint8_t {
  context_init,      ///< driver initialisation and primary context creation
  module_load,       ///< module and library loads (cuModuleLoad*, cuLibraryLoad*, runtime-triggered)
  lazy_kernel_load,  ///< a kernel (function) loaded at its first launch (CUDA_MODULE_LOADING=LAZY)
  jit_compile,       ///< PTX compiled by the driver
  jit_cache_load,    ///< a JIT result loaded from the compute cache
  device_alloc,      ///< device memory allocated (cudaMalloc, cuMemAlloc)
  pinned_alloc,      ///< pinned host memory allocated or registered (cudaMallocHost, cudaHostRegister)
  pool_growth,       ///< a stream-ordered pool reserving more device memory
  sync_wait,         ///< blocked in a synchronising call (stream, event, device, context)
  library_load,      ///< shared libraries loaded by the process during the call (dlopen)
};

/// @brief Number of causes.
inline constexpr std::size_t cause_count = 10;
static_assert(static_cast<std::size_t>(cause::library_load) + 1 == cause_count,
              "warmup: cause_count must follow the last cause");

/// @brief The name of a cause as written in JSON and CSV: "module_load", "jit_compile", ...
constexpr std::string_view to_string(cause c) noexcept {
  constexpr std::string_view names[cause_count] = {
      "context_init", "module_load",  "lazy_kernel_load", "jit_compile", "jit_cache_load",
      "device_alloc", "pinned_alloc", "pool_growth",      "sync_wait",   "library_load"};
  return names[static_cast<std::size_t>(c)];
}

/// @brief The words the table uses for a cause: "module loads", "JIT compilation", ...
constexpr std::string_view describe(cause c) noexcept {
  constexpr std::string_view words[cause_count] = {
      "context init", "module loads", "lazy kernel loads", "JIT compilation", "JIT cache loads",
      "device alloc", "pinned alloc", "pool growth",       "sync wait",       "shared library loads"};
  return words[static_cast<std::size_t>(c)];
}

namespace detail {

/// One interval spent on one cause. Times are steady-clock nanoseconds (the library's clock,
/// `ns_since_epoch`); `thread` is the kernel thread id (gettid) of the thread that spent it, or 0
/// where the source does not say (then the record joins any thread's calls it overlaps).
struct cause_record {
  cause what = cause::module_load;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t thread = 0;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
