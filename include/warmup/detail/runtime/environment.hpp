/// @file
/// @brief The environment: the WARMUP_* variables, read once at load, each checked, none trusted;
/// and the CUDA variables a report states (module loading, the JIT cache), read at each snapshot.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>  // environ

#include "warmup/detail/process.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/settings.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A variable's value as its row takes it (`read_setting`).
struct setting_value {
  std::int64_t value = -1;      ///< the value read; -1 where unset, refused, or a text setting
  const char* text = nullptr;   ///< the variable's text, where it is set
  std::string message;          ///< why the value was refused; empty where it was taken
};

/// What the environment asks of the library: one value per setting (-1: unset or refused), and
/// one message per variable not understood.
struct environment_settings {
  std::int64_t values[sizeof setting_table / sizeof setting_table[0]];
  std::vector<std::string> messages;
  environment_settings() { for (std::int64_t& v : values) v = -1; }
  std::int64_t operator[](setting s) const noexcept { return values[static_cast<std::size_t>(s)]; }
};

inline std::string quoted_value(std::string_view v) { return "'" + printable(v, 80) + "'"; }

/// A whole decimal number in [lo, hi], nothing before or after it.
inline bool parse_bounded(std::string_view v, std::int64_t lo, std::int64_t hi, std::int64_t& out) noexcept {
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || x < lo || x > hi) return false;
  out = x;
  return true;
}

/// An on/off value in any case, as shells and launchers spell it: 1, on, true, yes (1); 0, off,
/// false, no (0); -1 for anything else. Every on/off variable reads its value here.
inline int on_off_value(std::string_view v) noexcept {
  char low[5] = {};
  if (v.empty() || v.size() > sizeof low) return -1;
  for (std::size_t i = 0; i < v.size(); ++i) low[i] = (v[i] >= 'A' && v[i] <= 'Z') ? static_cast<char>(v[i] - 'A' + 'a') : v[i];
  const std::string_view l(low, v.size());
  if (l == "1" || l == "on" || l == "true" || l == "yes") return 1;
  if (l == "0" || l == "off" || l == "false" || l == "no") return 0;
  return -1;
}

/// The `i`-th of a choice's comma-separated words; empty past the last.
constexpr std::string_view choice_word(std::string_view words, std::int64_t i) noexcept {
  for (; i > 0; --i) {
    const std::size_t comma = words.find(',');
    if (comma == std::string_view::npos) return {};
    words.remove_prefix(comma + 1);
  }
  return words.substr(0, words.find(','));
}

/// The index of `v` among a choice's comma-separated words; -1 where it is none of them.
inline std::int64_t choice_index(std::string_view words, std::string_view v) noexcept {
  for (std::int64_t i = 0;; ++i) {
    const std::string_view w = choice_word(words, i);
    if (w.empty()) return -1;
    if (w == v) return i;
  }
}

/// What a row's variable takes, in words: "a whole number of milliseconds from 1 to 3600000".
inline std::string accepted_values(const setting_row& r) {
  const std::string numbers = "a whole number of " + std::string(r.words) + " from " + std::to_string(r.lo) + " to " +
                              std::to_string(r.hi);
  switch (r.kind) {
    case value_kind::on_off: return "one of 1, on, true, yes, 0, off, false, no (in any case)";
    case value_kind::on_off_or_number: return "on or off (1, on, true, yes, 0, off, false, no, in any case), or " + numbers;
    case value_kind::number: return numbers;
    case value_kind::choice: {
      std::string out(r.words);
      const std::size_t last = out.rfind(',');
      if (last != std::string::npos) out.replace(last, 1, " or ");
      for (std::size_t c = out.find(','); c != std::string::npos; c = out.find(',', c)) out.replace(c, 1, ", ");
      return out;
    }
    case value_kind::text: break;
  }
  return "any text";
}

/// A row's value in words, as its variable spells it: "off", "adaptive", "1000 milliseconds".
inline std::string value_words(const setting_row& r, std::int64_t v) {
  switch (r.kind) {
    case value_kind::on_off: return v == 0 ? "off" : "on";
    case value_kind::choice: return std::string(choice_word(r.words, v));
    case value_kind::on_off_or_number:
      if (v == 0) return "off";
      [[fallthrough]];
    case value_kind::number: return std::to_string(v) + " " + std::string(r.words);
    case value_kind::text: break;
  }
  return "";
}

