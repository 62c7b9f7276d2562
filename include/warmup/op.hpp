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
/// A table indexed by `op_kind`: each entry names its kind, so a table out of the enum's
/// order or missing a kind fails to compile (detail::in_kind_order) instead of mislabelling.
template <class T>
struct per_kind {
  op_kind kind;
  T value;
};
template <class T, std::size_t N>
constexpr bool in_kind_order(const per_kind<T> (&table)[N]) noexcept {
  if (N != op_kind_count) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].kind) != i) return false;
  return true;
}

inline constexpr per_kind<std::string_view> kind_names[] = {
    {op_kind::context, "context"}, {op_kind::alloc, "alloc"},   {op_kind::h2d, "h2d"},       {op_kind::d2h, "d2h"},
    {op_kind::d2d, "d2d"},         {op_kind::launch, "launch"}, {op_kind::region, "region"},
};
static_assert(in_kind_order(kind_names), "warmup: kind_names must list every op_kind, in order");
}  // namespace detail

/// @brief The short lower-case name of an operation kind, as used in NVTX, tables and JSON.
/// Costs nothing at run time beyond a table read.
/// \code
///   std::cout << warmup::to_string(warmup::op_kind::launch);  // "launch"
/// \endcode
constexpr std::string_view to_string(op_kind k) noexcept {
  return detail::kind_names[static_cast<std::size_t>(k)].value;
}

/// @brief Tag types that select a scope's policy: `warmup::scope<warmup::op::h2d>`.
///
/// Copies (`h2d`, `d2h`, `d2d`) take a byte count and report bandwidth; `alloc` takes a byte
/// count; `context`, `launch` and `region` take none.
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
constexpr bool is_copy(op_kind k) noexcept {
  return k == op_kind::h2d || k == op_kind::d2h || k == op_kind::d2d;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
