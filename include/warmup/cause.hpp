/// @file
/// @brief The causes of a slow first call, as the report names them (`cause_time::what`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief What a slow first call (or a call cold again) spent its time on.
///
/// docs/why-slow.md says how each is measured. `to_string` gives the name JSON and CSV write,
/// `describe` the table's words.
/// \code
///   for (const warmup::cause_time& c : why.causes)
///     if (c.what == warmup::cause::module_load) std::cout << warmup::describe(c.what) << '\n';
/// \endcode
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
  host_code,         ///< CPU time in one shared object, from samples (`cause_time::where` names it)
  waiting,           ///< off the CPU where no record says why: disk reads (major page faults), locks,
                     ///< preemption; `cause_time::count` holds the major page faults meanwhile
};

/// @brief Number of causes.
inline constexpr std::size_t cause_count = 12;
static_assert(static_cast<std::size_t>(cause::waiting) + 1 == cause_count,
              "warmup: cause_count must follow the last cause");

namespace detail {
/// What the library says of a cause, in one row: each row names its cause, so a table out of
/// the enum's order, or missing a cause, fails to compile (in_cause_order). A new cause is its
/// enumerator and its row.
struct cause_row {
  cause what;
  std::string_view id;     ///< JSON and CSV
  std::string_view words;  ///< the table
  const char* colour;      ///< its bar in the SVG: none of the points' red, orange, blue or green
};
inline constexpr cause_row cause_table[] = {
    {cause::context_init, "context_init", "context init", "#8c564b"},
    {cause::module_load, "module_load", "module loads", "#9467bd"},
    {cause::lazy_kernel_load, "lazy_kernel_load", "lazy kernel loads", "#c5b0d5"},
    {cause::jit_compile, "jit_compile", "JIT compilation", "#e377c2"},
    {cause::jit_cache_load, "jit_cache_load", "JIT cache loads", "#f7b6d2"},
    {cause::device_alloc, "device_alloc", "device alloc", "#17becf"},
    {cause::pinned_alloc, "pinned_alloc", "pinned alloc", "#9edae5"},
    {cause::pool_growth, "pool_growth", "pool growth", "#bcbd22"},
    {cause::sync_wait, "sync_wait", "sync wait", "#7f7f7f"},
    {cause::library_load, "library_load", "shared library loads", "#dbdb8d"},
    {cause::host_code, "host_code", "host code", "#e7ba52"},
    {cause::waiting, "waiting", "waiting off the CPU", "#8ca0c8"},
};
/// Whether `table` has a row for every cause, in the enum's order.
template <class Row, std::size_t N>
constexpr bool in_cause_order(const Row (&table)[N]) noexcept {
  if (N != cause_count) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].what) != i) return false;
  return true;
}
static_assert(in_cause_order(cause_table), "warmup: cause_table must list every cause, in order");
}  // namespace detail

/// @brief The name of a cause as written in JSON and CSV: "module_load", "jit_compile", ...
constexpr std::string_view to_string(cause c) noexcept { return detail::cause_table[static_cast<std::size_t>(c)].id; }

/// @brief The words the table uses for a cause: "module loads", "JIT compilation", ...
constexpr std::string_view describe(cause c) noexcept {
  return detail::cause_table[static_cast<std::size_t>(c)].words;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