/// Reads row `r`'s variable through `get` (std::getenv by default; tests pass their own) and
/// checks it against the row: a value refused gets a message naming the variable, what it takes
/// and what stays.
template <class Get>
setting_value read_setting(const setting_row& r, Get&& get) {
  setting_value out;
  out.text = get(r.variable.data());  // a literal's view: NUL-terminated
  if (out.text == nullptr || r.kind == value_kind::text) return out;
  const std::string_view s{out.text};
  std::int64_t v = -1;
  bool ok = false;
  switch (r.kind) {
    case value_kind::on_off: ok = (v = on_off_value(s)) >= 0; break;
    case value_kind::choice: ok = (v = choice_index(r.words, s)) >= 0; break;
    case value_kind::number: ok = parse_bounded(s, r.lo, r.hi, v); break;
    case value_kind::on_off_or_number:
      if (const int on = on_off_value(s); on >= 0) v = on == 1 ? r.on : 0, ok = true;
      else ok = parse_bounded(s, r.lo, r.hi, v);
      break;
    case value_kind::text: break;
  }
  if (ok) out.value = v;
  else
    out.message = std::string(r.variable) + "=" + quoted_value(s) + " is not " + accepted_values(r) + "; " +
                  std::string(r.what) + " stays " + value_words(r, r.fallback);
  return out;
}

/// Setting `S`'s variable as the process's environment has it.
template <setting S>
setting_value read_setting() {
  return read_setting(row_of<S>(), [](const char* n) { return std::getenv(n); });
}

/// Reads the library's variables through `get` and, given the names of every variable set,
/// flags those starting with WARMUP_ that no row names (a typo would otherwise be silently ignored).
template <class Get>
environment_settings read_environment(Get&& get, const std::vector<std::string_view>& set_names) {
  environment_settings e;
  for (const setting_row& r : setting_table) {
    if (r.reader != read_by::library) continue;
    setting_value v = read_setting(r, get);
    e.values[static_cast<std::size_t>(r.id)] = v.value;
    if (!v.message.empty()) e.messages.push_back(std::move(v.message));
  }
  for (std::string_view name : set_names) {
    if (name.substr(0, 7) != "WARMUP_") continue;
    bool known = false;
    std::string names;
    for (const setting_row& r : setting_table) {
      known = known || r.variable == name;
      names += (names.empty() ? "" : ", ") + std::string(r.variable);
    }
    if (known) continue;
    std::string m = "unknown variable " + printable(name, 80) + " ignored";
    if (name == "WARMUP_DISABLE")
      m += " (WARMUP_DISABLE is a compile-time macro; WARMUP_ENABLE=0 stops measuring at run time)";
    else
      m += " (known: " + names + ")";
    e.messages.push_back(std::move(m));
  }
  return e;
}

/// The names of the process's environment variables.
inline std::vector<std::string_view> environment_names() {
  std::vector<std::string_view> names;
  for (char** p = environ; p != nullptr && *p != nullptr; ++p) {
    const char* eq = std::strchr(*p, '=');
    names.emplace_back(*p, eq != nullptr ? static_cast<std::size_t>(eq - *p) : std::strlen(*p));
  }
  return names;
}

/// How the driver loads modules, as the environment tells it (LAZY unless set otherwise).
inline std::string module_loading_mode() {
  const char* v = std::getenv("CUDA_MODULE_LOADING");
  return v != nullptr && *v != '\0' ? printable(v, 40) : std::string("LAZY (the default)");
}

/// The JIT compute cache as the environment sets it.
inline std::string jit_cache_settings() {
  const char* disable = std::getenv("CUDA_CACHE_DISABLE");
  const char* path = std::getenv("CUDA_CACHE_PATH");
  const char* size = std::getenv("CUDA_CACHE_MAXSIZE");
  std::string out = disable != nullptr && std::string_view{disable} == "1" ? "disabled" : "enabled";
  if (path != nullptr && *path != '\0') out += ", path " + printable(path, 200);
  if (size != nullptr && *size != '\0') out += ", max size " + printable(size, 40);
  return out;
}

/// Applies what the environment asks for and prints one line per variable not understood.
/// Runs before main (compiled_once.hpp); never throws, never exits.
inline void apply_environment() noexcept {
  WARMUP_TRY {
    const environment_settings e = read_environment([](const char* n) { return std::getenv(n); }, environment_names());
    for (const setting_row& r : setting_table)
      if (r.apply != nullptr && e[r.id] >= 0) r.apply(e[r.id]);
    once().time.start(e[setting::clock] == 1 ? "WARMUP_CLOCK=steady" : nullptr);
    for (const std::string& m : e.messages) std::fprintf(stderr, "warmup: %s\n", m.c_str());
  } WARMUP_CATCH_ALL {
    std::fputs("warmup: the WARMUP_* variables could not be read (out of memory); defaults kept\n", stderr);
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
