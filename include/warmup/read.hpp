/// @file
/// @brief Reports read back from their JSON: `warmup::read_report`, `warmup::read_merged`.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "warmup/detail/io/json_parse.hpp"
#include "warmup/detail/io/json_read.hpp"
#include "warmup/json.hpp"
#include "warmup/merge.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

namespace detail {

/// The document's schema where it is `wanted` or `previous` (an older version still read), or
/// empty with an error saying what the text is instead.
inline std::string_view expect_schema(const json_value& doc, std::string_view wanted, std::string_view previous,
                                      std::string& error) {
  const std::string_view family = wanted.substr(0, wanted.find('/') + 1);
  if (doc.kind != json_value::type::object) return error = "not a warmup report: the JSON is not an object", "";
  const json_value* schema = doc.find("schema");
  if (schema == nullptr || schema->kind != json_value::type::string)
    return error = "not a warmup report: it has no \"schema\" (JSON from another tool?)", "";
  if (schema->text == wanted) return wanted;
  if (!previous.empty() && schema->text == previous) return previous;
  const std::string got = schema->text.substr(0, 60);
  if (schema->text.compare(0, family.size(), family) == 0)
    error = "schema \"" + got + "\" is a version this build does not read (it reads " + std::string(wanted) +
            (previous.empty() ? "" : " and " + std::string(previous)) + ")";
  else if (schema->text.rfind("warmup.", 0) == 0)
    error = "a \"" + got + "\" document, not a \"" + std::string(wanted) + "\" one";
  else
    error = "not a warmup report: its schema is \"" + got + "\"";
  return "";
}

/// A document of schema `schema` (or `previous`, then `*read_previous` is set) read into a `T`.
template <class T>
std::optional<T> read_document(std::string_view text, std::string_view schema, std::string& error,
                               std::string_view previous = {}, bool* read_previous = nullptr) {
  json_value doc;
  json_parser parser(text);
  if (!parser.parse(doc)) return error = "not valid JSON: " + parser.error(), std::nullopt;
  const std::string_view found = expect_schema(doc, schema, previous, error);
  if (found.empty()) return std::nullopt;
  if (read_previous != nullptr) *read_previous = found != schema;
  T out{};
  json_reader reader;
  if (!reader.read(doc, out, json_path{})) return error = reader.error(), std::nullopt;
  return out;
}

}  // namespace detail

/// @brief A report from its JSON (`warmup::to_json`, schema `warmup.report/3` or the previous
/// `warmup.report/2`), or empty with `error` saying why: not JSON (with line and column), not a
/// warmup report, another schema, or a value of the wrong type (with its path,
/// "sites[3].host.first").
///
/// Keys this version does not know are skipped and missing ones keep their defaults, so
/// reports of other 0.x releases of the same schema read. A `warmup.report/2` report has no
/// first calls or timeline: they stay empty, and `call_times_recorded` is false.
/// \code
///   std::string error;
///   if (const std::optional<warmup::report> r = warmup::read_report(text, error)) warmup::print(*r, std::cout);
///   else std::cerr << error << '\n';
/// \endcode
inline std::optional<report> read_report(std::string_view json, std::string& error) {
  bool previous = false;
  std::optional<report> r = detail::read_document<report>(json, json_schema, error, json_schema_previous, &previous);
  if (r && previous) r->call_times_recorded = false;
  return r;
}

/// @brief A merged report from its JSON (schema `warmup.merged/1`), or empty with `error` set.
inline std::optional<merged_report> read_merged(std::string_view json, std::string& error) {
  return detail::read_document<merged_report>(json, merged_json_schema, error);
}

/// @brief The whole of a regular file, or empty with `error` naming the file and the reason.
/// Anything else (a FIFO, a device, a directory) is refused at once: it is opened without
/// blocking and asked what it is before a byte is read, so a FIFO nobody writes never hangs
/// the reader.
/// \code
///   std::string error;
///   const std::optional<std::string> text = warmup::read_text_file("report.json", error);
/// \endcode
inline std::optional<std::string> read_text_file(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return error = path + ": " + std::strerror(errno), std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a file";
    ::close(fd);
    return error = path + ": not a regular file (" + what + "); a report is read from a file", std::nullopt;
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      return error = path + ": " + std::strerror(saved), std::nullopt;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
