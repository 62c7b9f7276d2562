/// @file
/// @brief The processes a first call waits on: this process's descendants read from /proc at the
/// call's ends (and between, where `note_children` is called), and the CPU time they spent during
/// the call, by command. No ptrace and no privilege: what Linux shows every process of its own
/// children (docs/why-slow.md, "Processes it waited on").
///
/// The CPU time of this process's descendants is, at any moment, the sum over those alive of
/// their own CPU time and their reaped children's (/proc/<pid>/stat, fields 14-17), plus the
/// children this process reaped (getrusage(RUSAGE_CHILDREN)): a process's time moves from its
/// own figures to its parent's reaped figures when it is reaped, never counted twice. So a call's
/// child-process time is that sum at its end less the sum at its start; `child_cpu_during` splits
/// it by command.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "warmup/config.hpp"
#include "warmup/cause.hpp"
#include "warmup/remedy.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// One process as /proc showed it at one moment. Ticks are the kernel's clock ticks
/// (sysconf(_SC_CLK_TCK)); a pid with its start time names one process even where the pid is reused.
struct proc_reading {
  std::int64_t pid = 0, ppid = 0;
  std::uint64_t start_ticks = 0;   ///< since boot (field 22)
  std::uint64_t own_ticks = 0;     ///< utime + stime (fields 14, 15)
  std::uint64_t reaped_ticks = 0;  ///< cutime + cstime: its children it reaped (fields 16, 17)
  std::string command;             ///< shortened (`short_command`); empty where not read
  std::string comm;                ///< the kernel's name for it (field 2): its command where cmdline is empty

  bool same(const proc_reading& o) const noexcept { return pid == o.pid && start_ticks == o.start_ticks; }
};

/// This process's descendants at one moment, and the CPU time of the children it reaped.
struct children_reading {
  /// At most this many descendants per reading: a compiler's pool of workers and the compilers
  /// they run fit; a process that forks thousands is read in part (`complete` false).
  static constexpr std::size_t max_tracked = 128;
  std::vector<proc_reading> procs;
  std::uint64_t reaped_ns = 0;  ///< getrusage(RUSAGE_CHILDREN): user + system
  std::uint64_t at_ticks = 0;   ///< CLOCK_BOOTTIME when read, in ticks: a process started earlier existed then
  std::uint64_t at_ns = 0;      ///< the steady clock when read
  bool complete = true;         ///< every descendant read
  bool ok = false;
};

/// The CPU time one command's processes spent during a call.
struct child_cpu {
  std::string command;  ///< `short_command`'s, or `exited_children` where no reading named them
  std::uint64_t ns = 0;
  std::uint64_t processes = 0;
};

/// What names the CPU time of children reaped during a call that no reading saw.
inline constexpr std::string_view exited_children = "[exited children]";
/// Entries kept per call, largest first; the rest together as `other_processes`.
inline constexpr std::size_t child_entries_kept = 8;
inline constexpr std::string_view other_processes = "[other processes]";

inline std::uint64_t ns_per_tick() noexcept {
  static const std::uint64_t ns = [] {
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? 1'000'000'000u / static_cast<std::uint64_t>(hz) : 10'000'000u;
  }();
  return ns;
}

