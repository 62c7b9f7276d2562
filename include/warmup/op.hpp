/// @file
/// @brief Operation tags: what kind of GPU work a scope measures.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The kind of operation a site measures, as stored in reports.
///
/// Each kind is its own NVTX category in the `warmup` domain, so Nsight Systems can filter on it.
/// \code
///   if (site.op == warmup::op_kind::h2d) { /* a host-to-device copy */ }
/// \endcode
enum class op_kind : std::uint8_t {
  context,  ///< device or context initialisation: `op::context`
  alloc,    ///< an allocation: `op::alloc`
  h2d,      ///< a host-to-device copy: `op::h2d`
  d2h,      ///< a device-to-host copy: `op::d2h`
  d2d,      ///< a device-to-device copy: `op::d2d`
  launch,   ///< kernel launches: `op::launch`
  region    ///< any region of code: `op::region`
};

/// @brief Number of operation kinds (for tables indexed by `op_kind`).
inline constexpr std::size_t op_kind_count = 7;
static_assert(static_cast<std::size_t>(op_kind::region) + 1 == op_kind_count,
              "warmup: op_kind_count must follow the last operation kind");

namespace detail {
/// Whether `table` has a row for every operation kind, in the enum's order: each row names its
/// kind (`kind`), so a table out of order or missing a kind fails to compile instead of mislabelling.
template <class Row, std::size_t N>
constexpr bool in_kind_order(const Row (&table)[N]) noexcept {
  if (N != op_kind_count) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].kind) != i) return false;
  return true;
}

/// What a kind's scopes and report rows do beyond timing: the flags of its row.
struct kind_trait {
  enum : unsigned {
    copies = 1u << 0,         ///< moves bytes between memories: its report has a bandwidth
    takes_bytes = 1u << 1,    ///< its scope takes a byte count, and is refused without one
    host_side = 1u << 2,      ///< copies host memory: its scope may name it (pinned or pageable calls)
    reads_pool = 1u << 3,     ///< allocates: on a stream, its scope reads the pool's reserved bytes
    launches_code = 1u << 4,  ///< runs kernels: a first call slow on the host alone waited on loading or JIT
  };
};

/// What the library knows of an operation kind, in one row: a new kind is its enumerator, its
/// tag in `namespace op` and its row here, in the enum's order (in_kind_order refuses any other).
struct kind_row {
  op_kind kind;
  std::string_view name;      ///< NVTX's category, the table and JSON
  unsigned traits;            ///< `kind_trait` flags
  std::uint32_t nvtx_colour;  ///< ARGB: its steady calls' ranges in Nsight Systems (first calls are red)
};
inline constexpr kind_row kind_table[] = {
    {op_kind::context, "context", 0, 0xFF8E6BBFu},  // violet
    {op_kind::alloc, "alloc", kind_trait::takes_bytes | kind_trait::reads_pool, 0xFFE6A23Cu},  // amber
    {op_kind::h2d, "h2d", kind_trait::copies | kind_trait::takes_bytes | kind_trait::host_side, 0xFF3C8DDEu},  // blue
    {op_kind::d2h, "d2h", kind_trait::copies | kind_trait::takes_bytes | kind_trait::host_side, 0xFF2CB5A0u},  // teal
    {op_kind::d2d, "d2d", kind_trait::copies | kind_trait::takes_bytes, 0xFF6C9E3Bu},  // green
    {op_kind::launch, "launch", kind_trait::launches_code, 0xFF5470C6u},  // indigo
    {op_kind::region, "region", 0, 0xFF909399u},  // grey
};
static_assert(in_kind_order(kind_table), "warmup: kind_table must list every op_kind, in order");

/// Whether kind `k` has `trait` (a `kind_trait` flag) in its row.
constexpr bool has_trait(op_kind k, unsigned trait) noexcept {
  return (kind_table[static_cast<std::size_t>(k)].traits & trait) != 0;
}
}  // namespace detail

/// @brief The short lower-case name of an operation kind, as used in NVTX, tables and JSON.
/// Costs nothing at run time beyond a table read.
/// \code
///   std::cout << warmup::to_string(warmup::op_kind::launch);  // "launch"
/// \endcode
constexpr std::string_view to_string(op_kind k) noexcept {
  return detail::kind_table[static_cast<std::size_t>(k)].name;
}

/// @brief Tag types that select a scope's policy: `warmup::scope<warmup::op::h2d>`.
///
/// Copies (`h2d`, `d2h`, `d2d`) take a byte count and report bandwidth; `alloc` takes a byte
/// count; `context`, `launch` and `region` take none. A tag names its kind; what its scope takes
/// and reports is that kind's row in `detail::kind_table`.
/// \code
///   warmup::scope<warmup::op::launch> s{"gemm", stream};
/// \endcode
namespace op {
/// @brief Device or context initialisation (`cudaSetDevice`, `cudaInitDevice`, `cudaFree(0)`).
/// \code
///   warmup::scope<warmup::op::context> s{"init"};
/// \endcode
struct context {
  static constexpr op_kind kind = op_kind::context;  ///< the kind its sites have
};
/// @brief A device or pinned-host allocation (`cudaMalloc`, `cudaMallocAsync`, `cudaMallocHost`).
/// \code
///   warmup::scope<warmup::op::alloc> s{"weights", bytes};
/// \endcode
struct alloc {
  static constexpr op_kind kind = op_kind::alloc;  ///< the kind its sites have
};
/// @brief A host-to-device copy.
/// \code
///   warmup::scope<warmup::op::h2d> s{"upload", bytes, stream};
/// \endcode
struct h2d {
  static constexpr op_kind kind = op_kind::h2d;  ///< the kind its sites have
};
/// @brief A device-to-host copy.
/// \code
///   warmup::scope<warmup::op::d2h> s{"download", bytes, stream};
/// \endcode
struct d2h {
  static constexpr op_kind kind = op_kind::d2h;  ///< the kind its sites have
};
/// @brief A device-to-device copy.
/// \code
///   warmup::scope<warmup::op::d2d> s{"copy", bytes, stream};
/// \endcode
struct d2d {
  static constexpr op_kind kind = op_kind::d2d;  ///< the kind its sites have
};
/// @brief One or more kernel launches; the host time is what the caller waits at the call.
/// \code
///   warmup::scope<warmup::op::launch> s{"gemm", stream};
/// \endcode
struct launch {
  static constexpr op_kind kind = op_kind::launch;  ///< the kind its sites have
};
/// @brief Any region of code, such as a whole model `forward`.
/// \code
///   warmup::scope<warmup::op::region> s{"forward", stream};
/// \endcode
struct region {
  static constexpr op_kind kind = op_kind::region;  ///< the kind its sites have
};
}  // namespace op

/// @brief Whether an operation kind moves bytes between memories (and so reports bandwidth).
/// \code
///   if (warmup::is_copy(site.op)) std::cout << site.name << " moved " << site.bytes->total << " bytes\n";
/// \endcode
constexpr bool is_copy(op_kind k) noexcept { return detail::has_trait(k, detail::kind_trait::copies); }

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
