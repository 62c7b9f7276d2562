// The table warmup::print writes (detail/io/table_writer.hpp, print-inl.hpp), read back as text.
#include "catch.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "warmup/profile.hpp"

#include "../support/sample_report.hpp"

using namespace std::chrono_literals;

using support::sample_report;

TEST_CASE("the table shows every site, its figures and its notes") {
  std::ostringstream os;
  warmup::print(sample_report(), os);
  const std::string t = os.str();
  CHECK(t.find("no device description (no GPU here)") != std::string::npos);
  CHECK(t.find("once") != std::string::npos);
  CHECK(t.find("context") != std::string::npos);
  CHECK(t.find("120 ms") != std::string::npos);
  CHECK(t.find("note: no steady state yet") == std::string::npos);  // called once: more calls would not help
  CHECK(t.find("\n1 site ran once: its first call is its only call") != std::string::npos);
  CHECK(t.find("upload") != std::string::npos);
  CHECK(t.find("+2.00 ms") != std::string::npos);
  CHECK(t.find("0.3 / 1.0 / 0.6 (host)") != std::string::npos);
}

TEST_CASE("the table pads names by characters, not bytes: a UTF-8 name's row lines up with an ASCII one's") {
  using ns = std::chrono::nanoseconds;
  warmup::report r;
  for (const char* name : {"abc", "\xC3\xA4\xC3\xB6\xC3\xBC", "a name much longer than both"}) {  // "äöü": 3 characters, 6 bytes
    r.sites.push_back(support::one_call(name, ns{1500}));
  }
  std::ostringstream os;
  warmup::print(r, os);
  std::string ascii, utf8;
  std::istringstream lines(os.str());
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("abc ", 0) == 0) ascii = l.substr(3);
    if (l.rfind("\xC3\xA4\xC3\xB6\xC3\xBC ", 0) == 0) utf8 = l.substr(6);
  }
  INFO(os.str());
  REQUIRE_FALSE(ascii.empty());
  CHECK(utf8 == ascii);  // the same padding after three characters
}

namespace {
std::string table_of(const warmup::report& r) {
  std::ostringstream os;
  warmup::print(r, os);
  return os.str();
}

/// The lines of `text` from the one that starts with `head` (indent ignored) to the next that is
/// not indented more than it: a site's "why:" and its breakdown.
std::vector<std::string> block(const std::string& text, const std::string& head) {
  std::vector<std::string> lines, out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].compare(indent(lines[i]), head.size(), head) != 0) continue;
    out.push_back(lines[i]);
    for (std::size_t j = i + 1; j < lines.size() && indent(lines[j]) > indent(lines[i]); ++j) out.push_back(lines[j]);
    break;
  }
  return out;
}

warmup::site_report steady_site(const char* name, std::chrono::nanoseconds first, std::chrono::nanoseconds p50) {
  warmup::site_report s;
  s.name = name;
  s.calls = s.host.calls = 50;
  s.host.first = first;
  warmup::steady_state st;
  st.calls = 49;
  st.enough_calls = true;
  st.p50 = st.p90 = st.p99 = st.p999 = st.min = st.max = st.mean = p50;
  s.host.steady = st;
  s.host.first_call_excess = first - p50;
  return s;
}

warmup::attribution why_of(const warmup::timing& t, std::vector<warmup::cause_time> causes) {
  warmup::attribution a;
  a.calls = 1;
  a.call = t.first;
  a.excess = t.first - (t.steady ? t.steady->p50 : std::chrono::nanoseconds{0});
  a.causes = std::move(causes);
  for (const warmup::cause_time& c : a.causes) a.named += c.time;
  a.unattributed = a.excess - a.named;
  return a;
}
}  // namespace