/// A command line (NUL-separated, as /proc/<pid>/cmdline holds it) as a reader knows it: the
/// program's file name, then its arguments, each path cut to its last two names, the whole cut
/// at `max_chars`: "python3 -c import time...", "gcc -O3 tmp/cxyz.cpp -shared ...".
inline std::string short_command(std::string_view cmdline, std::string_view comm) {
  constexpr std::size_t max_chars = 72;
  std::string out;
  std::size_t at = 0;
  bool first = true;
  while (at < cmdline.size() && out.size() <= max_chars) {
    std::size_t end = cmdline.find('\0', at);
    if (end == std::string_view::npos) end = cmdline.size();
    std::string_view arg = cmdline.substr(at, end - at);
    at = end + 1;
    if (arg.empty() && !first) continue;
    if (first) {
      const std::size_t slash = arg.find_last_of('/');
      if (slash != std::string_view::npos) arg.remove_prefix(slash + 1);
    } else if (arg.find('/') != std::string_view::npos && arg.size() > 1) {
      std::size_t cut = arg.find_last_of('/', arg.size() - 2);
      if (cut != std::string_view::npos && cut != 0) cut = arg.find_last_of('/', cut - 1);
      if (cut != std::string_view::npos) arg.remove_prefix(cut + 1);
    }
    if (!first) out += ' ';
    for (char ch : arg) out += (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ? ' ' : ch;
    first = false;
  }
  if (out.empty() || out.find_first_not_of(' ') == std::string::npos) out = "[" + std::string(comm) + "]";
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out += "...";
  }
  return out;
}

namespace proc_files {
/// The whole of a small /proc file into `buf` (at most `cap` bytes); its length, or -1.
inline long read_small(const char* path, char* buf, std::size_t cap) noexcept {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::size_t n = 0;
  while (n < cap) {
    const ssize_t r = ::read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += static_cast<std::size_t>(r);
  }
  ::close(fd);
  return static_cast<long>(n);
}

/// /proc/<pid>/stat into `p` (and its comm); false where the process is gone or the file odd.
inline bool read_stat(std::int64_t pid, proc_reading& p, std::string* comm) {
  char path[64], buf[1024];
  std::snprintf(path, sizeof path, "/proc/%lld/stat", static_cast<long long>(pid));
  const long n = read_small(path, buf, sizeof buf - 1);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* open = std::strchr(buf, '(');
  const char* close = std::strrchr(buf, ')');  // comm may hold ')' itself: the last one ends it
  if (open == nullptr || close == nullptr || close < open) return false;
  if (comm != nullptr) comm->assign(open + 1, close);
  // Fields from 3 (state) on, after ") ": field k is token k - 3.
  std::uint64_t f[20] = {};
  const char* s = close + 1;
  for (int k = 0; k < 20; ++k) {
    while (*s == ' ') ++s;
    if (*s == '\0') return false;
    char* end = nullptr;
    f[k] = k == 0 ? 0 : std::strtoull(s, &end, 10);
    while (*s != ' ' && *s != '\0') ++s;
  }
  p.pid = pid;
  p.ppid = static_cast<std::int64_t>(f[1]);
  p.own_ticks = f[11] + f[12];
  p.reaped_ticks = f[13] + f[14];
  p.start_ticks = f[19];
  return true;
}

/// The pids a process's threads started (/proc/<pid>/task/<tid>/children, every thread's:
/// a thread that runs subprocess is their parent). False where the kernel has no such file.
inline bool children_of(std::int64_t pid, std::vector<std::int64_t>& out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%lld/task", static_cast<long long>(pid));
  DIR* d = ::opendir(path);
  if (d == nullptr) return true;  // gone: no children to read
  bool any_file = false, any_thread = false;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    any_thread = true;
    char file[320], buf[4096];
    std::snprintf(file, sizeof file, "/proc/%lld/task/%s/children", static_cast<long long>(pid), e->d_name);
    const long n = read_small(file, buf, sizeof buf - 1);
    if (n < 0) continue;
    any_file = true;
    buf[n] = '\0';
    for (char* s = buf; *s != '\0';) {
      char* end = nullptr;
      const long long v = std::strtoll(s, &end, 10);
      if (end == s) break;
      if (v > 0) out.push_back(v);
      s = end;
    }
  }
  ::closedir(d);
  return any_file || !any_thread;
}

/// Every process's (pid, ppid), from /proc/[0-9]*/stat: where the children files are missing.
inline void every_parent(std::vector<proc_reading>& out) {
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    proc_reading p;
    if (read_stat(std::strtoll(e->d_name, nullptr, 10), p, nullptr)) out.push_back(p);
  }
  ::closedir(d);
}
}  // namespace proc_files

