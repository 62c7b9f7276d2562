/// @file
/// @brief Version, the `WARMUP_DISABLE` switch and the namespace layout of warmup.
///
/// Define `WARMUP_DISABLE` (or configure CMake with `-DWARMUP_DISABLE=ON`, which makes it an
/// INTERFACE definition of `warmup::warmup`) and every scope and macro compiles to nothing, while
/// every type and signature stays, so instrumented code compiles unchanged.
#pragma once
#include "warmup/detail/header_begin.hpp"

/// @brief warmup's major version: `#if WARMUP_VERSION_MAJOR > 0` for code that needs a later API.
#define WARMUP_VERSION_MAJOR 0
/// @brief warmup's minor version.
#define WARMUP_VERSION_MINOR 4
/// @brief warmup's patch version.
#define WARMUP_VERSION_PATCH 0
#define WARMUP_VERSION_STRING "0.4.0"  ///< the three above, as the report writes it

/// Marks the few functions of a scope's hot path that must be inlined whatever the compiler's
/// size heuristics say: a call there costs a measurable share of a scope (BENCHMARKS.md).
#if defined(__GNUC__) || defined(__clang__)
#define WARMUP_HOT_INLINE inline __attribute__((always_inline))
#else
#define WARMUP_HOT_INLINE inline
#endif

#if defined(WARMUP_DISABLE)
#define WARMUP_ENABLED 0
#else
#define WARMUP_ENABLED 1
#endif

/// @namespace warmup
/// @brief Everything the library declares.
///
/// The library's namespace is `cuda_warmup`; `warmup` is an alias of it, so programs write
/// `warmup::region_scope`. A program that already has a global `warmup` (a `__global__ void
/// warmup()` kernel is a common idiom) defines `WARMUP_NO_NAMESPACE_ALIAS` before the first
/// include (or with `-D`) and writes `cuda_warmup::region_scope`; the macros work either way.
///
/// Everything lives in an inline namespace named after the configuration (`v1` measuring,
/// `v1_off` under `WARMUP_DISABLE`), `detail` included: a program that links files built
/// both ways (a library built with scopes off, the application with them on) holds two
/// distinct sets of types and functions instead of one name with two layouts.
/// \code
///   const warmup::report r = warmup::snapshot();  // or cuda_warmup::snapshot()
/// \endcode

/// Defines, in the files that compile the runtime, a function that files built light
/// (`WARMUP_LIGHT`) only declare: weak rather than inline, so that a light file's call binds to
/// it, and the linker keeps one of the copies, as it does an inline function's. Under
/// `WARMUP_DISABLE` every file compiles those definitions (no-ops, most of them) and they stay
/// inline: a file that does not use one emits no code for it.
#if !WARMUP_ENABLED
#define WARMUP_DETAIL_RUNTIME inline
#elif defined(__GNUC__) || defined(__clang__)
#define WARMUP_DETAIL_RUNTIME __attribute__((weak))
#else
#error "warmup: the runtime's definitions need weak symbols (GCC or Clang)"
#endif

#if WARMUP_ENABLED
#define WARMUP_ABI_NAMESPACE v1
#else
#define WARMUP_ABI_NAMESPACE v1_off
#endif
#define WARMUP_BEGIN_NAMESPACE \
  namespace cuda_warmup {      \
  inline namespace WARMUP_ABI_NAMESPACE {
#define WARMUP_END_NAMESPACE \
  }                          \
  }

WARMUP_BEGIN_NAMESPACE
/// @brief `true` unless the library was compiled with `WARMUP_DISABLE`.
inline constexpr bool enabled_at_compile_time = WARMUP_ENABLED != 0;
WARMUP_END_NAMESPACE

#if !defined(WARMUP_NO_NAMESPACE_ALIAS)
namespace warmup = cuda_warmup;
#endif

/// Builds compiled with and without C++ exceptions (`-fno-exceptions`) include the same headers:
/// where the library guards against running out of memory it uses these, which become plain
/// blocks without exceptions (an allocation failure then ends the program, as any would there).
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define WARMUP_TRY try
#define WARMUP_CATCH_ALL catch (...)
#else
#define WARMUP_TRY if (true)
#define WARMUP_CATCH_ALL else
#endif

#include "warmup/detail/header_end.hpp"
