// The WARMUP_* variables: every value is checked; garbage gets a message naming the variable
// and what it falls back to, and changes nothing.
#include "catch.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "warmup/settings.hpp"
#include "warmup/detail/runtime/environment.hpp"
#include "warmup/detail/runtime/notices.hpp"

using warmup::detail::environment_settings;
using warmup::detail::read_environment;
using warmup::detail::setting;

namespace {
environment_settings read(const std::map<std::string, std::string>& env) {
  std::vector<std::string_view> names;
  for (const auto& [k, v] : env) names.emplace_back(k);
  return read_environment(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      names);
}

bool mentions(const environment_settings& e, const std::string& text) {
  for (const auto& m : e.messages)
    if (m.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("each setting in force before any change is its row's default") {
  using warmup::detail::row_of;
  if (std::getenv("WARMUP_IDLE_MS") || std::getenv("WARMUP_TIMELINE_CALLS") || std::getenv("WARMUP_CPU_SAMPLING") ||
      std::getenv("WARMUP_DEVICE_SAMPLING") || std::getenv("WARMUP_ENABLE") || std::getenv("WARMUP_ATTRIBUTION")) {
    // Run with settings of its own (a user's WARMUP_* left in the shell): not the defaults to
    // compare, and said, so that a run that checked nothing does not read as one that passed.
    WARN("WARMUP_* settings in the environment: the defaults are not checked in this run");
    return;
  }
  CHECK(warmup::idle_threshold() == std::chrono::milliseconds(row_of<setting::idle_ms>().fallback));
  CHECK(warmup::timeline_calls() == row_of<setting::timeline_calls>().fallback);
  CHECK(warmup::cpu_sampling_interval().count() == row_of<setting::cpu_sampling>().fallback);
  CHECK((warmup::device_sampling_policy() == warmup::device_sampling::every_call) ==
        (row_of<setting::device_sampling>().fallback == 1));
  CHECK(warmup::is_enabled() == (row_of<setting::enable>().fallback == 1));
  CHECK(warmup::attribution_enabled() == (row_of<setting::attribution>().fallback == 1));
}

TEST_CASE("a value refused names the variable, what it takes and its row's default, in words") {
  const auto words = [](const char* name, const char* value) { return read({{name, value}}).messages.at(0); };
  CHECK(words("WARMUP_IDLE_MS", "x") ==
        "WARMUP_IDLE_MS='x' is not a whole number of milliseconds from 1 to 3600000; the idle threshold stays 1000 milliseconds");
  CHECK(words("WARMUP_DEVICE_SAMPLING", "y") ==
        "WARMUP_DEVICE_SAMPLING='y' is not adaptive or every_call; device sampling stays adaptive");
  CHECK(words("WARMUP_CPU_SAMPLING", "z") ==
        "WARMUP_CPU_SAMPLING='z' is not on or off (1, on, true, yes, 0, off, false, no, in any case), or a whole number of "
        "microseconds from 100 to 1000000; CPU sampling stays off");
  CHECK(words("WARMUP_ENABLE", "w") ==
        "WARMUP_ENABLE='w' is not one of 1, on, true, yes, 0, off, false, no (in any case); measuring stays on");
  // A text setting is taken as it is; the NVTX tool's are its own to read, never refused here.
  CHECK(read({{"WARMUP_REPORT", "\x01odd"}, {"WARMUP_NVTX_DEVICE", "sometimes"}}).messages.empty());
  const auto tool = warmup::detail::read_setting(warmup::detail::row_of<setting::nvtx_device>(),
                                                 [](const char*) { return "sometimes"; });
  CHECK(tool.value == -1);
  CHECK(tool.message == "WARMUP_NVTX_DEVICE='sometimes' is not one of 1, on, true, yes, 0, off, false, no (in any case); "
                        "the ranges' device time stays off");
}

TEST_CASE("good values are taken") {
  const auto e = read({{"WARMUP_ENABLE", "off"}, {"WARMUP_DEVICE_SAMPLING", "every_call"},
                       {"WARMUP_IDLE_MS", "250"}, {"WARMUP_TIMELINE_CALLS", "100"}, {"WARMUP_REPORT", "stderr"}});
  CHECK(e.messages.empty());
  CHECK(e[setting::enable] == 0);
  CHECK(e[setting::device_sampling] == 1);
  CHECK(e[setting::idle_ms] == 250);
  CHECK(e[setting::timeline_calls] == 100);
  CHECK(read({{"WARMUP_ENABLE", "1"}})[setting::enable] == 1);
  CHECK(read({{"WARMUP_DEVICE_SAMPLING", "adaptive"}})[setting::device_sampling] == 0);
  CHECK(read({}).messages.empty());
}

TEST_CASE("the device sampling policy set is the one read back") {
  const warmup::device_sampling before = warmup::device_sampling_policy();
  for (const warmup::device_sampling p : {warmup::device_sampling::every_call, warmup::device_sampling::adaptive,
                                          warmup::device_sampling::every_call}) {
    warmup::set_device_sampling(p);
    CHECK(warmup::device_sampling_policy() == p);
  }
  warmup::set_device_sampling(before);
}

TEST_CASE("garbage in any variable: one clear message, the default kept") {
  const std::vector<std::pair<std::string, std::string>> garbage = {
      {"WARMUP_ENABLE", "maybe"},        {"WARMUP_ENABLE", ""},
      {"WARMUP_ENABLE", "1 "},           {"WARMUP_DEVICE_SAMPLING", "Every_Call"},
      {"WARMUP_DEVICE_SAMPLING", ""},    {"WARMUP_IDLE_MS", "abc"},
      {"WARMUP_IDLE_MS", "-5"},          {"WARMUP_IDLE_MS", "0"},
      {"WARMUP_IDLE_MS", "12ms"},        {"WARMUP_IDLE_MS", "99999999999999999999999"},
      {"WARMUP_IDLE_MS", ""},            {"WARMUP_TIMELINE_CALLS", "0"},
      {"WARMUP_TIMELINE_CALLS", "1e3"},  {"WARMUP_TIMELINE_CALLS", "100001"},
      {"WARMUP_TIMELINE_CALLS", std::string(100000, '9')},
      {"WARMUP_ENABLE", std::string("\x1b[31mred\n\xff", 10)},
  };
  for (const auto& [name, value] : garbage) {
    CAPTURE(name, value.size());
    const auto e = read({{name, value}});
    REQUIRE(e.messages.size() == 1);
    const std::string& m = e.messages.front();
    CHECK(m.rfind(name + "=", 0) == 0);                       // names the variable
    CHECK(m.find("; ") != std::string::npos);                 // and says what it falls back to
    CHECK(m.size() < 400);                                     // a hostile value is cut short
    for (const char c : m) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7F));  // and made printable
    CHECK(e[setting::enable] == -1);
    CHECK(e[setting::device_sampling] == -1);
    CHECK(e[setting::idle_ms] == -1);
    CHECK(e[setting::timeline_calls] == -1);
  }
}

TEST_CASE("an unknown WARMUP_ variable is named, not silently ignored") {
  const auto e = read({{"WARMUP_REPROT", "stderr"}, {"PATH", "/bin"}, {"WARMUPX", "1"}});
  REQUIRE(e.messages.size() == 1);
  CHECK(mentions(e, "unknown variable WARMUP_REPROT"));
  CHECK(mentions(e, "WARMUP_REPORT"));  // the list of known ones, to spot the typo
  const auto d = read({{"WARMUP_DISABLE", "1"}});
  CHECK(mentions(d, "compile-time macro"));
  CHECK(mentions(d, "WARMUP_ENABLE=0"));
}

TEST_CASE("WARMUP_CPU_SAMPLING: on, off, or microseconds in range") {
  CHECK(read({{"WARMUP_CPU_SAMPLING", "on"}})[setting::cpu_sampling] == 1000);
  CHECK(read({{"WARMUP_CPU_SAMPLING", "off"}})[setting::cpu_sampling] == 0);
  CHECK(read({{"WARMUP_CPU_SAMPLING", "250"}})[setting::cpu_sampling] == 250);
  for (const char* bad : {"99", "1000001", "-5", "1ms", " 250", ""}) {
    const auto e = read({{"WARMUP_CPU_SAMPLING", bad}});
    CHECK(e[setting::cpu_sampling] == -1);
    CHECK(mentions(e, "WARMUP_CPU_SAMPLING="));
    CHECK(mentions(e, "CPU sampling stays off"));
  }
}

namespace {
// Every field of what the environment asks for, to compare two readings whole.
bool same(const environment_settings& a, const environment_settings& b) {
  return std::equal(std::begin(a.values), std::end(a.values), std::begin(b.values));
}
}  // namespace

TEST_CASE("every on/off variable takes every spelling of on and off, in any case") {
  // The spellings in lower case, upper case, and mixed both ways ("On", "oN", "TrUe", "tRuE").
  const auto casings = [](const std::string& w) {
    std::string up = w, mixed_up = w, mixed_low = w;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(w[i])));
      up[i] = u;
      (i % 2 == 0 ? mixed_up : mixed_low)[i] = u;
    }
    return std::vector<std::string>{w, up, mixed_up, mixed_low};
  };
  int on_off_variables = 0;
  // Found from the table of every variable, so that a new on/off variable is tried too: one whose
  // "on" and "off" read as two different, accepted settings.
  for (const warmup::detail::setting_row& v : warmup::detail::setting_table) {
    const std::string name(v.variable);
    const auto on = read({{name, "on"}}), off = read({{name, "off"}});
    if (!on.messages.empty() || !off.messages.empty() || same(on, off)) continue;
    ++on_off_variables;
    for (const auto& [spellings, meant] : {std::pair{std::vector<std::string>{"1", "on", "true", "yes"}, &on},
                                           std::pair{std::vector<std::string>{"0", "off", "false", "no"}, &off}})
      for (const std::string& word : spellings)
        for (const std::string& spelled : casings(word)) {
          CAPTURE(name, spelled);
          const auto e = read({{name, spelled}});
          CHECK(e.messages.empty());
          CHECK(same(e, *meant));
        }
    // Near misses stay refused, and the message says any case is taken.
    for (const char* bad : {"onn", "y", "tru", "O N", "enabled"}) {
      CAPTURE(name, bad);
      const auto e = read({{name, bad}});
      CHECK(e.messages.size() == 1);
      CHECK(same(e, read({})));
    }
  }
  CHECK(on_off_variables == 3);  // WARMUP_ENABLE, WARMUP_ATTRIBUTION, WARMUP_CPU_SAMPLING
}

