/// @file
/// @brief What a cold call did on the host: the thread's CPU time and page faults, and the
/// shared libraries the process loaded meanwhile. Read around a site's first call only, outside
/// its measured time (a few microseconds; before the call, no allocation).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <link.h>
#include <sys/resource.h>
#include <time.h>
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

/// CPU time from the thread's CPU clock, exact to the ns: getrusage's is brought up to date
/// only at a tick or a switch, so that a short call read 0 and the CPU time landed in the next
/// call. Page faults from getrusage, which counts them as they happen.
inline thread_usage read_thread_usage() noexcept {
  thread_usage u;
#if defined(RUSAGE_THREAD)
  rusage r{};
  timespec cpu{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 && ::getrusage(RUSAGE_THREAD, &r) == 0) {
    u.cpu_ns = static_cast<std::uint64_t>(cpu.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(cpu.tv_nsec);
    u.minor_faults = static_cast<std::uint64_t>(r.ru_minflt);
    u.major_faults = static_cast<std::uint64_t>(r.ru_majflt);
    u.ok = true;
  }
#endif
  return u;
}

/// Where the process's list of shared objects stood at one moment: read without allocating
/// (a scope's constructor takes it), from the loader's counters of loads and unloads.
struct objects_mark {
  std::uint64_t adds = 0, subs = 0;
  std::size_t count = 0;
  bool ok = false;
};

inline objects_mark mark_objects() noexcept {
  objects_mark m;
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* data) -> int {
        auto* at = static_cast<objects_mark*>(data);
        if (at->count == 0 && size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          at->adds = static_cast<std::uint64_t>(info->dlpi_adds);
          at->subs = static_cast<std::uint64_t>(info->dlpi_subs);
          at->ok = true;
        }
        ++at->count;
        return 0;
      },
      &m);
  return m;
}

/// The file names of the objects loaded since `before`. The loader appends a new object to
/// its list, so they are the list's tail: past the count before, less the objects unloaded since.
inline std::vector<std::string> loaded_since(const objects_mark& before) {
  const objects_mark now = mark_objects();
  std::vector<std::string> out;
  if (!before.ok || !now.ok || now.adds == before.adds) return out;
  struct walk {
    std::size_t skip, index = 0;
    std::vector<std::string>* out;
  } w{before.count - std::min<std::uint64_t>(before.count, now.subs - before.subs), 0, &out};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* at = static_cast<walk*>(data);
        if (at->index++ < at->skip || info->dlpi_name == nullptr || *info->dlpi_name == '\0') return 0;
        WARMUP_TRY {
          const std::string_view path = info->dlpi_name;
          const std::size_t slash = path.find_last_of('/');
          at->out->emplace_back(slash == std::string_view::npos ? path : path.substr(slash + 1));
        } WARMUP_CATCH_ALL {
          return 1;
        }
        return 0;
      },
      &w);
  return out;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
