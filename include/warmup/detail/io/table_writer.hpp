/// @file
/// @brief The table writer's parts: cells, notes and lines (print-inl.hpp defines `print`, which
/// print.hpp declares, with them).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "warmup/detail/io/remedy_text.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/print.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline std::string cell_duration(const std::optional<std::chrono::nanoseconds>& d, bool sign = false) {
  if (!d) return "-";
  std::string s = format_duration(*d);
  return sign && d->count() > 0 ? "+" + s : s;
}

inline std::string cell_gbps(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", *v);
  return buf;
}

inline std::string pad(const std::string& s, std::size_t width, bool right) {
  // Width in characters: count UTF-8 lead bytes only.
  std::size_t chars = 0;
  for (const char c : s) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  const std::string fill(chars < width ? width - chars : 0, ' ');
  return right ? fill + s : s + fill;
}

/// Which cold calls an attribution is of.
enum class slow_calls { first, recurrences };

/// Why cold calls were slow, as a head line and under it a short breakdown: one line a cause,
/// largest first, with its share of the excess; past the first few the rest together; then what
/// no cause explains (or by how much the named causes exceed the excess); last what other threads
/// and processes did while the calls waited (a process's CPU time, which may exceed the wait where
/// several ran at once). `has_steady`: the site
/// has a steady p50 (without one the excess is the whole call, and the head says so).
///     why: first call 297 ms over the steady p50:
///         module loads                 104 ms   35%  (21)
///         host code libc.so.6         70.8 ms   24%  (67 samples)
///         ...
///         unattributed                12.0 ms  4.0%
///         while it waited, other threads and processes: module loads 61.0 ms (11), child process
///         gcc -O3 -shared ... 410 ms (1 processes)
inline std::vector<std::string> why_lines(const attribution& a, slow_calls which, bool has_steady) {
  constexpr std::size_t causes_named = 5;  // a sixth cause gets its own line rather than "1 more"
  const std::string who = which == slow_calls::first ? std::string("first call")
                          : a.calls == 1            ? std::string("cold call")
                                                    : std::to_string(a.calls) + " cold calls";
  std::string head;
  if (!has_steady) {
    head = "why: " + who + " " + format_duration(a.excess) + ", no steady p50 to compare with: the excess is the whole call";
  } else if (a.excess.count() <= 0) {
    // Faster than the steady calls: nothing to split, and a share of a negative excess means nothing.
    head = "why: " + who + (a.excess.count() < 0 ? " " + format_magnitude(a.excess) + " under" : " at") +
           " the steady p50: no excess to explain";
    if (a.named.count() > 0)
      head += " (the named causes took " + format_duration(a.named) + " of it, as they may in the steady calls)";
    return {head};
  } else {
    head = "why: " + who + " " + format_duration(a.excess) + " over the steady p50";
  }
  struct part {
    std::string what, time, share, count;
  };
  std::vector<part> parts;
  const bool cap = a.causes.size() > causes_named + 1;
  std::chrono::nanoseconds rest{};
  for (std::size_t i = 0; i < a.causes.size(); ++i) {
    const cause_time& c = a.causes[i];
    if (cap && i >= causes_named) {
      rest = saturating_add(rest, c.time);
      continue;
    }
    // What the count counts is the cause's row (cause.hpp): records, CPU samples, page faults.
    std::string what(describe(c.what));
    if (by_object(c.what)) what += " " + printable(c.where, 40);
    // In a Python process, the Python code most of it was spent in (the JSON has the rest).
    std::string in;
    if (!c.functions.empty())
      in = (c.what == cause::host_code ? "; most called from " : "; most in ") + printable(c.functions.front().function, 60);
    parts.push_back({std::move(what), format_duration(c.time), share(c.time, a.excess),
                     "(" + std::to_string(c.count) + std::string(count_unit(c.what)) + in + ")"});
  }
  if (cap)
    parts.push_back({std::to_string(a.causes.size() - causes_named) + " more causes", format_duration(rest), share(rest, a.excess), ""});
  if (a.unattributed.count() >= 0)
    parts.push_back({"unattributed", format_duration(a.unattributed), share(a.unattributed, a.excess), ""});
  const auto chars = [](const std::string& t) {  // UTF-8 lead bytes, as pad counts
    return std::size_t(std::count_if(t.begin(), t.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  std::size_t what_w = 0, time_w = 0, share_w = 0;
  for (const part& p : parts)
    what_w = std::max(what_w, chars(p.what)), time_w = std::max(time_w, p.time.size()), share_w = std::max(share_w, p.share.size());
  std::vector<std::string> out{head + ":"};
  for (const part& p : parts) {
    std::string line = "    " + pad(p.what, what_w, false) + "  " + pad(p.time, time_w, true) + "  " + pad(p.share, share_w, true);
    if (!p.count.empty()) line += "  " + p.count;
    out.push_back(std::move(line));
  }
  if (a.unattributed.count() < 0)
    out.push_back("    the named causes exceed the excess by " + format_magnitude(a.unattributed) +
                  " (the steady calls spend time on them too)");
  if (!a.other_threads.empty()) {  // not among the causes: what the waiting waited for
    const auto is_process = [](const cause_time& c) { return c.what == cause::child_process; };
    const bool processes = std::any_of(a.other_threads.begin(), a.other_threads.end(), is_process);
    const bool threads = !std::all_of(a.other_threads.begin(), a.other_threads.end(), is_process);
    std::string line = std::string("    while it waited, other ") +
                       (threads && processes ? "threads and processes: " : threads ? "threads: " : "processes: ");
    for (std::size_t i = 0; i < a.other_threads.size() && i < causes_named; ++i) {
      const cause_time& c = a.other_threads[i];
      // A count of 0 (children that exited unseen): how many is not known.
      line += (i == 0 ? "" : ", ") + std::string(describe(c.what)) +
              (by_object(c.what) ? " " + printable(c.where, 40) : std::string()) + " " + format_duration(c.time) +
              (c.count != 0 || !is_process(c) ? " (" + std::to_string(c.count) + std::string(count_unit(c.what)) + ")"
                                               : std::string());
    }
    if (a.other_threads.size() > causes_named) line += ", ...";
    out.push_back(std::move(line));
  }
  for (std::string& line : remedy_lines(a)) out.push_back(std::move(line));
  return out;
}

/// Device memory a first call took (or gave back) worth reading, in either direction: the
/// driver hands it out in pages of 2 MiB and more, so a difference under 1 MiB is another
/// thread's or the driver's bookkeeping. It decides both whether a call gets a host line and
/// whether that line names the memory.
constexpr std::int64_t device_memory_worth_reading = std::int64_t{1} << 20;

inline bool device_memory_tells(const host_signals& h) {
  return h.device_memory_taken &&
         (*h.device_memory_taken >= device_memory_worth_reading || *h.device_memory_taken <= -device_memory_worth_reading);
}

/// The CPU's share of a call in words that follow the figures: "working" from 90% of the call
/// on the CPU (or no wall time to share out), else both shares, "working 68%, waiting 32%"
/// (the working share rounded down, so a call just under 90% never reads "working 90%").
inline std::string cpu_share(std::chrono::nanoseconds cpu, std::chrono::nanoseconds wall) {
  constexpr long long working_percent = 90;
  if (wall.count() <= 0 || cpu * 100 >= wall * working_percent) return "working";
  const long long working = cpu.count() <= 0 ? 0 : static_cast<long long>(cpu.count() * 100 / wall.count());
  return "working " + std::to_string(working) + "%, waiting " + std::to_string(100 - working) + "%";
}

/// Whether a first call's host signals say something about it, worth a line under its site;
/// the others are counted in one line under the table (their figures stay in the JSON).
inline bool host_signals_tell(const host_signals& h, std::chrono::nanoseconds wall) {
  // A wait under a millisecond is a scheduler slice or a driver round trip that any call may
  // take; it tells something only when it is most of the call and long enough to matter.
  const std::chrono::nanoseconds off_cpu = wall - h.cpu;
  const bool waited = off_cpu * 2 > wall && off_cpu >= std::chrono::milliseconds{1};
  // Each minor fault costs about a microsecond (a page mapped, often zeroed): a thousand of them
  // is a millisecond of the call, while a small call's few dozen (its stack, a fresh heap page)
  // explain nothing.
  constexpr std::uint64_t many_minor_faults = 1000;
  return waited || h.major_faults != 0 || h.minor_faults >= many_minor_faults || !h.libraries_loaded.empty() ||
         h.context_existed == false || device_memory_tells(h);
}

/// "first call on the CPU 184 ms of 188 ms (working), 51000 minor and 45 major page faults, loaded
/// 1 shared libraries: libcudnn.so.9"; "... 68.0 ms of 100 ms (working 68%, waiting 32%) ...".
/// Device memory only where it tells (device_memory_worth_reading).
inline std::string host_line(const host_signals& h, std::chrono::nanoseconds wall) {
  std::string out = "first call on the CPU " + format_duration(h.cpu) + " of " + format_duration(wall) + " (" +
                    cpu_share(h.cpu, wall) + "), " + std::to_string(h.minor_faults) + " minor and " +
                    std::to_string(h.major_faults) + " major page faults";
  if (h.context_existed) out += *h.context_existed ? ", context existed" : ", no context yet: it paid for creating it";
  if (device_memory_tells(h)) {
    const std::int64_t b = *h.device_memory_taken;
    out += b >= 0 ? ", took " + format_bytes(static_cast<std::uint64_t>(b)) + " of device memory"
                  : ", gave back " + format_bytes(std::uint64_t{0} - static_cast<std::uint64_t>(b)) + " of device memory";
  }
  if (!h.libraries_loaded.empty()) {
    out += ", loaded " + std::to_string(h.libraries_loaded.size()) + " shared libraries:";
    for (std::size_t i = 0; i < h.libraries_loaded.size() && i < 6; ++i) out += " " + printable(h.libraries_loaded[i], 60);
    if (h.libraries_loaded.size() > 6) out += " ...";
  }
  return out;
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