TEST_CASE("WARMUP_CLOCK: steady or auto; anything else keeps the cycle counter where trusted") {
  CHECK(read({{"WARMUP_CLOCK", "steady"}})[setting::clock] == 1);
  CHECK(read({{"WARMUP_CLOCK", "auto"}})[setting::clock] == 0);
  CHECK(read({})[setting::clock] == -1);
  for (const char* bad : {"", "Steady", "tsc", "steady ", "1", "\x1b[2J"}) {
    const auto e = read({{"WARMUP_CLOCK", bad}});
    CHECK(e[setting::clock] == -1);
    CHECK(mentions(e, "WARMUP_CLOCK="));
    CHECK(mentions(e, "the host clock stays auto"));
    CHECK_FALSE(mentions(e, "unknown variable"));
  }
}

TEST_CASE("a notice of one kind is said and kept once, however often it is raised") {
  using warmup::detail::notice_kind;
  warmup::detail::notices board;
  CHECK(board.raise(notice_kind::ring_full, "warmup test: first"));
  CHECK_FALSE(board.raise(notice_kind::ring_full, "warmup test: again"));
  CHECK(board.raised(notice_kind::ring_full));
  CHECK(board.raise(notice_kind::site_cap, "warmup test: another kind"));
  CHECK(board.all() == std::vector<std::string>{"warmup test: first", "warmup test: another kind"});
}

