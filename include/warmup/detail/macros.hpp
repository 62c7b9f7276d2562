// The helper macros warmup's headers are written with, defined at the start of the outermost
// warmup header (header_begin.hpp at depth 1) and undefined at its end (macros_end.hpp), so that
// a user's file keeps none of them. No include guard: every outermost header defines them again,
// since a header read once (#pragma once) is not read again to define what it used. A macro that
// a public macro's expansion names (WARMUP_SCOPE's, scope.hpp) is not here: it must outlive the
// header. A new helper goes here, its #undef in macros_end.hpp; tests/flags' one_file checks the
// pair (every WARMUP_* macro a file keeps is on its list of public ones).
//
// These test WARMUP_DISABLE itself, not WARMUP_ENABLED: the first header of a file reads this
// before config.hpp defines it.

/// Marks the few functions of a scope's hot path that must be inlined whatever the compiler's
/// size heuristics say: a call there costs a measurable share of a scope (BENCHMARKS.md).
#if defined(__GNUC__) || defined(__clang__)
#define WARMUP_HOT_INLINE inline __attribute__((always_inline))
#else
#define WARMUP_HOT_INLINE inline
#endif

/// Defines, in the files that compile the runtime, a function that files built light
/// (`WARMUP_LIGHT`) only declare: weak rather than inline, so that a light file's call binds to
/// it, and the linker keeps one of the copies, as it does an inline function's. Under
/// `WARMUP_DISABLE` every file compiles those definitions (no-ops, most of them) and they stay
/// inline: a file that does not use one emits no code for it.
#if defined(WARMUP_DISABLE)
#define WARMUP_DETAIL_RUNTIME inline
#elif defined(__GNUC__) || defined(__clang__)
#define WARMUP_DETAIL_RUNTIME __attribute__((weak))
#else
#error "warmup: the runtime's definitions need weak symbols (GCC or Clang)"
#endif

/// The inline namespace every name lives in: `v` and WARMUP_ABI_VERSION (config.hpp), `_off`
/// added under WARMUP_DISABLE (config.hpp says why both).
#define WARMUP_DETAIL_ABI_NAME_(version, suffix) v##version##suffix
#define WARMUP_DETAIL_ABI_NAME(version, suffix) WARMUP_DETAIL_ABI_NAME_(version, suffix)
#if defined(WARMUP_DISABLE)
#define WARMUP_ABI_NAMESPACE WARMUP_DETAIL_ABI_NAME(WARMUP_ABI_VERSION, _off)
#else
#define WARMUP_ABI_NAMESPACE WARMUP_DETAIL_ABI_NAME(WARMUP_ABI_VERSION, )
#endif
#define WARMUP_BEGIN_NAMESPACE \
  namespace cuda_warmup {      \
  inline namespace WARMUP_ABI_NAMESPACE {
#define WARMUP_END_NAMESPACE \
  }                          \
  }

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

/// A macro's value as a string literal.
#define WARMUP_DETAIL_STRING_(x) #x
#define WARMUP_DETAIL_STRING(x) WARMUP_DETAIL_STRING_(x)

/// Names a field of `self` (an alias each field list declares) by its member name
/// (detail/io/fields.hpp).
#define WARMUP_DETAIL_FIELD(member) ::cuda_warmup::detail::make_field(#member, &self::member)