/// The command of process `p` (cmdline, or its comm where that is empty: a zombie, a kernel thread).
inline std::string read_command(std::int64_t pid, const std::string& comm) {
  char path[64], buf[4096];
  std::snprintf(path, sizeof path, "/proc/%lld/cmdline", static_cast<long long>(pid));
  const long n = proc_files::read_small(path, buf, sizeof buf);
  return short_command(std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0), comm);
}

/// This process's own command, as `read_command` gives it: a child that shows it has not yet
/// called exec (a subprocess read between its fork and its exec) or never will (a fork), so its
/// command is read again at the next reading rather than kept.
inline const std::string& own_command() {
  static const std::string own = read_command(static_cast<std::int64_t>(::getpid()), "");
  return own;
}

/// This process's descendants now, breadth first, at most `max_tracked`, their commands not yet
/// read (`child_watch::name`). Never throws: a process gone between two reads is left out, an
/// unreadable /proc gives `ok` false.
inline children_reading read_children() noexcept {
  children_reading r;
  WARMUP_TRY {
    r.at_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
    timespec boot{};
    if (::clock_gettime(CLOCK_BOOTTIME, &boot) == 0)
      r.at_ticks = (static_cast<std::uint64_t>(boot.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(boot.tv_nsec)) /
                   ns_per_tick();
    rusage ru{};
    if (::getrusage(RUSAGE_CHILDREN, &ru) != 0) return r;
    r.reaped_ns = (static_cast<std::uint64_t>(ru.ru_utime.tv_sec) + static_cast<std::uint64_t>(ru.ru_stime.tv_sec)) *
                      1'000'000'000u +
                  (static_cast<std::uint64_t>(ru.ru_utime.tv_usec) + static_cast<std::uint64_t>(ru.ru_stime.tv_usec)) * 1000u;
    const std::int64_t self = ::getpid();
    std::vector<std::int64_t> queue;
    std::vector<proc_reading> everyone;  // the fallback's table of parents
    const bool by_files = proc_files::children_of(self, queue);
    if (!by_files) {
      proc_files::every_parent(everyone);
      for (const proc_reading& p : everyone)
        if (p.ppid == self) queue.push_back(p.pid);
    }
    for (std::size_t i = 0; i < queue.size(); ++i) {
      if (r.procs.size() == children_reading::max_tracked) {
        r.complete = false;
        break;
      }
      proc_reading p;
      if (!proc_files::read_stat(queue[i], p, &p.comm)) continue;  // gone meanwhile
      r.procs.push_back(std::move(p));
      if (by_files) {
        (void)proc_files::children_of(queue[i], queue);
      } else {
        for (const proc_reading& q : everyone)
          if (q.ppid == queue[i]) queue.push_back(q.pid);
      }
    }
    r.ok = true;
  } WARMUP_CATCH_ALL {
    r.ok = false;
  }
  return r;
}

/// The CPU time this process's descendants spent between readings `before` and `after`, by
/// command, largest first. `seen` holds the latest reading of each process some reading between
/// them found (`note_children`), with its command; `self` is this process's pid.
///
/// A process alive at the end counts its own and its reaped children's time since the start (all
/// of it, where born since). A process gone by the end was reaped by its nearest ancestor still
/// alive, or by this process: its time before the start is taken off that one's figure, and what
/// this process reaped is named by the own CPU time a reading saw each process spend, the rest
/// under `exited_children`. A process that existed at the start but was not read then (past the
/// bound) is left out: its time before the call is not known.
inline std::vector<child_cpu> child_cpu_during(const children_reading& before, const children_reading& after,
                                               const std::vector<proc_reading>& seen, std::int64_t self) {
  std::vector<child_cpu> out;
  if (!before.ok || !after.ok) return out;
  const std::uint64_t tick = ns_per_tick();
  const auto find = [](const std::vector<proc_reading>& in, const proc_reading& p) -> const proc_reading* {
    for (const proc_reading& q : in)
      if (q.same(p)) return &q;
    return nullptr;
  };
  const auto total = [](const proc_reading& p) { return static_cast<std::int64_t>(p.own_ticks + p.reaped_ticks); };
  // Each process alive at the end: its figure since the start, in ticks.
  std::vector<std::int64_t> alive(after.procs.size(), 0);
  std::vector<bool> known(after.procs.size(), true);
  for (std::size_t i = 0; i < after.procs.size(); ++i) {
    const proc_reading& p = after.procs[i];
    const proc_reading* then = find(before.procs, p);
    if (then == nullptr && p.start_ticks < before.at_ticks) known[i] = false;  // there, unread
    alive[i] = total(p) - (then != nullptr ? total(*then) : 0);
  }
  // The processes gone by the end, each with its last reading.
  std::vector<const proc_reading*> gone;
  const auto note_gone = [&](const proc_reading& p) {
    if (find(after.procs, p) != nullptr) return;
    for (const proc_reading*& g : gone)
      if (g->same(p)) return;
    gone.push_back(&p);
  };
  for (const proc_reading& p : seen) note_gone(p);
  for (const proc_reading& p : before.procs) note_gone(p);
  std::int64_t pool_ns = static_cast<std::int64_t>(after.reaped_ns) - static_cast<std::int64_t>(before.reaped_ns);
  struct named_part {
    const proc_reading* p;
    std::int64_t ticks;
  };
  std::vector<named_part> reaped_here;  // gone, reaped by this process: their own time seen
  for (const proc_reading* g : gone) {
    // Its reaper: the nearest ancestor alive at the end, or this process; else none we read.
    std::int64_t parent = g->ppid;
    std::size_t reaper = after.procs.size();
    bool by_self = false;
    for (std::size_t depth = 0; depth < children_reading::max_tracked * 2; ++depth) {
      if (parent == self) {
        by_self = true;
        break;
      }
      auto a = std::find_if(after.procs.begin(), after.procs.end(), [&](const proc_reading& q) { return q.pid == parent; });
      if (a != after.procs.end()) {
        reaper = static_cast<std::size_t>(a - after.procs.begin());
        break;
      }
      const proc_reading* up = nullptr;
      for (const proc_reading* h : gone)
        if (h->pid == parent) up = h;
      if (up == nullptr) break;  // reparented, or its parent never read: its time is not in our figures
      parent = up->ppid;
    }
    const proc_reading* then = find(before.procs, *g);
    const std::int64_t earlier = then != nullptr ? total(*then) : 0;
    if (reaper != after.procs.size()) alive[reaper] -= earlier;
    if (!by_self) continue;
    pool_ns -= earlier * static_cast<std::int64_t>(tick);
    const std::int64_t own = static_cast<std::int64_t>(g->own_ticks) -
                             (then != nullptr ? static_cast<std::int64_t>(then->own_ticks) : 0);
    reaped_here.push_back({g, std::max<std::int64_t>(own, 0)});
  }
  const auto add = [&](const std::string& command, std::uint64_t ns) {
    auto it = std::find_if(out.begin(), out.end(), [&](const child_cpu& c) { return c.command == command; });
    if (it == out.end()) it = out.insert(out.end(), child_cpu{command, 0, 0});
    it->ns += ns;
    ++it->processes;
  };
  for (std::size_t i = 0; i < after.procs.size(); ++i)
    if (known[i]) add(after.procs[i].command, static_cast<std::uint64_t>(std::max<std::int64_t>(alive[i], 0)) * tick);
  // What this process reaped: named where a reading saw it spend it, held to the pool.
  const std::uint64_t pool = static_cast<std::uint64_t>(std::max<std::int64_t>(pool_ns, 0));
  std::uint64_t named = 0;
  for (const named_part& n : reaped_here) named += static_cast<std::uint64_t>(n.ticks) * tick;
  const double scale = named > pool ? double(pool) / double(named) : 1.0;
  std::uint64_t given = 0;
  for (const named_part& n : reaped_here) {
    const auto ns = static_cast<std::uint64_t>(double(static_cast<std::uint64_t>(n.ticks) * tick) * scale);
    given += ns;
    add(n.p->command, ns);
  }
  // The rest: children no reading saw, or the part of their time after the last reading. Less
  // than a tick a process named is the ticks' rounding, not a process.
  const std::uint64_t rest = pool - std::min(pool, given);
  if (rest >= tick * (reaped_here.size() + 1)) out.push_back({std::string(exited_children), rest, 0});  // how many: unknown
  out.erase(std::remove_if(out.begin(), out.end(), [](const child_cpu& c) { return c.ns == 0; }), out.end());
  std::sort(out.begin(), out.end(), [](const child_cpu& a, const child_cpu& b) { return a.ns > b.ns; });
  if (out.size() > child_entries_kept) {
    child_cpu rest_of{std::string(other_processes), 0, 0};
    for (std::size_t i = child_entries_kept - 1; i < out.size(); ++i) rest_of.ns += out[i].ns, rest_of.processes += out[i].processes;
    out.resize(child_entries_kept - 1);
    out.push_back(std::move(rest_of));
  }
  return out;
}

/// Puts a first call's child processes in `a.other_threads` (cause `child_process`, `where` the
/// command, `count` the processes), keeping it largest first. Not among `a.causes`: their CPU
/// time ran beside the call, which waited on them, and adds nothing to the call's own time. The
/// remedies are worked out again: a compiler the call waited for is the compile caches' evidence.
inline void add_child_processes(attribution& a, const std::vector<child_cpu>& children) {
  if (children.empty()) return;
  for (const child_cpu& c : children)
    a.other_threads.push_back({cause::child_process, std::chrono::nanoseconds{static_cast<long long>(c.ns)}, c.processes,
                               c.command, {}});
  std::stable_sort(a.other_threads.begin(), a.other_threads.end(),
                   [](const cause_time& x, const cause_time& y) { return x.time > y.time; });
  a.remedies = remedies_for(a);
}

/// The process's part: how many first calls read children now, and the latest reading of each
/// descendant a reading found while one did, with its command, so that a process reaped before a
/// call's end is still named. Held in the cause store, under its mutex (runtime/child_watch.hpp).
struct child_watch {
  /// Processes remembered at most: past it, a new one's time is counted, under `exited_children`.
  static constexpr std::size_t max_seen = 4 * children_reading::max_tracked;
  std::atomic<std::uint32_t> open{0};  ///< first calls reading children now: `note_children` reads none otherwise
  std::vector<proc_reading> seen;
  std::vector<std::uint64_t> seen_at;  ///< when each was last read (steady ns)

  /// The commands of `r`'s processes this watch knows, filled in; those it does not are left empty.
  void name(children_reading& r) const {
    for (proc_reading& p : r.procs)
      for (const proc_reading& q : seen)
        if (q.same(p)) p.command = q.command;
  }
  /// Keeps `r`'s readings (named) as the latest of each.
  void keep(const children_reading& r) {
    for (const proc_reading& p : r.procs) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const proc_reading& q) { return q.same(p); });
      if (it != seen.end()) {
        *it = p;
        seen_at[static_cast<std::size_t>(it - seen.begin())] = r.at_ns;
      } else if (seen.size() < max_seen) {
        seen.push_back(p);
        seen_at.push_back(r.at_ns);
      }
    }
  }
  /// The readings taken at or after `since`.
  std::vector<proc_reading> seen_since(std::uint64_t since) const {
    std::vector<proc_reading> out;
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen_at[i] >= since) out.push_back(seen[i]);
    return out;
  }
  void reset() noexcept {
    open.store(0, std::memory_order_relaxed);
    seen.clear();
    seen_at.clear();
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