TEST_CASE("every documented spelling of on and off, for every switch that takes them") {
  // docs/environment.md: 1/on/true/yes, 0/off/false/no; WARMUP_CPU_SAMPLING's on is 1 ms.
  for (const char* on : {"1", "on", "true", "yes"}) {
    INFO(on);
    CHECK(read({{"WARMUP_ENABLE", on}})[setting::enable] == 1);
    CHECK(read({{"WARMUP_ATTRIBUTION", on}})[setting::attribution] == 1);
    CHECK(read({{"WARMUP_CPU_SAMPLING", on}})[setting::cpu_sampling] == 1000);
    CHECK(read({{"WARMUP_ENABLE", on}, {"WARMUP_ATTRIBUTION", on}}).messages.empty());
  }
  for (const char* off : {"0", "off", "false", "no"}) {
    INFO(off);
    CHECK(read({{"WARMUP_ENABLE", off}})[setting::enable] == 0);
    CHECK(read({{"WARMUP_ATTRIBUTION", off}})[setting::attribution] == 0);
    CHECK(read({{"WARMUP_CPU_SAMPLING", off}})[setting::cpu_sampling] == 0);
  }
  for (const char* bad : {"y", "2", "of", "onn", "o n", "yess"}) {  // every case of the words is taken
    INFO(bad);
    const auto e = read({{"WARMUP_ATTRIBUTION", bad}});
    CHECK(e[setting::attribution] == -1);
    CHECK(mentions(e, "WARMUP_ATTRIBUTION="));
    CHECK(mentions(e, "attribution stays off"));
  }
  // Unset: every field left alone.
  const auto none = read({});
  CHECK(none[setting::enable] == -1);
  CHECK(none[setting::attribution] == -1);
  CHECK(none[setting::cpu_sampling] == -1);
}

