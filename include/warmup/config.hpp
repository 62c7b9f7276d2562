/// @file
/// @brief Version, the `WARMUP_DISABLE` switch and the namespace layout of warmup.
///
/// Define `WARMUP_DISABLE` (or configure CMake with `-DWARMUP_DISABLE=ON`, which makes it an
/// INTERFACE definition of `warmup::warmup`) and every scope and macro compiles to nothing, while
/// every type and signature stays, so instrumented code compiles unchanged.
#pragma once

// A second copy of these headers in one file (another folder: #pragma once knows only its own
// file) meets the first copy's version here, before it declares anything twice.
#if defined(WARMUP_ABI_VERSION)
#error "warmup: a second copy of warmup's headers in this file: its config.hpp is read after another copy's, from another folder, and one file holds one version of warmup. Include every warmup header through one include folder."
#endif

#include "warmup/detail/header_begin.hpp"

/// @brief warmup's major version: `#if WARMUP_VERSION_MAJOR > 0` for code that needs a later API.
#define WARMUP_VERSION_MAJOR 0
/// @brief warmup's minor version.
#define WARMUP_VERSION_MINOR 4
/// @brief warmup's patch version.
#define WARMUP_VERSION_PATCH 0
#define WARMUP_VERSION_STRING "0.4.0"  ///< the three above, as the report writes it

/// @brief The version of what copies of warmup share in one process: the inline namespace every
/// name lives in (`cuda_warmup::v9`) and the layout of the process anchor, which copies of one
/// version share and copies of two keep apart (docs/scopes-and-builds.md). One number, so the two
/// cannot drift: it grows when the anchor or anything behind it changes, and with every release,
/// so that two releases in one program never share a symbol (docs/design.md, "Versions").
/// \code
///   static_assert(WARMUP_ABI_VERSION >= 6, "needs the anchor that names copies kept apart");
/// \endcode
#define WARMUP_ABI_VERSION 9

/// @brief 1, or 0 where the file is compiled with `WARMUP_DISABLE`: the preprocessor's
/// `warmup::enabled_at_compile_time`.
#if defined(WARMUP_DISABLE)
#define WARMUP_ENABLED 0
#else
#define WARMUP_ENABLED 1
#endif

#include "warmup/detail/light_link.hpp"

/// @namespace warmup
/// @brief Everything the library declares.
///
/// The library's namespace is `cuda_warmup`; `warmup` is an alias of it, so programs write
/// `warmup::region_scope`. A program that already has a global `warmup` (a `__global__ void
/// warmup()` kernel is a common idiom) defines `WARMUP_NO_NAMESPACE_ALIAS` before the first
/// include (or with `-D`) and writes `cuda_warmup::region_scope`; the macros work either way.
///
/// Everything lives in an inline namespace named after the version and the configuration
/// (`v8` measuring, `v8_off` under `WARMUP_DISABLE`, from `WARMUP_ABI_VERSION`), `detail`
/// included: a program that links files built both ways (a library built with scopes off, the
/// application with them on), or built with two versions of warmup (two shared libraries), holds
/// distinct sets of types and functions instead of one name with two layouts.
/// \code
///   const warmup::report r = warmup::snapshot();  // or cuda_warmup::snapshot()
/// \endcode

WARMUP_BEGIN_NAMESPACE
/// @brief `true` unless the library was compiled with `WARMUP_DISABLE`.
inline constexpr bool enabled_at_compile_time = WARMUP_ENABLED != 0;
WARMUP_END_NAMESPACE

#if !defined(WARMUP_NO_NAMESPACE_ALIAS)
namespace warmup = cuda_warmup;
#endif

#include "warmup/detail/header_end.hpp"
