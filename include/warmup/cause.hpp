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
  python_code,       ///< CPU time in the Python interpreter, named by the Python code it ran: one per
                     ///< module (`cause_time::where`), its hottest functions in `cause_time::functions`
  waiting,           ///< off the CPU where no record says why: disk reads (major page faults), locks,
                     ///< preemption; `cause_time::count` holds the major page faults meanwhile
  child_process,     ///< CPU time of the processes the call started or waited on (compilers, workers): one
                     ///< per command (`cause_time::where`), only in `attribution::other_threads`
};

namespace detail {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#endif
/// Whether `c` is one of the causes above. A switch with no default that misses an enumerator
/// is an error here (-Wswitch, made one for this function), so a cause added to the enum is
/// added to this list too; cause_count counts the list, and cause_table is checked against it.
constexpr bool known_cause(cause c) noexcept {
  switch (c) {
    case cause::context_init:
    case cause::module_load:
    case cause::lazy_kernel_load:
    case cause::jit_compile:
    case cause::jit_cache_load:
    case cause::device_alloc:
    case cause::pinned_alloc:
    case cause::pool_growth:
    case cause::sync_wait:
    case cause::library_load:
    case cause::host_code:
    case cause::python_code:
    case cause::child_process:
    case cause::waiting: return true;
  }
  return false;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/// The causes known_cause lists: the enumerators 0, 1, ... up to the first it does not know.
constexpr std::size_t count_known_causes() noexcept {
  std::size_t n = 0;
  while (n < 255 && known_cause(static_cast<cause>(n))) ++n;
  return n;
}
}  // namespace detail

/// @brief Number of causes.
inline constexpr std::size_t cause_count = detail::count_known_causes();

namespace detail {
/// What a cause's `cause_time::count` counts, and so whether its `where` names something.
enum class cause_evidence : std::uint8_t {
  records,       ///< the records that own some of its time; `where` empty
  cpu_samples,   ///< CPU samples outside every record: one `cause_time` per shared object or Python
                 ///< module, named in `where`
  major_faults,  ///< the major page faults (reads from disk) meanwhile, the evidence for time off the CPU
  processes,     ///< the processes whose CPU time it is: one `cause_time` per command, named in `where`
};

/// Which of a cause's records the store keeps (detail/runtime/cause_store.hpp).
enum class cause_kept : std::uint8_t {
  always,     ///< every record, up to the store's bound
  near_cold,  ///< a cause with a record per call (synchronisations): only a record that joins a cold
              ///< window already closed or a first call still open, so a steady loop cannot fill the store
};

/// What the library says of a cause, in one row: each row names its cause, so a table out of
/// the enum's order, or missing a cause, fails to compile (in_cause_order). A new cause is its
/// enumerator and its row.
struct cause_row {
  cause what;
  std::string_view id;      ///< JSON and CSV
  std::string_view words;   ///< the table
  const char* colour;       ///< its bar in the SVG: none of the points' red, orange, blue or green
  cause_evidence counts;    ///< what `cause_time::count` holds (the table, the trace, the join)
  cause_kept kept = cause_kept::always;  ///< which of its records the store keeps
};
inline constexpr cause_row cause_table[] = {
    {cause::context_init, "context_init", "context init", "#8c564b", cause_evidence::records},
    {cause::module_load, "module_load", "module loads", "#9467bd", cause_evidence::records},
    {cause::lazy_kernel_load, "lazy_kernel_load", "lazy kernel loads", "#c5b0d5", cause_evidence::records},
    {cause::jit_compile, "jit_compile", "JIT compilation", "#e377c2", cause_evidence::records},
    {cause::jit_cache_load, "jit_cache_load", "JIT cache loads", "#f7b6d2", cause_evidence::records},
    {cause::device_alloc, "device_alloc", "device alloc", "#17becf", cause_evidence::records},
    {cause::pinned_alloc, "pinned_alloc", "pinned alloc", "#9edae5", cause_evidence::records},
    {cause::pool_growth, "pool_growth", "pool growth", "#bcbd22", cause_evidence::records},
    {cause::sync_wait, "sync_wait", "sync wait", "#7f7f7f", cause_evidence::records, cause_kept::near_cold},
    {cause::library_load, "library_load", "shared library loads", "#dbdb8d", cause_evidence::records},
    {cause::host_code, "host_code", "host code", "#e7ba52", cause_evidence::cpu_samples},
    {cause::python_code, "python_code", "Python code", "#c49c94", cause_evidence::cpu_samples},
    {cause::waiting, "waiting", "waiting off the CPU", "#8ca0c8", cause_evidence::major_faults},
    {cause::child_process, "child_process", "child process", "#a58fb0", cause_evidence::processes},
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

/// How many rows of `table` count `e`.
template <class Row, std::size_t N>
constexpr std::size_t rows_counting(const Row (&table)[N], cause_evidence e) noexcept {
  std::size_t n = 0;
  for (const Row& r : table) n += r.counts == e ? 1 : 0;
  return n;
}
// The join (detail/analysis/attribution.hpp) files CPU samples under host code or, where they
// ran the interpreter, Python code, and the time off the CPU under one other cause.
static_assert(rows_counting(cause_table, cause_evidence::cpu_samples) == 2 &&
                  rows_counting(cause_table, cause_evidence::major_faults) == 1,
              "warmup: host and Python code count CPU samples, and one cause counts major page faults");

/// What `cause_time::count` holds for cause `c`.
constexpr cause_evidence counted_by(cause c) noexcept { return cause_table[static_cast<std::size_t>(c)].counts; }

/// The first cause whose count is `e` (major_faults' only one; see the static_assert above).
constexpr cause cause_counting(cause_evidence e) noexcept {
  for (const cause_row& r : cause_table)
    if (r.counts == e) return r.what;
  return cause_table[0].what;
}

/// Which of cause `c`'s records the store keeps.
constexpr cause_kept kept_of(cause c) noexcept { return cause_table[static_cast<std::size_t>(c)].kept; }

/// Whether a cause comes as one `cause_time` per shared object, Python module or command, named in its `where`.
constexpr bool by_object(cause c) noexcept {
  return counted_by(c) == cause_evidence::cpu_samples || counted_by(c) == cause_evidence::processes;
}

/// What the table writes after a cause's count: "(21)", "(67 samples)", "(3 major page faults)",
/// "(8 processes)".
constexpr std::string_view count_unit(cause c) noexcept {
  switch (counted_by(c)) {
    case cause_evidence::records: return "";
    case cause_evidence::cpu_samples: return " samples";
    case cause_evidence::major_faults: return " major page faults";
    case cause_evidence::processes: return " processes";
  }
  return "";
}
}  // namespace detail

/// @brief The name of a cause as written in JSON and CSV: "module_load", "jit_compile", ...
constexpr std::string_view to_string(cause c) noexcept { return detail::cause_table[static_cast<std::size_t>(c)].id; }

/// @brief The words the table uses for a cause: "module loads", "JIT compilation", ...
constexpr std::string_view describe(cause c) noexcept {
  return detail::cause_table[static_cast<std::size_t>(c)].words;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
