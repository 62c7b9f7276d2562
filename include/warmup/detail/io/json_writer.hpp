/// @file
/// @brief The JSON writer: one report record, one JSON object, from its field list (json-inl.hpp
/// defines `to_json`, which json.hpp declares, with it).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <charconv>
#include <chrono>
#include <string>
#include <string_view>
#include <type_traits>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/report_fields.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/report.hpp"
#include "warmup/json.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

class json_out {
 public:
  std::string text;

  /// A key: always one of the library's own names (a field's, a trace event's), plain ASCII
  /// with nothing to escape, so it is copied as it stands (a report holds some 10^5 of them).
  void key(const char* k) {
    comma();
    text += '"';
    text += k;
    text += "\":";
    fresh_ = true;
  }
  void open(char c) {
    comma();
    text += c;
    fresh_ = true;
  }
  void close(char c) {
    text += c;
    fresh_ = false;
  }
  void value(std::string_view s) { comma(), append_json_string(text, s), fresh_ = false; }
  void value(std::uint64_t v) { comma(), integer(v), fresh_ = false; }
  void value(long long v) { comma(), integer(v), fresh_ = false; }
  void value(int v) { comma(), integer(v), fresh_ = false; }
  void value(bool v) { comma(), text += v ? "true" : "false", fresh_ = false; }
  void value(double v) { comma(), append_json_number(text, v), fresh_ = false; }
  void null() { comma(), text += "null", fresh_ = false; }
  /// A number already written as JSON text.
  void number_text(std::string_view v) { comma(), text += v, fresh_ = false; }

 private:
  void comma() {
    if (!fresh_ && !text.empty()) text += ',';
    fresh_ = false;
  }
  template <class I>
  void integer(I v) {
    char buf[24];
    text.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
  bool fresh_ = true;
};

/// Any report value as JSON: records (detail/io/fields.hpp) as objects keyed by field name,
/// durations as integer nanoseconds, enums by name, absent optionals as null.
template <class T>
void write_value(json_out& j, const T& v) {
  if constexpr (is_record<T>) {
    j.open('{');
    for_each_field(v, [&](const char* name, const auto& x) {
      j.key(name);
      write_value(j, x);
    });
    j.close('}');
  } else if constexpr (is_optional<T>) {
    if (v) write_value(j, *v);
    else j.null();
  } else if constexpr (is_vector<T>) {
    j.open('[');
    for (const auto& x : v) write_value(j, x);
    j.close(']');
  } else if constexpr (std::is_same_v<T, std::chrono::nanoseconds>) {
    j.value(static_cast<long long>(v.count()));
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    j.value(static_cast<long long>(v));
  } else if constexpr (std::is_enum_v<T>) {
    j.value(to_string(v));
  } else if constexpr (std::is_same_v<T, std::string>) {
    j.value(std::string_view{v});
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, int>) {
    j.value(v);
  } else {
    static_assert(std::is_same_v<T, std::uint64_t>, "warmup: a report field of a type the JSON writer does not know");
    j.value(v);
  }
}

/// A whole document: `{"schema": schema, ...every field of record}` on one line. Reports,
/// merged reports and comparisons are all written through it.
template <class T>
std::string document_json(std::string_view schema, const T& record) {
  json_out j;
  j.open('{');
  j.key("schema"), j.value(schema);
  for_each_field(record, [&](const char* name, const auto& x) {
    j.key(name);
    write_value(j, x);
  });
  j.close('}');
  return std::move(j.text);
}

}  // namespace detail

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
