/// @file
/// @brief The processes a first call waits on, read at its ends (site-inl.hpp) and between them
/// by `note_children`, into the cause store's `child_watch` (detail/analysis/child_processes.hpp).
/// Only where a first call's causes are asked for (CPU sampling or attribution on): otherwise
/// nothing is read, and never on a steady call.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include <unistd.h>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/child_processes.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/runtime/cause_store.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Whether first calls read this process's children: where their causes are asked for.
inline bool children_watched() noexcept {
  const cause_store& s = cause_records();
  return s.sampler.interval_ns.load(std::memory_order_relaxed) != 0 || s.collecting.load(std::memory_order_relaxed);
}

/// The commands of `r`'s processes: the watch's where it knows them, else read now (outside the lock).
inline void read_commands(children_reading& r) {
  cause_store& s = cause_records();
  {
    const busy_section busy;
    const std::lock_guard<cause_store> lock(s);
    s.children.name(r);
  }
  for (proc_reading& p : r.procs)
    if (p.command.empty() || p.command == own_command()) p.command = read_command(p.pid, p.comm);
}

/// At a first call's start, off its clock: the descendants now, kept by the watch, which
/// `note_children` then keeps up to date until the call ends. Not `ok` where not watched.
inline children_reading children_at_start() noexcept {
  if (!children_watched()) return {};
  cause_store& s = cause_records();
  s.children.open.fetch_add(1, std::memory_order_relaxed);  // before reading: a note meanwhile is kept
  WARMUP_TRY {
    children_reading r = read_children();
    if (r.ok) {
      read_commands(r);
      const busy_section busy;
      const std::lock_guard<cause_store> lock(s);
      s.children.keep(r);
      return r;
    }
  } WARMUP_CATCH_ALL {
  }
  s.children.open.fetch_sub(1, std::memory_order_relaxed);
  return {};
}

/// At a first call's end, off its clock: the CPU time its descendants spent since `before`
/// (children_at_start's), by command. The watch forgets its readings once no call is open.
inline std::vector<child_cpu> children_at_end(const children_reading& before) noexcept {
  std::vector<child_cpu> out;
  if (!before.ok) return out;
  cause_store& s = cause_records();
  WARMUP_TRY {
    children_reading after = read_children();
    if (after.ok) read_commands(after);
    std::vector<proc_reading> seen;
    {
      const busy_section busy;
      const std::lock_guard<cause_store> lock(s);
      seen = s.children.seen_since(before.at_ns);
      if (s.children.open.fetch_sub(1, std::memory_order_relaxed) == 1) s.children.reset();
    }
    out = child_cpu_during(before, after, seen, static_cast<std::int64_t>(::getpid()));
    return out;
  } WARMUP_CATCH_ALL {
  }
  const busy_section busy;
  const std::lock_guard<cause_store> lock(s);
  if (s.children.open.fetch_sub(1, std::memory_order_relaxed) == 1) s.children.reset();
  return out;
}

/// Reads this process's descendants where a first call that reads them is open, so that one that
/// exits before the call ends is named by its command, with the CPU time it had spent. For a
/// thread of the program's that runs beside first calls (the Python module's code sampler): a
/// single atomic load where no first call is open; else a read of /proc per descendant and per
/// thread of each (children files), and its command line the first time it is seen.
/// \code
///   while (running) { warmup::detail::note_children(); sleep_for(50ms); }
/// \endcode
inline void note_children() noexcept {
  cause_store& s = cause_records();
  if (s.children.open.load(std::memory_order_relaxed) == 0) return;
  WARMUP_TRY {
    children_reading r = read_children();
    if (!r.ok) return;
    read_commands(r);
    const busy_section busy;
    const std::lock_guard<cause_store> lock(s);
    if (s.children.open.load(std::memory_order_relaxed) != 0) s.children.keep(r);
  } WARMUP_CATCH_ALL {
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