TEST_CASE("the table: why a first call was slow, one cause a line, largest first, with its share of the excess") {
  using warmup::cause;
  warmup::site_report s = steady_site("forward", 101ms, 1ms);  // excess 100 ms
  s.host.first_call_causes = why_of(s.host, {{cause::module_load, 40ms, 21, {}, {}},
                                             {cause::host_code, 20ms, 20, "libcudnn_heuristic.so.9", {}},
                                             {cause::host_code, 10ms, 10, "libc.so.6", {}},
                                             {cause::device_alloc, 5ms, 11, {}, {}},
                                             {cause::lazy_kernel_load, 4ms, 19, {}, {}},
                                             {cause::pinned_alloc, 2ms, 1, {}, {}},
                                             {cause::jit_cache_load, 1ms, 2, {}, {}}});
  warmup::report r;
  r.sites = {s};
  const std::vector<std::string> why = block(table_of(r), "why:");
  REQUIRE(why.size() == 8);  // the head, five causes, "2 more", unattributed
  CHECK(why[0] == "    why: first call 100 ms over the steady p50:");
  CHECK(why[1] == "        module loads                       40.0 ms   40%  (21)");
  CHECK(why[2] == "        host code libcudnn_heuristic.so.9  20.0 ms   20%  (20 samples)");
  CHECK(why[5] == "        lazy kernel loads                  4.00 ms  4.0%  (19)");
  CHECK(why[6] == "        2 more causes                      3.00 ms  3.0%");
  CHECK(why[7] == "        unattributed                       18.0 ms   18%");

  // Six causes: the sixth has its own line rather than "1 more".
  s.host.first_call_causes->causes.pop_back();
  r.sites = {s};
  CHECK(block(table_of(r), "why:").size() == 8);
  CHECK(table_of(r).find("more causes") == std::string::npos);
}

TEST_CASE("the table: a first call faster than the steady p50, and one with no steady p50, said in plain words") {
  using warmup::cause;
  warmup::site_report fast = steady_site("fast", 885us, 1ms);
  fast.host.first_call_causes = why_of(fast.host, {{cause::module_load, 30us, 1, {}, {}}});
  warmup::site_report once;
  once.name = "cublasCreate";
  once.calls = once.host.calls = 1;
  once.host.first = 301ms;
  once.host.first_call_causes = why_of(once.host, {{cause::module_load, 150ms, 4, {}, {}}});
  warmup::report r;
  r.sites = {fast, once};
  const std::string t = table_of(r);
  CHECK(block(t, "why:")[0] ==
        "    why: first call 115 us under the steady p50: no excess to explain (the named causes took 30.0 us of it, as they may "
        "in the steady calls)");
  CHECK(block(t, "why:").size() == 1);
  CHECK(block(t, "why:")[0].find('-') == std::string::npos);  // no negative "over"
  const std::vector<std::string> only = block(t.substr(t.find("cublasCreate")), "why:");
  REQUIRE(only.size() == 3);
  CHECK(only[0] == "    why: first call 301 ms, no steady p50 to compare with: the excess is the whole call:");
  CHECK(only[1] == "        module loads  150 ms  50%  (4)");
  CHECK(only[2] == "        unattributed  151 ms  50%");
  CHECK(t.find("over the steady p50") == std::string::npos);
  CHECK(t.find("\n1 site ran once: its first call is its only call, with no steady state to compare it with\n") !=
        std::string::npos);
}

