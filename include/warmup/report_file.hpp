/// @file
/// @brief Writing reports to files and streams: `warmup::write_report`, and `WARMUP_REPORT` at exit.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstddef>
#include <iosfwd>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warmup/csv.hpp"
#include "warmup/json.hpp"
#include "warmup/print.hpp"
#include "warmup/report.hpp"
#include "warmup/svg.hpp"
#include "warmup/trace.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief The formats a report can be written in.
enum class report_format {
  table,  ///< the table for people (`print`), `.txt`
  json,   ///< JSON for programs (`to_json`), `.json`
  csv,    ///< one row a site (`to_csv`), `.csv`
  trace,  ///< a Chrome trace timeline (`to_trace`), `.trace.json`
  svg     ///< a picture (`to_svg`), `.svg`
};

/// @brief The kinds of document written in these formats: one run's report, a merge of many
/// ranks' reports (merge.hpp), a comparison of two runs (compare.hpp).
enum class document_kind : unsigned char {
  report,     ///< `warmup::report`
  merged,     ///< `warmup::merged_report`
  comparison  ///< `warmup::comparison`
};

/// @brief A kind of document as messages name it: "report", "merged report", "comparison".
constexpr std::string_view to_string(document_kind k) noexcept {
  switch (k) {  // no default: a new kind without its name is a -Wswitch warning
    case document_kind::report: return "report";
    case document_kind::merged: return "merged report";
    case document_kind::comparison: return "comparison";
  }
  return "report";
}

namespace detail {
/// The kinds `kinds` as a set, a bit each: a format's `documents`.
template <class... Kinds>
constexpr unsigned kinds_of(Kinds... kinds) noexcept {
  return ((1u << static_cast<unsigned>(kinds)) | ... | 0u);
}
}  // namespace detail

/// @brief One format: its name (after a colon in a destination), the file extension that picks
/// it, the kinds of document written in it, and a report's writer. A merged report's and a
/// comparison's writers are beside them (merge_formats.hpp, compare_formats.hpp), one for each
/// format whose row names their kind, checked against it at compile time.
/// \code
///   const std::string json = warmup::info(warmup::report_format::json).write(warmup::snapshot());
///   const bool pictured = warmup::info(warmup::report_format::svg).writes(warmup::document_kind::merged);
/// \endcode
struct report_format_info {
  report_format format;         ///< the format
  std::string_view name;        ///< its name: "json"
  std::string_view extension;   ///< the file extension that picks it: ".json"
  std::string (*write)(const report&);  ///< its writer: the whole document, as a file holds it
  unsigned documents;  ///< the kinds of document written in it, a bit per `document_kind`

  /// @brief Whether a document of kind `k` is written in this format.
  constexpr bool writes(document_kind k) const noexcept { return (documents >> static_cast<unsigned>(k)) & 1u; }
};

/// @brief Every format, the one list that destinations, `format_report`, `warmup-report`'s
/// `-o`, `warmup::mpi::write_merged` and the tests read. A new format is a writer per kind of
/// document it writes and a line here.
/// \code
///   for (const auto& f : warmup::report_formats) std::cout << f.name << ": *" << f.extension << '\n';
/// \endcode
inline constexpr report_format_info report_formats[] = {
    {report_format::table, "table", ".txt", [](const report& r) { return detail::table_text(r); },
     detail::kinds_of(document_kind::report, document_kind::merged, document_kind::comparison)},
    {report_format::json, "json", ".json", [](const report& r) { return to_json(r) + "\n"; },
     detail::kinds_of(document_kind::report, document_kind::merged, document_kind::comparison)},
    {report_format::csv, "csv", ".csv", [](const report& r) { return to_csv(r); },
     detail::kinds_of(document_kind::report, document_kind::merged)},
    {report_format::trace, "trace", ".trace.json", [](const report& r) { return to_trace(r) + "\n"; },
     detail::kinds_of(document_kind::report)},  // a timeline: one run's report only
    {report_format::svg, "svg", ".svg", [](const report& r) { return to_svg(r); },
     detail::kinds_of(document_kind::report, document_kind::merged)},
};

