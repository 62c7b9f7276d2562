/// @file
/// @brief Whether the calling thread is inside one of the library's locked or allocating sections.
///
/// A signal handler that calls `std::exit` (common, though not async-signal-safe) runs the exit
/// handlers on the thread it interrupted. If that thread was inside the library, holding one of
/// its mutexes or the allocator's lock, a report at exit would take them again and hang or
/// crash. Each such section counts itself here, and the exit handlers do nothing but say so
/// (with `write`, which allocates nothing) when the count is not zero.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstring>

#include <unistd.h>

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline int& busy_depth() noexcept {
  thread_local int depth = 0;  // trivially destructible: no TLS destructor
  return depth;
}

/// Marks a section of the library that holds a lock or allocates. Slow paths only.
class busy_section {
 public:
  busy_section() noexcept { ++busy_depth(); }
  ~busy_section() { --busy_depth(); }
  busy_section(const busy_section&) = delete;
  busy_section& operator=(const busy_section&) = delete;
};

/// Whether this thread was interrupted inside such a section.
inline bool busy_here() noexcept { return busy_depth() != 0; }

/// A message to stderr that allocates nothing and takes no lock.
inline void say_without_allocating(const char* text) noexcept {
  (void)!::write(2, text, std::strlen(text));
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
