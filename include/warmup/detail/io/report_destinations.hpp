/// @file
/// @brief Writing reports to files and streams: destinations, placeholders, atomic files, the
/// report at exit (report_file-inl.hpp defines what report_file.hpp declares).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warmup/detail/io/csv_writer.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/io/json_writer.hpp"
#include "warmup/detail/io/path_target.hpp"
#include "warmup/detail/io/table_writer.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/report.hpp"
#include "warmup/detail/io/svg_writer.hpp"
#include "warmup/detail/io/trace_writer.hpp"
#include "warmup/report_file.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
/// Whether write_report_to says what is wrong with a destination list, or start-up already did.
enum class spec_errors { say, already_said };
inline bool write_report_to(const report& r, std::string_view spec, bool forked,
                            spec_errors errors = spec_errors::say, std::int64_t started_ms = -1) noexcept;

}  // namespace detail
WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The one reading of a path's placeholders, left to right, so that `%%` is a percent sign
/// and the character after it is text: `y%%r.json` is the fixed path `y%r.json`, with no rank
/// in it. Calls `text(c)` for each character written as it stands (one '%' for a `%%`) and
/// `placeholder(c)` for each of `%r`, `%p`, `%h`; returns what is wrong, or empty.
template <class Text, class Placeholder>
std::string scan_placeholders(std::string_view path, Text&& text, Placeholder&& placeholder) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      text(path[i]);
      continue;
    }
    if (i + 1 == path.size()) return "a lone % at the end of '" + printable(path, 200) + "' (%% writes one)";
    const char c = path[++i];
    if (c == '%') text('%');
    else if (c == 'r' || c == 'p' || c == 'h') placeholder(c);
    else
      return "'%" + printable(std::string_view(&path[i], 1), 4) + "' in '" + printable(path, 200) +
             "' is not a placeholder (%r rank, %p pid, %h host, %% a percent sign)";
  }
  return {};
}

/// What is wrong with the placeholders of a path (`%r`, `%p`, `%h`, `%%`), or empty.
inline std::string placeholder_error(std::string_view path) {
  return scan_placeholders(path, [](char) {}, [](char) {});
}

/// Whether `path` places placeholder `p` (`'r'`, `'p'`, `'h'`); never for an escaped `%%p`.
inline bool places(std::string_view path, char p) {
  bool found = false;
  (void)scan_placeholders(path, [](char) {}, [&](char c) { found = found || c == p; });
  return found;
}

/// `path` with its placeholders replaced: %r the rank (0 outside a job), %p the pid, %h the
/// host name (letters, digits, '-' and '_' kept, anything else '_', so it never leaves the
/// folder), %% a percent sign. A path parse_destinations accepted has no other (what follows a
/// wrong `%` is left out: `placeholder_error` refused it before this is reached).
inline std::string expand_placeholders(std::string_view path, const run_identity& id) {
  std::string out;
  (void)scan_placeholders(path, [&](char c) { out += c; }, [&](char c) {
    if (c == 'r') out += std::to_string(id.rank.value_or(0));
    else if (c == 'p') out += std::to_string(id.pid);
    else
      for (const char h : id.host) {
        const bool keep = (h >= 'a' && h <= 'z') || (h >= 'A' && h <= 'Z') || (h >= '0' && h <= '9') || h == '-' || h == '_';
        out += keep ? h : '_';
      }
  });
  return out;
}

/// What a file destination gets before its extension so that processes never overwrite each
/// other: the rank where it is above 0 and the path places no %r, then the pid of a forked
/// child where the path places no %p; joined by '.'.
inline std::string file_tag(std::string_view path, const run_identity& id, bool forked) {
  std::string tag;
  if (id.rank.value_or(0) > 0 && !places(path, 'r')) tag = std::to_string(*id.rank);
  if (forked && !places(path, 'p')) tag += (tag.empty() ? "" : ".") + std::to_string(id.pid);
  return tag;
}

}  // namespace detail

WARMUP_END_NAMESPACE

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// "out/report.json" -> "out/report.<tag>.json" (before ".trace.json" for traces): where a
/// forked child writes its own report, leaving its parent's whole.
inline std::string tagged_path(std::string_view path, std::string_view tag) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t base = slash == std::string_view::npos ? 0 : slash + 1;
  std::size_t dot = path.rfind(".trace.json");
  if (dot == std::string_view::npos || dot < base || dot + 11 != path.size()) dot = path.rfind('.');
  if (dot == std::string_view::npos || dot <= base) dot = path.size();
  return std::string(path.substr(0, dot)) + "." + std::string(tag) + std::string(path.substr(dot));
}

/// The report files this process wrote, each of which its later reports replace: device,
/// inode and the time of its writing (an inode freed by a replaced report can come back as
/// another process's file). One per process, behind the anchor, so that a report one copy of the
/// library wrote (the program's `write_report`) is the process's own to the copy that writes the
/// report at exit (the NVTX tool's, say). Held while one of its threads decides where a report
/// goes and puts it there.
struct own_report_files {
  struct file {
    dev_t device;
    ino_t inode;
    std::int64_t written_ns;
  };
  std::mutex m;
  std::vector<file> files;

