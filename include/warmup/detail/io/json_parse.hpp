/// @file
/// @brief A strict JSON parser (RFC 8259) for reading reports back: a value tree and an error
/// that says where and why the text is not JSON.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

WARMUP_BEGIN_NAMESPACE
namespace detail {

struct json_member;

/// One JSON value. Numbers keep their text, so that integer nanoseconds up to 2^63 read back
/// exactly (a double would round them past 2^53).
struct json_value {
  enum class type : std::uint8_t { null, boolean, number, string, array, object };
  type kind = type::null;
  bool flag = false;   ///< a boolean's value
  std::string text;    ///< a string's characters (unescaped) or a number's text
  std::vector<json_value> items;                          ///< an array's values
  std::vector<json_member> members;  ///< an object's, in order

  /// The member named `key` (the last, where a key repeats), or nullptr.
  const json_value* find(std::string_view key) const noexcept;
};

/// A member of an object. A struct of its own, not std::pair: a pair of an incomplete json_value
/// asks whether json_value is default-constructible while it is being defined, which clang with
/// C++20's constexpr vector refuses.
struct json_member {
  std::string key;
  json_value value;
};

inline const json_value* json_value::find(std::string_view key) const noexcept {
  const json_value* found = nullptr;
  for (const auto& [k, v] : members)
    if (k == key) found = &v;
  return found;
}

/// "line 3, column 17: expected ':' after an object key": where `pos` falls in `text`.
inline std::string json_position(std::string_view text, std::size_t pos) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

class json_parser {
 public:
  /// Deeper than this is refused: a hostile file must not exhaust the stack.
  static constexpr int max_depth = 64;

  explicit json_parser(std::string_view text) noexcept : s_(text) {}

  /// Parses the whole text as one value; false with `error()` set where it is not JSON.
  bool parse(json_value& out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    if (i_ != s_.size()) return fail("text after the JSON value");
    return true;
  }
  const std::string& error() const noexcept { return error_; }

 private:
  bool fail(const char* what) {
    if (error_.empty()) error_ = json_position(s_, i_) + ": " + what;
    return false;
  }
  void skip_space() noexcept {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool literal(std::string_view word) noexcept {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool value(json_value& v, int depth) {
    if (i_ >= s_.size()) return fail("the text ends where a value was expected");
    switch (s_[i_]) {
      case '{': return object(v, depth);
      case '[': return array(v, depth);
      case '"': v.kind = json_value::type::string; return string(v.text);
      case 't': v.kind = json_value::type::boolean, v.flag = true; return literal("true") || fail("not a JSON value");
      case 'f': v.kind = json_value::type::boolean, v.flag = false; return literal("false") || fail("not a JSON value");
      case 'n': v.kind = json_value::type::null; return literal("null") || fail("not a JSON value");
      default: return number(v);
    }
  }

  bool object(json_value& v, int depth) {
    if (depth >= max_depth) return fail("nested deeper than 64 levels");
    v.kind = json_value::type::object;
    ++i_;
    skip_space();
    if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
    for (;;) {
      skip_space();
      if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a string key in an object");
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':' after an object key");
      ++i_;
      skip_space();
      v.members.push_back({std::move(key), json_value{}});
      if (!value(v.members.back().value, depth + 1)) return false;
      skip_space();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
      return fail("expected ',' or '}' in an object");
    }
  }

  bool array(json_value& v, int depth) {
    if (depth >= max_depth) return fail("nested deeper than 64 levels");
    v.kind = json_value::type::array;
    ++i_;
    skip_space();
    if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
    for (;;) {
      skip_space();
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1)) return false;
      skip_space();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
      return fail("expected ',' or ']' in an array");
    }
  }

  bool number(json_value& v) {
    const std::size_t start = i_;
    const auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ > from;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') ++i_;
    else if (!digits()) return i_ = start, fail("not a JSON value");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits()) return fail("a digit must follow the decimal point");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) return fail("a digit must follow the exponent");
    }
    v.kind = json_value::type::number;
    v.text.assign(s_.substr(start, i_ - start));
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (i_ + 4 > s_.size()) return fail("a \\u escape needs four hex digits");
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= std::uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') out |= std::uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') out |= std::uint32_t(c - 'A' + 10);
      else return fail("a \\u escape needs four hex digits");
    }
    return true;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
    else if (cp < 0x10000)
      out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    else
      out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F)), out += char(0x80 | ((cp >> 6) & 0x3F)),
          out += char(0x80 | (cp & 0x3F));
  }

  // Strings are taken as bytes: the writers already repaired what they wrote, and a name that
  // is not UTF-8 here is still a name (the writers repair it again on the way out).
  bool string(std::string& out) {
    ++i_;  // the opening quote
    for (;;) {
      std::size_t run = i_;
      while (run < s_.size() && s_[run] != '"' && s_[run] != '\\' && static_cast<unsigned char>(s_[run]) >= 0x20) ++run;
      out.append(s_.data() + i_, run - i_);
      i_ = run;
      if (i_ >= s_.size()) return fail("a string is not closed");
      const char c = s_[i_];
      if (c == '"') return ++i_, true;
      if (c != '\\') return fail("a control character inside a string (it must be escaped)");
      if (++i_ >= s_.size()) return fail("a string is not closed");
      switch (s_[i_++]) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
            const std::size_t back = i_;
            i_ += 2;
            std::uint32_t low = 0;
            if (!hex4(low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            else i_ = back;  // a lone high surrogate; the next escape is read on its own
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // a lone surrogate is no character
          append_utf8(out, cp);
          break;
        }
        default: --i_; return fail("an unknown escape in a string");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string error_;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
