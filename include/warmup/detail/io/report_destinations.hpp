/// @file
/// @brief Writing reports to files and streams: destinations, placeholders, atomic files, the
/// report at exit (report_file-inl.hpp defines what report_file.hpp declares).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "warmup/detail/io/csv_writer.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/io/json_writer.hpp"
#include "warmup/detail/io/table_writer.hpp"
#include "warmup/report.hpp"
#include "warmup/detail/io/svg_writer.hpp"
#include "warmup/detail/io/trace_writer.hpp"
#include "warmup/report_file.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
/// Whether write_report_to says what is wrong with a destination list, or start-up already did.
enum class spec_errors { say, already_said };
inline bool write_report_to(const report& r, std::string_view spec, bool forked,
                            spec_errors errors = spec_errors::say) noexcept;

/// Writes all of `text` to `fd`, through partial writes and signals; returns 0 or the errno.
inline int write_all(int fd, const std::string& text) noexcept {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// A message naming why a file could not be written, the reason first: a long path is what
/// gets cut, never why.
inline std::string cannot_write(const std::string& path, int e) {
  return std::string("cannot write (") + std::strerror(e) + ") '" + path + "'";
}

/// The folder part of `path` with its slash, "" for a bare name: a file's temporary is made
/// there, so that the rename that puts it in place stays on one file system.
inline std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string{} : path.substr(0, slash + 1);
}

/// 64 bits no other user can guess, for temporary file names: from the kernel's random source
/// when it answers at once, else mixed from the clock, the pid and a counter.
inline std::uint64_t unpredictable() noexcept {
  std::uint64_t v = 0;
#if defined(__linux__)
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
#endif
  static std::atomic<std::uint64_t> counter{0};
  v = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  v ^= static_cast<std::uint64_t>(::getpid()) << 32;
  v ^= (counter.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9E3779B97F4A7C15ULL;
  return v;
}
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

/// A destination that exists and is no regular file (a terminal, `/dev/stdout`, a pipe,
/// `/dev/fd/N`) is written in place: no temporary file can be renamed over it. Opened without
/// blocking, so a FIFO nobody reads fails at once instead of hanging the program.
inline bool is_special_file(const std::string& path) noexcept {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

inline std::string write_special_file(const std::string& path, const std::string& text) {
  const auto failed = [&](int e) { return cannot_write(path, e); };
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return failed(errno == ENXIO ? EPIPE : errno);
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const int error = write_all(fd, text);
  ::close(fd);
  return error == 0 ? std::string{} : failed(error);
}

/// write_report: placeholders expanded, and a file of a rank above 0 or of a forked child
/// tagged with them where its path does not place them (file_tag). What the spec
/// names wrongly or cannot be written goes to stderr as the table, so nothing measured is lost.
/// The report at exit passes `spec_errors::already_said`: start-up said what was wrong.
inline bool write_report_to(const report& r, std::string_view spec, bool forked, spec_errors errors) noexcept {
  const busy_section busy;
  WARMUP_TRY {
    std::vector<report_destination> dests;
    std::string error;
    bool ok = parse_destinations(spec, dests, error);
    if (!ok && errors == spec_errors::say)
      std::fprintf(stderr, "warmup: WARMUP_REPORT: %s; the table goes to stderr in its place\n", error.c_str());
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
      // Whether it is a FIFO or a terminal is asked of the path placeholders name, never of
      // the path as written: `pipe_r%r.json` stands for `pipe_r0.json`.
      const std::string tag = file_tag(d.target, r.identity, forked);
      d.target = expand_placeholders(d.target, r.identity);
      if (!tag.empty() && !is_special_file(d.target)) d.target = tagged_path(d.target, tag);
      const std::string why = is_special_file(d.target) ? write_special_file(d.target, text) : write_file_atomically(d.target, text);
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

WARMUP_BEGIN_NAMESPACE

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