TEST_CASE("the table: host lines only where the first call waited, faulted or loaded libraries; the rest in one line") {
  warmup::report r;
  const auto site = [&](const char* name, std::chrono::nanoseconds first, warmup::host_signals h) {
    warmup::site_report s = steady_site(name, first, first / 10);
    s.first_call_host = std::move(h);
    r.sites.push_back(s);
  };
  warmup::host_signals small;  // 21 us, off the CPU throughout: a driver round trip
  site("small", 21300ns, small);
  warmup::host_signals working;  // 5 ms of work, a few faults
  working.cpu = 5ms;
  working.minor_faults = 40;
  site("working", 5ms, working);
  warmup::host_signals waited;  // 4 of 5 ms off the CPU
  waited.cpu = 1ms;
  site("waited", 5ms, waited);
  warmup::host_signals faulted;
  faulted.cpu = 3ms;
  faulted.minor_faults = 5000;
  site("faulted", 3ms, faulted);
  warmup::host_signals major;
  major.cpu = 100us;
  major.major_faults = 1;
  site("major", 100us, major);
  warmup::host_signals loaded;
  loaded.cpu = 50us;
  loaded.libraries_loaded = {"libcublasLt.so.13"};
  site("loaded", 50us, loaded);
  warmup::host_signals context;
  context.cpu = 80us;
  context.context_existed = false;
  site("context", 100us, context);
  warmup::host_signals memory;  // quick, but took device memory
  memory.cpu = 60us;
  memory.context_existed = true;
  memory.device_memory_taken = std::int64_t{350} << 20;
  site("memory", 100us, memory);
  warmup::host_signals little;  // a page of the driver's: nothing to tell
  little.cpu = 60us;
  little.context_existed = true;
  little.device_memory_taken = -(std::int64_t{64} << 10);
  site("little", 100us, little);
  const std::string t = table_of(r);
  const auto host_line_under = [&](const std::string& name) {
    const std::size_t row = t.find("\n" + name + " ");
    REQUIRE(row != std::string::npos);
    const std::size_t next = t.find('\n', row + 1);
    return t.compare(next + 1, 10, "    host: ") == 0;
  };
  CHECK_FALSE(host_line_under("small"));
  CHECK_FALSE(host_line_under("working"));
  CHECK(host_line_under("waited"));
  CHECK(host_line_under("faulted"));
  CHECK(host_line_under("major"));
  CHECK(host_line_under("loaded"));
  CHECK(host_line_under("context"));
  CHECK(host_line_under("memory"));
  CHECK(t.find("context existed, took 350 MiB of device memory") != std::string::npos);
  CHECK_FALSE(host_line_under("little"));
  CHECK(t.find("\nhost: 3 more first calls neither waited long, faulted many pages nor loaded a library") != std::string::npos);
  // In JSON and CSV too, with its sign.
  CHECK(warmup::to_json(r).find("\"device_memory_taken\":367001600") != std::string::npos);
  CHECK(warmup::to_json(r).find("\"device_memory_taken\":-65536") != std::string::npos);
  CHECK(warmup::to_csv(r).find("first_call_host.device_memory_taken") != std::string::npos);
  CHECK(t.find("ran once") == std::string::npos);
}

TEST_CASE("the table's columns: each figure under its own heading, p50, p90 and p99 told apart") {
  warmup::report r;
  warmup::site_report s;
  s.name = "spread";
  s.op = warmup::op_kind::launch;
  s.calls = s.host.calls = 9;
  s.host.warmup_calls = 2;
  s.host.first = 7ms;
  warmup::steady_state st;
  st.calls = 7;
  st.p50 = 1100us;
  st.p90 = 2200us;
  st.p99 = 3300us;
  st.p999 = 4400us;
  st.min = 900us;
  st.max = 5500us;
  st.mean = 1500us;
  s.host.steady = st;
  s.host.first_call_excess = 5900us;
  s.host.warmup_excess = 1200us;
  warmup::timing dev = s.host;
  dev.calls = 8;
  dev.first = 6ms;
  dev.steady->p50 = 1010us;
  dev.steady->p90 = 1020us;
  dev.steady->p99 = 1030us;
  dev.warmup_calls = 0;
  s.device = dev;
  r.sites = {s};
  std::ostringstream os;
  warmup::print(r, os);
  const std::string t = os.str();
  std::vector<std::string> lines;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto line_of = [&](const std::string& start) -> std::string {
    for (const auto& l : lines)
      if (l.rfind(start, 0) == 0) return l;
    return "";
  };
  const auto cells = [](const std::string& l) {
    std::vector<std::string> out;
    std::istringstream ws(l);
    for (std::string w; ws >> w;) out.push_back(w);
    return out;
  };
  const std::vector<std::string> head = cells(line_of("site"));
  REQUIRE(head.size() >= 9);
  CHECK(head[6] == "p50");
  CHECK(head[7] == "p90");
  CHECK(head[8] == "p99");
  // "spread launch host 9 2 7.00 ms 1.10 ms 2.20 ms 3.30 ms +5.90 ms +1.20 ms": a duration is two words.
  const std::vector<std::string> host = cells(line_of("spread"));
  REQUIRE(host.size() >= 15);
  CHECK(host[2] == "host");
  CHECK(host[3] == "9");
  CHECK(host[4] == "2");
  CHECK(host[5] + " " + host[6] == "7.00 ms");
  CHECK(host[7] + " " + host[8] == "1.10 ms");
  CHECK(host[9] + " " + host[10] == "2.20 ms");
  CHECK(host[11] + " " + host[12] == "3.30 ms");
  CHECK(host[13] + " " + host[14] == "+5.90 ms");
  CHECK(host[15] + " " + host[16] == "+1.20 ms");
  const auto dev_row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find(" dev ") != std::string::npos; });
  REQUIRE(dev_row != lines.end());
  const std::vector<std::string> d = cells(*dev_row);
  REQUIRE(d.size() >= 11);
  CHECK(d[0] == "dev");
  CHECK(d[1] == "8");
  CHECK(d[2] == "0");
  CHECK(d[3] + " " + d[4] == "6.00 ms");
  CHECK(d[5] + " " + d[6] == "1.01 ms");
  CHECK(d[7] + " " + d[8] == "1.02 ms");
  CHECK(d[9] + " " + d[10] == "1.03 ms");
  CHECK(d.back() == "-");  // no warm-up on the device: no warm-up excess
}