/// @brief The entry of `report_formats` for `f`.
constexpr const report_format_info& info(report_format f) noexcept {
  return report_formats[static_cast<std::size_t>(f)];
}
namespace detail {
constexpr bool formats_in_order() noexcept {
  for (std::size_t i = 0; i < std::size(report_formats); ++i)
    if (static_cast<std::size_t>(report_formats[i].format) != i) return false;
  return std::size(report_formats) == static_cast<std::size_t>(report_format::svg) + 1;
}
}  // namespace detail
static_assert(detail::formats_in_order(), "warmup: report_formats lists every report_format, in order");

namespace detail {

/// The format whose extension ends `path`, in any case, the longest that does (".trace.json"
/// before ".json"); nullptr where none does. The one rule for a path's format: `WARMUP_REPORT`,
/// `write_report` and every `-o` of `warmup-report` read it here.
inline const report_format_info* format_for_path(std::string_view path) noexcept {
  const auto ends_with_any_case = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (std::size_t i = 0; i < ext.size(); ++i) {
      char c = path[path.size() - ext.size() + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != ext[i]) return false;
    }
    return true;
  };
  const report_format_info* found = nullptr;
  for (const report_format_info& f : report_formats)
    if (ends_with_any_case(f.extension) && (found == nullptr || f.extension.size() > found->extension.size())) found = &f;
  return found;
}

/// ".txt, .json, ...": the extensions that pick a format, for messages.
inline std::string format_extensions() {
  std::string out;
  for (const report_format_info& f : report_formats) out += (out.empty() ? "" : ", ") + std::string(f.extension);
  return out;
}

/// Why a document of kind `k` is not written in format `f`, naming the extensions of those it
/// is written in: "a merged report has no trace format (it is written as .txt, .json, .csv,
/// .svg)"; empty where it is.
inline std::string format_refusal(document_kind k, const report_format_info& f) {
  if (f.writes(k)) return {};
  std::string them;
  for (const report_format_info& g : report_formats)
    if (g.writes(k)) them += (them.empty() ? "" : ", ") + std::string(g.extension);
  return "a " + std::string(to_string(k)) + " has no " + std::string(f.name) +
         " format (it is written as " + them + ")";
}

/// The one rule for where a document of kind `k` goes: the format whose extension ends `path`
/// (`format_for_path`, in any case); nullptr where none does (the caller decides: the table,
/// or a refusal); nullptr too, with `error` saying why (`format_refusal`), where that format
/// does not write a document of kind `k`.
inline const report_format_info* format_for_path(std::string_view path, document_kind k, std::string& error) {
  const report_format_info* f = format_for_path(path);
  if (f == nullptr || f->writes(k)) return f;
  error = format_refusal(k, *f);
  return nullptr;
}

/// The writers of one kind of document besides a report (whose writers are its rows' `write`),
/// one a format in `report_formats`' order, each nullptr where that format's row does not name
/// the kind: nvbench's printer with an empty hook for what it does not print. A specialisation
/// per kind (merge_formats.hpp, compare_formats.hpp) holds `kind` and `writers`.
template <class Document>
struct document_writers;

/// The table `print` writes of a document, as a string: each kind's writer in the table format.
/// (The stream a parameter, so that this header needs only <iosfwd>: the kinds' headers, which
/// instantiate it, include <sstream>.)
template <class Document, class Stream = std::ostringstream>
std::string printed(const Document& d) {
  Stream os;
  print(d, os);
  return os.str();
}

/// A document's writer in one format: the format and the writer.
template <class Document>
struct format_writer {
  report_format format;
  std::string (*write)(const Document&);
};

/// Whether a kind's writers are exactly the formats whose rows name the kind, each once: checked
/// where each kind's writers are defined. A format that does not write the kind has no entry,
/// so a new format for one run's reports is its row alone. (The writers themselves are not
/// compared with nullptr here: under the sanitizers a function's address is no constant.)
template <class Document, std::size_t N>
constexpr bool writers_match_rows(const format_writer<Document> (&writers)[N]) noexcept {
  std::size_t named = 0;
  for (const report_format_info& row : report_formats) named += row.writes(document_writers<Document>::kind) ? 1u : 0u;
  if (N != named) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (!info(writers[i].format).writes(document_writers<Document>::kind)) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (writers[j].format == writers[i].format) return false;
  }
  return true;
}

