// The processes a first call waits on (detail/analysis/child_processes.hpp,
// detail/runtime/child_watch.hpp): their CPU time during the call, by command, in the first
// call's `other_threads` as `child_process`. The split itself on readings made up here; then
// real children, driven through pipes (never a sleep): one started and reaped inside the call,
// one started before it that works inside it too, and none. With CPU sampling on: in the
// sampling tests' executable (the sampler installs a signal handler).
#include "catch.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "warmup/json.hpp"
#include "warmup/profile.hpp"
#include "warmup/read.hpp"
#include "warmup/detail/analysis/child_processes.hpp"
#include "warmup/detail/runtime/child_watch.hpp"

extern char** environ;

namespace d = warmup::detail;
using namespace std::chrono_literals;

namespace {
d::proc_reading proc(std::int64_t pid, std::int64_t ppid, std::uint64_t start, std::uint64_t own, std::uint64_t reaped,
                     const char* command) {
  d::proc_reading p;
  p.pid = pid, p.ppid = ppid, p.start_ticks = start, p.own_ticks = own, p.reaped_ticks = reaped, p.command = command;
  return p;
}
d::children_reading reading(std::vector<d::proc_reading> procs, std::uint64_t reaped_ns, std::uint64_t at_ticks) {
  d::children_reading r;
  r.procs = std::move(procs), r.reaped_ns = reaped_ns, r.at_ticks = at_ticks, r.ok = true;
  return r;
}
const d::child_cpu* named(const std::vector<d::child_cpu>& v, const std::string& command) {
  for (const d::child_cpu& c : v)
    if (c.command == command) return &c;
  return nullptr;
}
constexpr std::int64_t self = 100;
}  // namespace

TEST_CASE("the processes remembered are bounded: past the bound a new one is not kept") {
  d::child_watch w;
  d::children_reading r;
  r.at_ns = 1;
  for (std::int64_t pid = 1; pid <= static_cast<std::int64_t>(d::child_watch::max_seen) + 10; ++pid)
    r.procs.push_back({pid, 1, 100, 0, 0, "worker", "worker"});
  w.keep(r);
  CHECK(w.seen.size() == d::child_watch::max_seen);
  CHECK(w.seen_at.size() == d::child_watch::max_seen);
  r.procs = {{1, 1, 100, 7, 0, "worker", "worker"}};  // one remembered, read again: its reading kept
  r.at_ns = 2;
  w.keep(r);
  CHECK(w.seen.size() == d::child_watch::max_seen);
  CHECK(w.seen[0].own_ticks == 7);
  CHECK(w.seen_at[0] == 2);
}

TEST_CASE("a child alive at both ends counts its time since the start, its reaped children's with it") {
  const std::uint64_t t = d::ns_per_tick();
  const auto before = reading({proc(200, self, 5, 40, 3, "worker")}, 0, 50);
  const auto after = reading({proc(200, self, 5, 70, 13, "worker")}, 0, 90);
  const auto out = d::child_cpu_during(before, after, {}, self);
  REQUIRE(out.size() == 1);
  CHECK(out[0].command == "worker");
  CHECK(out[0].ns == 40 * t);  // 30 of its own and 10 of its reaped children's, not the 43 before
  CHECK(out[0].processes == 1);
}

TEST_CASE("a child reaped during the call: this process's reaped time, less what it spent before, by its command") {
  const std::uint64_t t = d::ns_per_tick();
  // Seen at the start with 20 ticks, seen between with 50, then reaped having spent 60.
  const auto before = reading({proc(300, self, 5, 20, 0, "gcc x.c")}, 7 * t, 50);
  const auto after = reading({}, 7 * t + 60 * t, 90);
  const auto out = d::child_cpu_during(before, after, {proc(300, self, 5, 50, 0, "gcc x.c")}, self);
  const auto* gcc = named(out, "gcc x.c");
  REQUIRE(gcc != nullptr);
  CHECK(gcc->ns == 30 * t);  // 50 seen less 20 before
  const auto* rest = named(out, std::string(d::exited_children));
  REQUIRE(rest != nullptr);  // the 10 after the last reading
  CHECK(rest->ns == 10 * t);
  CHECK(rest->processes == 0);
}

TEST_CASE("a grandchild reaped by a child alive at the end is that child's, never counted twice") {
  const std::uint64_t t = d::ns_per_tick();
  // The worker (pid 200) reaps its compiler (pid 201), which had spent 25 ticks before the call
  // and 35 at its end: the worker's reaped figure grows by 35, of which 10 are the call's.
  const auto before = reading({proc(200, self, 5, 10, 0, "worker"), proc(201, 200, 6, 25, 0, "cc1")}, 0, 50);
  const auto after = reading({proc(200, self, 5, 12, 35, "worker")}, 0, 90);
  const auto out = d::child_cpu_during(before, after, {proc(201, 200, 6, 35, 0, "cc1")}, self);
  REQUIRE(out.size() == 1);
  CHECK(out[0].command == "worker");
  CHECK(out[0].ns == 12 * t);  // 2 of its own, 10 of the compiler's
}

