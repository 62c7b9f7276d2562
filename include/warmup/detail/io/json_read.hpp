/// @file
/// @brief Report records read back from JSON through the same field lists the writer uses
/// (detail/io/fields.hpp), so that every key written is a key read.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/report_fields.hpp"
#include "warmup/detail/io/json_parse.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

template <class E>
inline constexpr std::size_t enum_size = 0;
template <>
inline constexpr std::size_t enum_size<op_kind> = op_kind_count;
template <>
inline constexpr std::size_t enum_size<cause> = cause_count;
template <>
inline constexpr std::size_t enum_size<clock_domain> = clock_domain_count;

/// Where a value sits in the document ("sites[3].host.steady.p50"), kept as a chain on the
/// stack and spelled out only for an error message.
struct json_path {
  const json_path* up = nullptr;
  const char* key = nullptr;  ///< a member's name, or nullptr for an array index
  std::size_t index = 0;

  std::string text() const {
    if (up == nullptr && key == nullptr) return {};  // the document itself
    std::string inner = up != nullptr ? up->text() : std::string();
    if (key != nullptr) return inner.empty() ? std::string(key) : inner + "." + key;
    return inner + "[" + std::to_string(index) + "]";
  }
};

/// Reads values into records; keeps the first error. Unknown keys are skipped (a newer writer
/// may add some) and a missing key leaves its field as the record's default (an older one may
/// lack some); a key of the wrong type is an error.
class json_reader {
 public:
  const std::string& error() const noexcept { return error_; }

  template <class T>
  bool read(const json_value& v, T& out, const json_path& at) {
    using type = json_value::type;
    if constexpr (is_record<T>) {
      if (v.kind != type::object) return fail(at, "expected an object");
      bool ok = true;
      std::apply(
          [&](const auto&... fs) {
            ((ok = ok && member(v, fs.name, out.*(fs.member), at)), ...);
          },
          record_fields<T>::get());
      return ok;
    } else if constexpr (is_optional<T>) {
      if (v.kind == type::null) return out.reset(), true;
      typename T::value_type inner{};
      if (!read(v, inner, at)) return false;
      out = std::move(inner);
      return true;
    } else if constexpr (is_vector<T>) {
      if (v.kind != type::array) return fail(at, "expected an array");
      out.clear();
      out.resize(v.items.size());
      for (std::size_t i = 0; i < v.items.size(); ++i)
        if (!read(v.items[i], out[i], json_path{&at, nullptr, i})) return false;
      return true;
    } else if constexpr (std::is_same_v<T, std::chrono::nanoseconds>) {
      long long n = 0;
      if (!integer(v, n, at, "an integer number of nanoseconds")) return false;
      out = std::chrono::nanoseconds{n};
      return true;
    } else if constexpr (std::is_enum_v<T>) {
      if (v.kind != type::string) return fail(at, "expected a name (a string)");
      for (std::size_t k = 0; k < enum_size<T>; ++k)
        if (to_string(static_cast<T>(k)) == v.text) return out = static_cast<T>(k), true;
      return fail(at, "\"" + printable_name(v.text) + "\" is not a name this version knows");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (v.kind != type::string) return fail(at, "expected a string");
      out = v.text;
      return true;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (v.kind != type::boolean) return fail(at, "expected true or false");
      out = v.flag;
      return true;
    } else if constexpr (std::is_same_v<T, double>) {
      if (v.kind != type::number) return fail(at, "expected a number");
      out = std::strtod(v.text.c_str(), nullptr);
      return true;
    } else {
      static_assert(std::is_integral_v<T>, "warmup: a report field of a type the JSON reader does not know");
      return integer(v, out, at, std::is_signed_v<T> ? "an integer" : "a non-negative integer");
    }
  }

  bool fail(const json_path& at, const std::string& what) {
    if (error_.empty()) {
      const std::string where = at.text();
      error_ = (where.empty() ? std::string("the document") : where) + ": " + what;
    }
    return false;
  }

 private:
  template <class M>
  bool member(const json_value& object, const char* name, M& field, const json_path& at) {
    const json_value* v = object.find(name);
    return v == nullptr || read(*v, field, json_path{&at, name, 0});
  }

  template <class I>
  bool integer(const json_value& v, I& out, const json_path& at, const char* expected) {
    if (v.kind != json_value::type::number) return fail(at, std::string("expected ") + expected);
    const char* b = v.text.data();
    const char* e = b + v.text.size();
    const auto [end, ec] = std::from_chars(b, e, out);
    if (ec == std::errc::result_out_of_range) return fail(at, v.text + " is out of range");
    if (ec != std::errc() || end != e) return fail(at, std::string("expected ") + expected + ", found " + v.text);
    return true;
  }

  static std::string printable_name(const std::string& s) {
    std::string out;
    for (const char c : s.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20 || c == '"') ? '?' : c;
    return s.size() > 40 ? out + "..." : out;
  }

  std::string error_;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
