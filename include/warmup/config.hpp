/// @file
/// @brief Version, the `WARMUP_DISABLE` switch and the namespace layout of warmup.
///
/// Define `WARMUP_DISABLE` (or configure CMake with `-DWARMUP_DISABLE=ON`, which makes it an
/// INTERFACE definition of `warmup::warmup`) and every scope and macro compiles to nothing, while
/// every type and signature stays, so instrumented code compiles unchanged.
#pragma once

#define WARMUP_VERSION_MAJOR 0
#define WARMUP_VERSION_MINOR 1
#define WARMUP_VERSION_PATCH 0

/// Marks the few functions of a scope's hot path that must be inlined whatever the compiler's
/// size heuristics say: a call there costs a measurable share of a 60 ns scope.
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

namespace warmup {
inline namespace v1 {
/// @brief `true` unless the library was compiled with `WARMUP_DISABLE`.
inline constexpr bool enabled_at_compile_time = WARMUP_ENABLED != 0;
}  // namespace v1
}  // namespace warmup