TEST_CASE("a child that existed at the start but was not read then is left out; one born since counts whole") {
  const std::uint64_t t = d::ns_per_tick();
  d::children_reading before = reading({}, 0, 50);
  before.complete = false;
  const auto after = reading({proc(400, self, 20, 90, 0, "old"), proc(401, self, 60, 15, 0, "new")}, 0, 90);
  const auto out = d::child_cpu_during(before, after, {}, self);
  REQUIRE(out.size() == 1);
  CHECK(out[0].command == "new");
  CHECK(out[0].ns == 15 * t);
}

TEST_CASE("a reused pid is another process") {
  const std::uint64_t t = d::ns_per_tick();
  const auto before = reading({proc(500, self, 5, 40, 0, "first")}, 0, 50);
  const auto after = reading({proc(500, self, 70, 6, 0, "second")}, 40 * t + 9 * t, 90);
  const auto out = d::child_cpu_during(before, after, {}, self);
  const auto* second = named(out, "second");
  REQUIRE(second != nullptr);
  CHECK(second->ns == 6 * t);
  const auto* rest = named(out, std::string(d::exited_children));
  REQUIRE(rest != nullptr);  // the first one's last 9 ticks, reaped by this process
  CHECK(rest->ns == 9 * t);
}

TEST_CASE("a command line reads as its program's name and its first arguments") {
  using namespace std::string_literals;
  CHECK(d::short_command("/usr/bin/python3.11\0-c\0import time\0"s, "python3") == "python3.11 -c import time");
  CHECK(d::short_command("/usr/bin/gcc\0-O3\0/tmp/torchinductor_root/ab/cab.cpp\0"s, "gcc") == "gcc -O3 ab/cab.cpp");
  CHECK(d::short_command("", "kworker") == "[kworker]");
  CHECK(d::short_command("sh\0-c\0a\nb\0"s, "sh") == "sh -c a b");
  const std::string long_arg(500, 'x');
  CHECK(d::short_command("prog\0"s + long_arg, "prog").size() <= 80);
}

namespace {
// A child of /bin/sh running `script`, its stdin and stdout pipes of the test's.
struct shell_child {
  pid_t pid = -1;
  int to = -1, from = -1;

