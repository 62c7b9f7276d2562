/// @file
/// @brief The CSV writer: one row per record, columns from its field list (csv-inl.hpp defines
/// `to_csv`, which csv.hpp declares, with it).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/report_fields.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/csv.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

class csv_row {
 public:
  explicit csv_row(std::string& out) : out_(out) {}
  ~csv_row() { out_ += "\r\n"; }
  csv_row(const csv_row&) = delete;
  csv_row& operator=(const csv_row&) = delete;

  /// A text field, quoted when it holds a comma, a quote or a line break (quotes doubled). One a
  /// spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage return:
  /// OWASP's rule against CSV injection) gets a ' before it, and is quoted. Figures never come
  /// here (cell() writes them), so a negative one stays a number.
  void text(std::string_view s) {
    sep();
    const std::string v = repair_utf8(s, controls::keep_line_breaks);
    const bool formula = !v.empty() && std::string_view("=+-@\t\r").find(v.front()) != std::string_view::npos;
    if (!formula && v.find_first_of(",\"\r\n") == std::string::npos) {
      out_ += v;
      return;
    }
    out_ += '"';
    if (formula) out_ += '\'';
    for (char c : v) {
      if (c == '"') out_ += '"';
      out_ += c;
    }
    out_ += '"';
  }
  /// A cell of any scalar report value (durations as integer nanoseconds); an empty one for
  /// a value that does not exist.
  template <class T>
  void cell(const T* v) {
    if (v == nullptr) return text({});
    if constexpr (std::is_same_v<T, std::string>) {
      text(*v);
    } else if constexpr (std::is_enum_v<T>) {
      text(to_string(*v));
    } else {
      sep();
      if constexpr (std::is_same_v<T, std::chrono::nanoseconds>) out_ += std::to_string(v->count());
      else if constexpr (std::is_same_v<T, bool>) out_ += *v ? "true" : "false";
      else if constexpr (std::is_same_v<T, double>) append_json_number(out_, *v);
      else out_ += std::to_string(*v);
    }
  }

 private:
  void sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

/// A record's columns flattened, nested records by their dotted path ("host.steady.p50"), lists
/// left out (a cell holds one value): the header, or a record's cells (all
/// empty for an absent record).
template <class T>
void csv_record(csv_row& row, const T* r, bool header, const std::string& prefix = {}) {
  for_each_field_of(r, [&](const char* name, const auto* v) {
    using V = std::decay_t<decltype(*v)>;
    if constexpr (is_optional<V>) {
      using U = typename V::value_type;
      const U* u = v != nullptr && *v ? &**v : nullptr;
      if constexpr (is_record<U>) csv_record(row, u, header, prefix + name + ".");
      else if constexpr (!is_vector<U>) header ? row.text(prefix + name) : row.cell(u);
    } else if constexpr (is_record<V>) {
      csv_record(row, v, header, prefix + name + ".");
    } else if constexpr (!is_vector<V>) {
      header ? row.text(prefix + name) : row.cell(v);
    }
  });
}

/// A header row, then a row per record: reports' and merged reports' sites.
template <class T>
std::string csv_table(const std::vector<T>& records) {
  std::string out;
  {
    csv_row head(out);
    csv_record<T>(head, nullptr, true);
  }
  for (const T& r : records) {
    csv_row row(out);
    csv_record(row, &r, false);
  }
  return out;
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
