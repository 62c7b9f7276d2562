/// @file
/// @brief Text helpers shared by the report formats: UTF-8 repair, JSON strings, durations.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <cstdio>
#include <string>
#include <string_view>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Length of the valid UTF-8 sequence starting at s[i], or 0 if the bytes there are not one.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  const bool overlong = (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

/// Appends `s` to `out` as a JSON string literal: quotes, backslashes and control characters
/// escaped, bytes that are not UTF-8 replaced by U+FFFD, so the document is always valid.
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += '\\';
      out += c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
    } else if (const std::size_t n = utf8_sequence(s, i); n != 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  out += '"';
}

/// `s` as valid UTF-8 for text formats: broken sequences and every control character that the
/// format cannot carry (`keep` says which it can) become U+FFFD.
enum class controls { keep_line_breaks, drop_all };
inline std::string repair_utf8(std::string_view s, controls keep) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool line_break = c == '\n' || c == '\r' || c == '\t';
    const bool control = c < 0x20 || c == 0x7F;
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0 || (control && !(line_break && keep == controls::keep_line_breaks))) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

/// `s`'s first `max_bytes` at most, cut before a UTF-8 character rather than inside it: the
/// bytes after the cut that continue a character (10xxxxxx) take their lead byte with them; at
/// most three, so a run of stray continuation bytes is cut where it falls.
inline std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) noexcept {
  if (s.size() <= max_bytes) return s;
  std::size_t n = max_bytes;
  for (int back = 0; back < 3 && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80; ++back) --n;
  return s.substr(0, n);
}

/// For terminals: control characters and broken UTF-8 become '?', and the text is cut to
/// `max_bytes` (on a character boundary) with "..." when longer.
inline std::string printable(std::string_view s, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = (c < 0x20 || c == 0x7F) ? 0 : utf8_sequence(s, i);
    if (out.size() + (n == 0 ? 1 : n) > max_bytes) {
      out += "...";
      break;
    }
    if (n == 0) {
      out += '?';
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

/// One number in a printf format ("%.1f"): the pictures' coordinates, the tables' ratios.
inline std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

/// "812 ns", "5.21 us", "1.06 ms", "2.50 s": three significant digits, ASCII units.
inline std::string format_duration(std::chrono::nanoseconds d) {
  const double ns = double(d.count());
  const double a = std::fabs(ns);
  char buf[32];
  if (a < 1e3) std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (a < 1e6) std::snprintf(buf, sizeof buf, a < 1e4 ? "%.2f us" : a < 1e5 ? "%.1f us" : "%.0f us", ns / 1e3);
  else if (a < 1e9) std::snprintf(buf, sizeof buf, a < 1e7 ? "%.2f ms" : a < 1e8 ? "%.1f ms" : "%.0f ms", ns / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

/// a + b, held to the range of a duration: a report read back may hold any figures, and a
/// signed overflow is undefined.
inline std::chrono::nanoseconds saturating_add(std::chrono::nanoseconds a, std::chrono::nanoseconds b) noexcept {
  using ns = std::chrono::nanoseconds;
  if (b > ns{0} && a > ns::max() - b) return ns::max();
  if (b < ns{0} && a < ns::min() - b) return ns::min();
  return a + b;
}

/// A duration's size, its sign dropped: the most negative value a report read back may hold
/// has no negation (it would overflow), and reads as the largest.
inline std::string format_magnitude(std::chrono::nanoseconds d) {
  const long long n = d.count();
  return format_duration(std::chrono::nanoseconds{n >= 0 ? n : n == LLONG_MIN ? LLONG_MAX : -n});
}

/// "4.5%", "35%", "<0.1%": a part of a whole, in two digits at most.
inline std::string share(std::chrono::nanoseconds part, std::chrono::nanoseconds whole) {
  if (whole.count() <= 0) return "-";
  const double p = 100.0 * double(part.count()) / double(whole.count());
  if (p > 0 && p < 0.05) return "<0.1%";
  return fmt(p < 9.95 ? "%.1f%%" : "%.0f%%", p);
}

/// "512 B", "64.0 MiB", "1.50 GiB": binary units, three significant digits.
inline std::string format_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(n);
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  else std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

/// Number formatting for JSON: integers as they are, non-finite doubles as null.
inline void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  out += buf;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