  explicit shell_child(const char* script) {
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const char* argv[] = {"sh", "-c", script, nullptr};
    REQUIRE(posix_spawn(&pid, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    to = in[1], from = out[0];
  }
  void say() { REQUIRE(write(to, "go\n", 3) == 3); }
  void hear() {  // a line from the child: it has done what came before its echo
    char c = 0;
    while (read(from, &c, 1) == 1 && c != '\n') {
    }
    REQUIRE(c == '\n');
  }
  // Lets it end and reaps it: the CPU time of its whole life, as wait4 gives it.
  std::chrono::nanoseconds reap() {
    close(to);
    rusage ru{};
    int status = 0;
    REQUIRE(wait4(pid, &status, 0, &ru) == pid);
    close(from);
    pid = -1;
    return std::chrono::seconds(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           std::chrono::microseconds(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  }
};

#define WARMUP_TEST_SPIN "i=0; while [ $i -lt 250000 ]; do i=$((i+1)); done; "

std::vector<warmup::cause_time> processes_of(const char* name, std::string* table_text = nullptr) {
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, name);
  REQUIRE(s != nullptr);
  std::vector<warmup::cause_time> out;
  if (!s->host.first_call_causes) return out;
  std::ostringstream table;
  warmup::print(r, table);
  INFO(table.str());
  if (table_text != nullptr) *table_text = table.str();
  for (const auto& c : s->host.first_call_causes->other_threads)
    if (c.what == warmup::cause::child_process) out.push_back(c);
  // The JSON keeps them as they are (the CSV leaves every list out).
  std::string error;
  const std::optional<warmup::report> back = warmup::read_report(warmup::to_json(r), error);
  REQUIRE(back);
  const auto* again = back->find(warmup::op_kind::region, name);
  REQUIRE((again != nullptr && again->host.first_call_causes));
  std::vector<warmup::cause_time> read_out;
  for (const auto& c : again->host.first_call_causes->other_threads)
    if (c.what == warmup::cause::child_process) read_out.push_back(c);
  REQUIRE(read_out.size() == out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    CHECK(read_out[i].where == out[i].where);
    CHECK(read_out[i].time == out[i].time);
    CHECK(read_out[i].count == out[i].count);
  }
  CHECK(std::find_if(s->host.first_call_causes->causes.begin(), s->host.first_call_causes->causes.end(),
                     [](const warmup::cause_time& c) { return c.what == warmup::cause::child_process; }) ==
        s->host.first_call_causes->causes.end());
  return out;
}
}  // namespace

TEST_CASE("a child started and reaped inside a first call is named, with its CPU time") {
  warmup::set_cpu_sampling(1000us);
  std::chrono::nanoseconds cpu{};
  {
    warmup::region_scope s{"children.reaped"};
    shell_child sh(WARMUP_TEST_SPIN "echo done; read x");
    sh.hear();  // it has spun
    d::note_children();
    cpu = sh.reap();
  }
  std::string table;
  const auto found = processes_of("children.reaped", &table);
  REQUIRE(!found.empty());
  CHECK(table.find("while it waited, other processes: child process sh -c i=0") != std::string::npos);
  INFO("the child's CPU " << cpu.count() << " ns");
  CHECK(found[0].where.rfind("sh -c i=0", 0) == 0);
  CHECK(found[0].count == 1);
  // /proc counts in whole clock ticks (one lost to rounding), and the child's echo and exit after
  // the note are under one: a rest under two ticks is rounding, left out.
  const auto tick = std::chrono::nanoseconds{d::ns_per_tick()};
  CHECK(found[0].time >= cpu - 2 * tick);
  CHECK(found[0].time <= cpu + tick);
  std::chrono::nanoseconds all{};
  for (const auto& c : found) all += c.time;
  CHECK(all <= cpu + tick);
  CHECK(all >= cpu - 2 * tick);
}

// A subprocess read between its fork and its exec shows this process's command line: it is read
// again, and named by the command it then runs.
TEST_CASE("a child read between its fork and its exec is named by the command it runs") {
  warmup::set_cpu_sampling(1000us);
  int go[2] = {-1, -1}, said[2] = {-1, -1};
  REQUIRE(pipe(go) == 0);
  REQUIRE(pipe(said) == 0);
  {
    warmup::region_scope s{"children.read_before_exec"};
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {  // async-signal-safe calls only, until the exec
      char c = 0;
      if (read(go[0], &c, 1) != 1) _exit(126);
      dup2(go[0], 0);
      dup2(said[1], 1);
      close(go[1]);  // its stdin ends when the test closes its end
      close(said[0]);
      execl("/bin/sh", "sh", "-c", WARMUP_TEST_SPIN "echo done; read x", static_cast<char*>(nullptr));
      _exit(127);
    }
    d::note_children();  // before its exec: this process's command line
    REQUIRE(write(go[1], "x", 1) == 1);
    char c = 0;
    while (read(said[0], &c, 1) == 1 && c != '\n') {
    }
    d::note_children();  // after, while it waits to be let go: the shell's
    close(go[1]);
    go[1] = -1;
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
  }
  for (int fd : {go[0], said[0], said[1]}) close(fd);
  const auto found = processes_of("children.read_before_exec");
  REQUIRE(!found.empty());
  CHECK(found[0].where.rfind("sh -c i=0", 0) == 0);
}

TEST_CASE("an unnamed child reaped inside a first call still counts, as exited children") {
  warmup::set_cpu_sampling(1000us);
  std::chrono::nanoseconds cpu{};
  {
    warmup::region_scope s{"children.unseen"};
    shell_child sh(WARMUP_TEST_SPIN "echo done; read x");
    sh.hear();
    cpu = sh.reap();
  }
  const auto found = processes_of("children.unseen");
  REQUIRE(found.size() == 1);
  CHECK(found[0].where == d::exited_children);
  const auto tick = std::chrono::nanoseconds{d::ns_per_tick()};
  CHECK(found[0].time >= cpu - tick);
  CHECK(found[0].time <= cpu + tick);
}

TEST_CASE("a child started before a first call counts only the CPU time it spent during the call") {
  warmup::set_cpu_sampling(1000us);
  // The same spin before the call and in it: half its life's CPU time is the call's.
  shell_child sh("read a; " WARMUP_TEST_SPIN "echo one; read b; " WARMUP_TEST_SPIN "echo two; read c");
  sh.say();
  sh.hear();
  {
    warmup::region_scope s{"children.before"};
    sh.say();
    sh.hear();
  }
  const std::chrono::nanoseconds cpu = sh.reap();
  const auto found = processes_of("children.before");
  REQUIRE(found.size() == 1);
  INFO("the child's CPU over its life " << cpu.count() << " ns, the call's " << found[0].time.count() << " ns");
  CHECK(found[0].where.rfind("sh -c read a;", 0) == 0);
  CHECK(found[0].count == 1);
  CHECK(found[0].time >= cpu * 3 / 10);
  CHECK(found[0].time <= cpu * 7 / 10);
}

TEST_CASE("a first call with no child process names none") {
  warmup::set_cpu_sampling(1000us);
  {
    warmup::region_scope s{"children.none"};
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 20'000'000; ++i) x = x + i;
  }
  CHECK(processes_of("children.none").empty());
}

TEST_CASE("nothing is read where a first call's causes are not asked for") {
  const std::chrono::microseconds was = warmup::cpu_sampling_interval();
  warmup::set_cpu_sampling(0us);
  {
    warmup::region_scope s{"children.unasked"};
    shell_child sh(WARMUP_TEST_SPIN "echo done; read x");  // time enough to be named, were it read
    sh.hear();
    d::note_children();
    (void)sh.reap();
  }
  CHECK(processes_of("children.unasked").empty());
  CHECK(d::cause_records().children.open.load() == 0);
  warmup::set_cpu_sampling(was);
}
