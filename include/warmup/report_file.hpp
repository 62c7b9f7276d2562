/// @file
/// @brief Writing reports to files and streams: `warmup::write_report`, and `WARMUP_REPORT` at exit.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
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

/// @brief One report format: its name (after a colon in a destination), the file extension that
/// picks it, and its writer.
/// \code
///   const std::string json = warmup::info(warmup::report_format::json).write(warmup::snapshot());
/// \endcode
struct report_format_info {
  report_format format;         ///< the format
  std::string_view name;        ///< its name: "json"
  std::string_view extension;   ///< the file extension that picks it: ".json"
  std::string (*write)(const report&);  ///< its writer: the whole document, as a file holds it
};

/// @brief Every report format, the one list that destinations, `format_report` and the tests
/// read. A new format is a writer and a line here.
/// \code
///   for (const auto& f : warmup::report_formats) std::cout << f.name << ": *" << f.extension << '\n';
/// \endcode
inline constexpr report_format_info report_formats[] = {
    {report_format::table, "table", ".txt",
     [](const report& r) { return detail::table_text(r); }},
    {report_format::json, "json", ".json", [](const report& r) { return to_json(r) + "\n"; }},
    {report_format::csv, "csv", ".csv", [](const report& r) { return to_csv(r); }},
    {report_format::trace, "trace", ".trace.json", [](const report& r) { return to_trace(r) + "\n"; }},
    {report_format::svg, "svg", ".svg", [](const report& r) { return to_svg(r); }},
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

/// "'.txt', '.json', ...": the extensions that pick a format, for messages.
inline std::string format_extensions() {
  std::string out;
  for (const report_format_info& f : report_formats) out += (out.empty() ? "" : ", ") + std::string(f.extension);
  return out;
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
/// @brief Writes `text` to `path` safely: into a new temporary file beside it, then renamed over
/// it, so a crash or a full disk never leaves a half-written file where a good one was, and of
/// two writers of one path, one's complete report wins.
///
/// The temporary file is made exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`) under a name no one
/// can guess, with the permissions any new file of the program gets (0666 less the umask), so a
/// link, file or FIFO planted in a shared directory is never written through, read or waited
/// on. Returns an empty string, or why it failed (naming the path).
std::string write_file_atomically(const std::string& path, const std::string& text);
/// @brief Writes `r` to every destination of `spec` (see `parse_destinations`). A destination
/// that cannot be written gets a message on stderr naming it and the reason, and the table
/// goes to stderr in its place, so nothing measured is lost. Never throws. Returns whether
/// every destination was written.
/// \code
///   warmup::write_report(warmup::snapshot(), "stderr,report.json,report.svg");
/// \endcode
bool write_report(const report& r, std::string_view spec) noexcept;

/// @brief The report in one format, as text.
inline std::string format_report(const report& r, report_format f) { return info(f).write(r); }

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
