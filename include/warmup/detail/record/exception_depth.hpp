/// @file
/// @brief Whether a scope ends because an exception is unwinding through it, for one call at the
/// scope's start and one load at its end.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <exception>

// The Itanium C++ ABI (GCC, Clang; libstdc++ and libc++abi) keeps each thread's exception state
// in a `__cxa_eh_globals` whose layout the ABI fixes (section 2.2.2 of the ABI: the caught
// exceptions, then the count of uncaught ones); `std::uncaught_exceptions()` is a call that
// reads that count through another call. Holding the pointer from the start of a scope makes its
// end one load instead of two calls and a thread-local lookup.
#if defined(__has_include)
#if __has_include(<cxxabi.h>) && (defined(__GLIBCXX__) || defined(_LIBCPP_VERSION))
#include <cxxabi.h>
#define WARMUP_DETAIL_ITANIUM_EH 1
#endif
#endif
#if !defined(WARMUP_DETAIL_ITANIUM_EH)
#define WARMUP_DETAIL_ITANIUM_EH 0
#endif

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Where this thread's uncaught-exception count lives. `begin()` (at a scope's start) returns
/// the count, which the scope keeps; `unwinding(count)` (at its end) says whether more exceptions
/// are in flight now, that is, whether one is unwinding through the scope. The scope keeps the
/// count itself so that it shares a word with the scope's flags.
class exception_depth {
 public:
#if WARMUP_DETAIL_ITANIUM_EH
  WARMUP_HOT_INLINE unsigned begin() noexcept {
    globals_ = reinterpret_cast<const eh_globals*>(abi::__cxa_get_globals());
    return globals_->uncaught;
  }
  WARMUP_HOT_INLINE bool unwinding(unsigned at_begin) const noexcept { return globals_->uncaught > at_begin; }

 private:
  struct eh_globals {  // the ABI's layout, mirrored: only `uncaught` is read
    void* caught;
    unsigned int uncaught;
  };
  const eh_globals* globals_ = nullptr;
#else
  WARMUP_HOT_INLINE unsigned begin() noexcept { return static_cast<unsigned>(std::uncaught_exceptions()); }
  WARMUP_HOT_INLINE bool unwinding(unsigned at_begin) const noexcept {
    return static_cast<unsigned>(std::uncaught_exceptions()) > at_begin;
  }
#endif
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