  static std::int64_t written_ns(const struct stat& st) {
    return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  bool holds(const struct stat& st) const {
    for (const file& f : files)
      if (f.device == st.st_dev && f.inode == st.st_ino && f.written_ns == written_ns(st)) return true;
    return false;
  }
  void add(const struct stat& st) {
    for (file& f : files)
      if (f.device == st.st_dev && f.inode == st.st_ino) {
        f.written_ns = written_ns(st);
        return;
      }
    files.push_back({st.st_dev, st.st_ino, written_ns(st)});
  }
};
inline own_report_files& own_reports() { return shared<own_report_files, slot::report_files>(); }

/// An advisory lock on a folder while a process decides which file its report takes and
/// renames it there, so that two processes never both take one path. Waits at most 5 s (a
/// process stopped while holding it delays the report, never hangs it); unlocked where the
/// folder cannot be opened or locked.
class folder_lock {
 public:
  explicit folder_lock(const std::string& folder) noexcept
      : fd_(::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    for (int waited_ms = 0; fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0; ++waited_ms) {
      if ((errno != EWOULDBLOCK && errno != EINTR) || waited_ms == 5000) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      const timespec ms{0, 1000000};
      ::nanosleep(&ms, nullptr);
    }
  }
  ~folder_lock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  folder_lock(const folder_lock&) = delete;
  folder_lock& operator=(const folder_lock&) = delete;

 private:
  int fd_;
};

/// Now, in wall-clock ms, on the clock the kernel dates files by: its coarse clock, up to a tick
/// behind the precise one. A process's start read here is never after the time of a file written
/// later (write_own_report's "written before this process started"); read on the precise clock, a
/// file another process writes a millisecond after this one started would look older, and be
/// replaced.
inline std::int64_t file_clock_ms() noexcept {
  timespec now{};
  if (::clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0) (void)::clock_gettime(CLOCK_REALTIME, &now);
  return std::int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

/// Writes this process's report to the regular file `path` (or none yet), losing no other
/// process's: `path` is taken where it does not exist, was last written before this process
/// started (`started_ms`, wall-clock ms: an earlier run's) or by this process itself; where
/// another process wrote it since, the report goes beside it, tagged with the pid
/// (`report.4242.json`, then `report.4242.2.json`, ...), and `moved` says where. `started_ms`
/// below 0: `path` is replaced whatever wrote it. Returns why it failed, or "".
inline std::string write_own_report(const std::string& path, const std::string& text, std::int64_t started_ms, int pid,
                                    std::string& moved) {
  if (started_ms < 0) return replace_file(path, text);
  own_report_files& own = own_reports();
  const std::lock_guard<std::mutex> mine(own.m);
  const folder_lock theirs(folder_of(path));
  std::string target = path;
  for (int n = 1;; ++n) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) break;  // none yet (or unreadable: the write says)
    const std::int64_t written_ms = std::int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (S_ISREG(st.st_mode) && (written_ms < started_ms || own.holds(st))) break;
    if (n == 1000) return cannot_write(path, EEXIST);
    target = tagged_path(path, std::to_string(pid) + (n == 1 ? "" : "." + std::to_string(n)));
  }
  struct stat written {};
  std::string why = replace_file(target, text, &written);
  if (!why.empty()) return why;
  own.add(written);
  if (target != path) moved = target;
  return {};
}

/// write_report: placeholders expanded, and a file of a rank above 0 or of a forked child
/// tagged with them where its path does not place them (file_tag). A path is what `target_of`
/// says (links followed; this process's descriptors, devices and FIFOs written in place); a
/// file another process of this run wrote is kept, and this report goes beside it with a
/// message (write_own_report; `started_ms` below 0: replaced). What the spec names wrongly or
/// cannot be written goes to stderr as the table, so nothing measured is lost. The report at
/// exit passes `spec_errors::already_said`: start-up said what was wrong.
inline bool write_report_to(const report& r, std::string_view spec, bool forked, spec_errors errors,
                            std::int64_t started_ms) noexcept {
  const busy_section busy;
  WARMUP_TRY {
    std::vector<report_destination> dests;
    std::string error;
    bool ok = parse_destinations(spec, dests, error);
    if (!ok && errors == spec_errors::say)
      std::fprintf(stderr, "warmup: write_report: %s; the table goes to stderr in its place\n", error.c_str());
    bool table_to_stderr = false;
    const auto table_instead = [&] {
      if (table_to_stderr) return;
      const std::string table = format_report(r, report_format::table);
      std::fwrite(table.data(), 1, table.size(), stderr);
      std::fflush(stderr);
      table_to_stderr = true;
    };
    for (report_destination& d : dests) {
      const std::string text = format_report(r, d.format);
      if (d.target == "stdout" || d.target == "stderr") {
        std::FILE* stream = d.target == "stdout" ? stdout : stderr;
        std::fwrite(text.data(), 1, text.size(), stream);
        std::fflush(stream);
        table_to_stderr = table_to_stderr || (d.target == "stderr" && d.format == report_format::table);
        continue;
      }
      // What the path is (a FIFO, a link, a descriptor) is asked of the path placeholders
      // name, never of the path as written: `pipe_r%r.json` stands for `pipe_r0.json`.
      const std::string tag = file_tag(d.target, r.identity, forked);
      d.target = expand_placeholders(d.target, r.identity);
      path_target t = target_of(d.target);
      if (!tag.empty() && t.kind == path_target::file) t = target_of(tagged_path(t.path, tag));
      std::string why, moved;
      if (t.kind == path_target::file) {
        why = write_own_report(t.path, text, started_ms, r.identity.pid, moved);
        if (!moved.empty())
          std::fprintf(stderr, "warmup: another process wrote '%s' while this one ran; this process's report is '%s' beside it\n",
                       detail::printable(t.path, 300).c_str(), detail::printable(moved, 300).c_str());
      } else {
        why = write_target(d.target, t, text);
      }
      if (!why.empty()) {
        ok = false;
        std::fprintf(stderr, "warmup: %s; the report goes to stderr instead\n", detail::printable(why, 600).c_str());
        table_instead();
      }
    }
    if (!error.empty()) table_instead();
    return ok;
  } WARMUP_CATCH_ALL {
    std::fputs("warmup: the report could not be written (out of memory)\n", stderr);
    return false;
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE


#include "warmup/detail/header_end.hpp"
