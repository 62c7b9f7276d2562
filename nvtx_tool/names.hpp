// A range's site name from its NVTX message: the domain before it, the fields whose values change
// from call to call taken out. Pure functions: the host tests drive them.
//
// PyTorch's `emit_nvtx` names each operator call
// "aten::addmm, seq = 12, op_id = 40, sizes = [[32, 64], [64, 64]]": with the sequence number
// kept, every call would be a first call.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warmup_nvtx {

/// The fields dropped where WARMUP_NVTX_VARYING is unset: PyTorch's per-call numbers (its
/// profiler's getNvtxStr). `sizes` stays: a new shape is a new first call.
inline constexpr std::string_view default_varying = "seq,op_id,input_op_ids,stashed seq";

/// The items of a comma-separated list ("none" or empty: none), spaces around each trimmed.
inline std::vector<std::string> comma_list(std::string_view list) {
  std::vector<std::string> keys;
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view k = list.substr(at, comma - at);
    while (!k.empty() && k.front() == ' ') k.remove_prefix(1);
    while (!k.empty() && k.back() == ' ') k.remove_suffix(1);
    if (!k.empty() && k != "none") keys.emplace_back(k);
    at = comma + 1;
  }
  return keys;
}

/// Whether `field` is "key = value" for one of `keys`.
inline bool is_field_of(std::string_view field, const std::vector<std::string>& keys) noexcept {
  for (const std::string& k : keys)
    if (field.size() >= k.size() + 3 && field.compare(0, k.size(), k) == 0 && field.compare(k.size(), 3, " = ") == 0)
      return true;
  return false;
}

/// Appends `message` to `out` without its fields whose key is in `keys`. Fields are what follows
/// ", " outside brackets and parentheses ("input_op_ids = [(1, 0), (2, 1)]" is one field);
/// the first part, the operator's name, always stays, and so does any part that is no field.
inline void append_without_varying(std::string& out, std::string_view message, const std::vector<std::string>& keys) {
  if (keys.empty() || message.find(", ") == std::string_view::npos) {
    out.append(message);
    return;
  }
  int depth = 0;
  std::size_t part = 0;
  bool first = true;
  const auto close = [&](std::size_t end) {
    const std::string_view p = message.substr(part, end - part);
    const bool drop = !first && is_field_of(p, keys);
    if (!drop) {
      if (!first) out.append(", ");
      out.append(p);
    }
    first = false;
  };
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (c == '[' || c == '(' || c == '{') ++depth;
    else if ((c == ']' || c == ')' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth == 0 && i + 1 < message.size() && message[i + 1] == ' ') {
      close(i);
      part = i + 2;
      ++i;
    }
  }
  close(message.size());
}

/// The site name of a range: "[domain] message" in a named domain, the message alone in NVTX's
/// default one, with the varying fields dropped.
inline void site_name(std::string& out, std::string_view domain_prefix, std::string_view message,
                      const std::vector<std::string>& keys) {
  out.clear();
  out.append(domain_prefix);
  append_without_varying(out, message, keys);
}

/// "[name] " for a named domain: the prefix of its ranges' site names.
inline std::string domain_prefix(std::string_view domain) {
  std::string p;
  p.reserve(domain.size() + 3);
  p += '[';
  p.append(domain);
  p += "] ";
  return p;
}

/// A wide string (NVTX's W functions: UTF-32 on Linux) as UTF-8; a code point that is none
/// (a surrogate, or beyond U+10FFFF) is written U+FFFD.
inline void append_utf8(std::string& out, const wchar_t* w) {
  if (w == nullptr) return;
  for (; *w != 0; ++w) {
    auto c = static_cast<unsigned long>(*w);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
}

/// Whether `domain` is counted under WARMUP_NVTX_DOMAINS (`list`): "all" or unset counts every
/// domain; otherwise a comma-separated list of names, "default" naming NVTX's default domain.
/// warmup's own domain is never counted (its scopes measure themselves).
inline bool domain_counted(std::string_view list, std::string_view domain, bool is_default) {
  if (!is_default && domain == "warmup") return false;
  if (list.empty() || list == "all") return true;
  const std::string_view want = is_default ? std::string_view{"default"} : domain;
  for (const std::string& k : comma_list(list))
    if (k == want) return true;
  return false;
}

}  // namespace warmup_nvtx
