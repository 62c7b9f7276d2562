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

/// What the environment asks for; a field stays empty when its variable is unset or wrong.
struct environment_settings {
  int enable = -1;            ///< 0 or 1; -1: unset or not understood
  int every_call = -1;        ///< 0: adaptive, 1: every_call
  int attribution = -1;       ///< 0 or 1
  std::int64_t idle_ms = -1;  ///< 1 .. 3,600,000
  std::int64_t timeline_calls = -1;  ///< 1 .. 100,000
  std::int64_t cpu_sampling_us = -1;  ///< 0 (off), or 100 .. 1,000,000
  int clock_steady = -1;      ///< 1: steady_clock whatever the CPU has; 0: the cycle counter where trusted
  std::vector<std::string> messages;  ///< one per variable that was not understood
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

/// Reads the variables through `get` (std::getenv by default; tests pass their own) and, given
/// the names of every variable set, flags those starting with WARMUP_ that the library does
/// not know (a typo would otherwise be silently ignored).
template <class Get>
environment_settings read_environment(Get&& get, const std::vector<std::string_view>& set_names) {
  environment_settings e;
  const auto bad = [&](std::string_view name, std::string_view value, const char* expected, const char* fallback) {
    e.messages.push_back(std::string(name) + "=" + quoted_value(value) + " is not " + expected + "; " + fallback);
  };
  const auto on_off = [&](const char* name, int& out, const char* fallback) {
    if (const char* v = get(name)) {
      const std::string_view s{v};
      if (const int on = on_off_value(s); on >= 0) out = on;
      else bad(name, s, "one of 1, on, true, yes, 0, off, false, no (in any case)", fallback);
    }
  };
  on_off("WARMUP_ENABLE", e.enable, "measuring stays on");
  on_off("WARMUP_ATTRIBUTION", e.attribution, "attribution stays off");
  if (const char* v = get("WARMUP_DEVICE_SAMPLING")) {
    const std::string_view s{v};
    if (s == "adaptive") e.every_call = 0;
    else if (s == "every_call") e.every_call = 1;
    else bad("WARMUP_DEVICE_SAMPLING", s, "adaptive or every_call", "adaptive sampling stays");
  }
  if (const char* v = get("WARMUP_IDLE_MS")) {
    if (!parse_bounded(v, idle_min.count(), idle_max.count(), e.idle_ms))
      bad("WARMUP_IDLE_MS", v, "a whole number of milliseconds from 1 to 3600000", "the idle threshold stays 1000 ms");
  }
  if (const char* v = get("WARMUP_TIMELINE_CALLS")) {
    if (!parse_bounded(v, timeline_calls_min, timeline_calls_max, e.timeline_calls))
      bad("WARMUP_TIMELINE_CALLS", v, "a whole number from 1 to 100000", "the timeline keeps each site's first 16 calls");
  }
  if (const char* v = get("WARMUP_CPU_SAMPLING")) {
    const std::string_view s{v};
    if (const int on = on_off_value(s); on >= 0) e.cpu_sampling_us = on == 1 ? cpu_sampling_on.count() : 0;
    else if (!parse_bounded(s, cpu_sampling_min.count(), cpu_sampling_max.count(), e.cpu_sampling_us))
      bad("WARMUP_CPU_SAMPLING", s, "on or off (as WARMUP_ENABLE takes them), or a whole number of microseconds from 100 to 1000000",
          "CPU sampling stays off");
  }
  if (const char* v = get("WARMUP_CLOCK")) {
    const std::string_view s{v};
    if (s == "steady") e.clock_steady = 1;
    else if (s == "auto") e.clock_steady = 0;
    else bad("WARMUP_CLOCK", s, "steady or auto", "the cycle counter stays where the CPU can be trusted");
  }
  for (std::string_view name : set_names) {
    if (name.substr(0, 7) != "WARMUP_") continue;
    bool known = false;
    std::string names;
    for (const setting_variable& k : variables) {
      known = known || k.name == name;
      names += (names.empty() ? "" : ", ") + std::string(k.name);
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
    if (e.enable == 0) disable();
    if (e.every_call >= 0) set_device_sampling(e.every_call == 0 ? device_sampling::adaptive : device_sampling::every_call);
    if (e.idle_ms > 0) set_idle_threshold(std::chrono::milliseconds(e.idle_ms));
    if (e.timeline_calls > 0) set_timeline_calls(static_cast<std::uint32_t>(e.timeline_calls));
    if (e.attribution == 1) (void)set_attribution(true);
    if (e.cpu_sampling_us > 0) set_cpu_sampling(std::chrono::microseconds(e.cpu_sampling_us));
    once().time.start(e.clock_steady == 1 ? "WARMUP_CLOCK=steady" : nullptr);
    for (const std::string& m : e.messages) std::fprintf(stderr, "warmup: %s\n", m.c_str());
  } WARMUP_CATCH_ALL {
    std::fputs("warmup: the WARMUP_* variables could not be read (out of memory); defaults kept\n", stderr);
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