/// A document in format `f`, through its kind's writer; empty where the format does not write it.
template <class Document>
std::optional<std::string> format_document(const Document& d, report_format f) {
  std::string (*write)(const Document&) = nullptr;
  if constexpr (std::is_same_v<Document, report>) {
    write = info(f).write;
  } else {
    for (const format_writer<Document>& w : document_writers<Document>::writers)
      if (w.format == f) write = w.write;
  }
  if (write == nullptr) return std::nullopt;
  return write(d);
}

}  // namespace detail

/// @brief Where one report goes: a standard stream or a file, and in which format.
/// \code
///   std::vector<warmup::report_destination> ds;
///   if (std::string error; warmup::parse_destinations("stderr,run.json", ds, error))
///     for (const warmup::report_destination& d : ds)
///       std::cout << d.target << ": " << warmup::info(d.format).name << '\n';
/// \endcode
struct report_destination {
  std::string target;  ///< "stdout", "stderr" or a path
  report_format format = report_format::table;  ///< the format written there
};

/// @brief Parses a destination list as `WARMUP_REPORT` takes it: `stderr`, `stdout`, or a path
/// whose extension picks the format (`.txt` table, `.json`, `.csv`, `.trace.json` timeline,
/// `.svg`, in any case), or a path with the format after a colon (`/dev/stdout:json`,
/// `/dev/fd/3:csv`, `pipe:table`), or several of those separated by commas. Returns false, with
/// `error` set, on any entry it cannot use, and on a list that names no destination at all; the
/// entries it could parse are still in `out`.
/// \code
///   std::vector<warmup::report_destination> d;
///   std::string error;
///   warmup::parse_destinations("stderr,out/report.svg", d, error);
/// \endcode
bool parse_destinations(std::string_view spec, std::vector<report_destination>& out, std::string& error);
/// @brief Writes `text` to `path` as the shell's `>` would, and safely: a symlink is followed
/// to its target; a regular file (or none yet) is written into a new temporary file in its
/// folder, then renamed over it, so a crash or a full disk never leaves a half-written file where
/// a good one was, and of two writers of one path, one's complete text wins; this process's own
/// descriptors (`/dev/stdout`, `/dev/fd/N`) are written where they point, and a terminal, FIFO,
/// socket or device in place. Nothing that is no regular file is ever replaced.
///
/// The temporary file is made exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`) under a name no one
/// can guess, with the permissions any new file of the program gets (0666 less the umask), so a
/// link, file or FIFO planted in a shared directory is never written through, read or waited
/// on. Returns an empty string, or why it failed (naming the path).
/// \code
///   if (const std::string why = warmup::write_file_atomically("out/notes.txt", "hello\n"); !why.empty())
///     std::cerr << why << '\n';
/// \endcode
std::string write_file_atomically(const std::string& path, const std::string& text);
/// @brief Writes `r` to every destination of `spec` (see `parse_destinations`). A destination
/// that cannot be written gets a message on stderr naming it and the reason, and the table
/// goes to stderr in its place, so nothing measured is lost. Never throws. Returns whether
/// every destination was written.
/// \code
///   warmup::write_report(warmup::snapshot(), "stderr,report.json,report.svg");
/// \endcode
bool write_report(const report& r, std::string_view spec) noexcept;

/// @brief Writes the report `WARMUP_REPORT` names now, as the exit handler would (device times
/// read back first, beside the parent's in a forked child), and not again at exit. For a
/// program that ends without running exit handlers: Python, ending on an uncaught
/// KeyboardInterrupt, kills itself with SIGINT after its own shutdown, and `import warmup` calls
/// this from its atexit hook then. Returns whether it wrote one: false where the variable is
/// unset, the report was already written, or the library is off (`WARMUP_DISABLE`).
/// \code
///   warmup::write_report_at_exit_now();  // before std::quick_exit, which runs no exit handler
/// \endcode
bool write_report_at_exit_now() noexcept;

/// @brief The report in one format, as text.
inline std::string format_report(const report& r, report_format f) { return info(f).write(r); }

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