TEST_CASE("numeric settings at their bounds: the ends of each range taken, one beyond refused") {
  CHECK(read({{"WARMUP_IDLE_MS", "1"}})[setting::idle_ms] == 1);
  CHECK(read({{"WARMUP_IDLE_MS", "3600000"}})[setting::idle_ms] == 3600000);
  CHECK(read({{"WARMUP_IDLE_MS", "3600001"}})[setting::idle_ms] == -1);
  CHECK(read({{"WARMUP_TIMELINE_CALLS", "1"}})[setting::timeline_calls] == 1);
  CHECK(read({{"WARMUP_TIMELINE_CALLS", "100000"}})[setting::timeline_calls] == 100000);
  CHECK(read({{"WARMUP_CPU_SAMPLING", "100"}})[setting::cpu_sampling] == 100);
  CHECK(read({{"WARMUP_CPU_SAMPLING", "1000000"}})[setting::cpu_sampling] == 1000000);
  // Each message names what the value falls back to, distinct for each variable.
  CHECK(mentions(read({{"WARMUP_IDLE_MS", "0"}}), "the idle threshold stays 1000 milliseconds"));
  CHECK(mentions(read({{"WARMUP_TIMELINE_CALLS", "0"}}), "each site's timeline stays 16 calls"));
  CHECK(mentions(read({{"WARMUP_ENABLE", "x"}}), "measuring stays on"));
  CHECK(mentions(read({{"WARMUP_DEVICE_SAMPLING", "x"}}), "device sampling stays adaptive"));
}

TEST_CASE("an on/off value longer than every word is refused whole, however long") {
  using warmup::detail::on_off_value;
  // A value of any length and any bytes is refused without being copied anywhere: 1 MiB of
  // 0xff bytes (no letter to lower) would run a copy into the 5-byte buffer the words are
  // lowered in off the end of the stack.
  CHECK(on_off_value(std::string(std::size_t{1} << 20, '\xff')) == -1);
  // "-1 for anything else", never another number: the words at sizeof's edge (5 letters), one
  // past it, and values far longer than that buffer.
  CHECK(on_off_value("false") == 0);
  CHECK(on_off_value("FALSE") == 0);
  for (const std::string& v : {std::string(), std::string("maybe"), std::string("falsee"), std::string("yes!"),
                              std::string("true") + std::string(1000, 'e'), std::string(4096, 'x')}) {
    CAPTURE(v.size());
    CHECK(on_off_value(v) == -1);
  }
  for (const char* name : {"WARMUP_ENABLE", "WARMUP_ATTRIBUTION", "WARMUP_CPU_SAMPLING"}) {
    CAPTURE(name);
    const auto e = read({{name, std::string(2000, 'o')}});
    CHECK(same(e, read({})));
    REQUIRE(e.messages.size() == 1);
    CHECK(e.messages[0].rfind(std::string(name) + "='ooo", 0) == 0);
    CHECK(e.messages[0].size() < 400);  // the value quoted cut short
  }
}

TEST_CASE("the JIT cache as the environment sets it: disabled or not, its path cut to 200 bytes, its size") {
  using warmup::detail::jit_cache_settings;
  const auto kept = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::optional<std::string>{v} : std::nullopt;
  };
  const auto put_back = [](const char* name, const std::optional<std::string>& v) {
    if (v) ::setenv(name, v->c_str(), 1);
    else ::unsetenv(name);
  };
  const auto disable = kept("CUDA_CACHE_DISABLE"), path = kept("CUDA_CACHE_PATH"), size = kept("CUDA_CACHE_MAXSIZE");
  ::setenv("CUDA_CACHE_DISABLE", "1", 1);
  ::setenv("CUDA_CACHE_PATH", std::string(300, 'p').c_str(), 1);
  ::setenv("CUDA_CACHE_MAXSIZE", "4294967296", 1);
  CHECK(jit_cache_settings() == "disabled, path " + std::string(200, 'p') + "..., max size 4294967296");
  ::unsetenv("CUDA_CACHE_DISABLE");
  ::unsetenv("CUDA_CACHE_PATH");
  ::unsetenv("CUDA_CACHE_MAXSIZE");
  CHECK(jit_cache_settings() == "enabled");
  put_back("CUDA_CACHE_DISABLE", disable);
  put_back("CUDA_CACHE_PATH", path);
  put_back("CUDA_CACHE_MAXSIZE", size);
}

TEST_CASE("module loading as the environment sets it: its value, LAZY where unset") {
  const char* was = std::getenv("CUDA_MODULE_LOADING");
  const std::optional<std::string> kept = was != nullptr ? std::optional<std::string>{was} : std::nullopt;
  ::setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  CHECK(warmup::detail::module_loading_mode() == "EAGER");
  ::unsetenv("CUDA_MODULE_LOADING");
  CHECK(warmup::detail::module_loading_mode() == "LAZY (the default)");
  if (kept) ::setenv("CUDA_MODULE_LOADING", kept->c_str(), 1);
}