TEST_CASE("the table: a cause's count says what it counts, as its row in cause.hpp says") {
  using warmup::cause;
  warmup::site_report s = steady_site("load", 101ms, 1ms);  // excess 100 ms
  s.host.first_call_causes = why_of(s.host, {{cause::waiting, 40ms, 3, {}, {}},
                                             {cause::host_code, 20ms, 20, "libc.so.6", {}},
                                             {cause::module_load, 10ms, 2, {}, {}}});
  warmup::report r;
  r.sites = {s};
  const std::vector<std::string> why = block(table_of(r), "why:");
  REQUIRE(why.size() == 5);
  CHECK(why[1] == "        waiting off the CPU  40.0 ms  40%  (3 major page faults)");
  CHECK(why[2] == "        host code libc.so.6  20.0 ms  20%  (20 samples)");
  CHECK(why[3] == "        module loads         10.0 ms  10%  (2)");
  // Checked when the test runs, not at compile time, so that a planted mutant of the rows
  // compiles and fails here.
  namespace d = warmup::detail;
  CHECK(d::cause_counting(d::cause_evidence::cpu_samples) == cause::host_code);
  CHECK(d::cause_counting(d::cause_evidence::major_faults) == cause::waiting);
  CHECK(d::by_object(cause::host_code));
  CHECK_FALSE(d::by_object(cause::waiting));
}

TEST_CASE("the table's setup line: module loading, JIT cache, attribution and CPU sampling, where the report has them") {
  warmup::report r;
  r.module_loading = "EAGER", r.jit_cache = "disabled", r.attribution_source = "cupti", r.cpu_sampling = "off";
  std::ostringstream os;
  warmup::print(r, os);
  CHECK(os.str().find("\nmodule loading EAGER, JIT cache disabled; attribution cupti; CPU sampling off\n") !=
        std::string::npos);
  r.module_loading.clear();  // a report read from a file that did not say
  std::ostringstream without;
  warmup::print(r, without);
  CHECK(without.str().find("module loading") == std::string::npos);
}

TEST_CASE("the table's rank line: the rank, the job's size, the local rank, whose variables, the host and pid") {
  warmup::report r;
  r.identity.rank = 3, r.identity.world_size = 8, r.identity.local_rank = 1;
  r.identity.launcher = "torchrun", r.identity.host = "node7", r.identity.pid = 4242;
  std::ostringstream os;
  warmup::print(r, os);
  CHECK(os.str().find("\nrank 3 of 8 (local 1), from torchrun's variables, on node7, pid 4242\n") != std::string::npos);
  r.identity.rank.reset();  // not launched as a job: no rank line
  std::ostringstream alone;
  warmup::print(r, alone);
  CHECK(alone.str().find("variables, on") == std::string::npos);
}

TEST_CASE("the header line describes the device: its name, number, architecture, SMs and versions") {
  warmup::report r;
  warmup::device_description d;
  d.index = 1;
  d.name = "NVIDIA H200";
  d.compute_major = 9, d.compute_minor = 0;
  d.multiprocessors = 132;
  d.driver_version = 13000, d.runtime_version = 12080;
  r.device = d;
  CHECK(table_of(r).find("warmup report: NVIDIA H200 (device 1, sm_90, 132 SMs), driver 13.0, runtime 12.8") !=
        std::string::npos);
}
