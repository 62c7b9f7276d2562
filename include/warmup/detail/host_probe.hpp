/// @file
/// @brief What a cold call did on the host: the thread's CPU time and page faults, and the
/// shared libraries the process loaded meanwhile. Read around a site's first call only, outside
/// its measured time (a few microseconds).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <link.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The calling thread's kernel id: what attribution joins cause records on.
inline std::uint64_t this_thread_id() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

/// The thread's resource use at one moment.
struct thread_usage {
  std::uint64_t cpu_ns = 0;
  std::uint64_t minor_faults = 0;
  std::uint64_t major_faults = 0;
  bool ok = false;
};

inline thread_usage read_thread_usage() noexcept {
  thread_usage u;
#if defined(RUSAGE_THREAD)
  rusage r{};
  if (::getrusage(RUSAGE_THREAD, &r) == 0) {
    const auto ns = [](const timeval& t) {
      return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_usec) * 1000u;
    };
    u.cpu_ns = ns(r.ru_utime) + ns(r.ru_stime);
    u.minor_faults = static_cast<std::uint64_t>(r.ru_minflt);
    u.major_faults = static_cast<std::uint64_t>(r.ru_majflt);
    u.ok = true;
  }
#endif
  return u;
}

/// The shared objects loaded now, by load address, with their paths.
struct loaded_object {
  std::uintptr_t base = 0;
  std::string path;
};

inline std::vector<loaded_object> loaded_objects() {
  std::vector<loaded_object> out;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* v = static_cast<std::vector<loaded_object>*>(data);
        WARMUP_TRY {
          v->push_back({static_cast<std::uintptr_t>(info->dlpi_addr), info->dlpi_name != nullptr ? info->dlpi_name : ""});
        } WARMUP_CATCH_ALL {
          return 1;
        }
        return 0;
      },
      &out);
  return out;
}

/// The file names of the objects in `after` that `before` did not hold.
inline std::vector<std::string> newly_loaded(const std::vector<loaded_object>& before,
                                             const std::vector<loaded_object>& after) {
  std::vector<std::string> out;
  for (const loaded_object& o : after) {
    const bool seen = std::any_of(before.begin(), before.end(),
                                  [&](const loaded_object& b) { return b.base == o.base && b.path == o.path; });
    if (seen || o.path.empty()) continue;
    const std::size_t slash = o.path.find_last_of('/');
    out.push_back(slash == std::string::npos ? o.path : o.path.substr(slash + 1));
  }
  return out;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
