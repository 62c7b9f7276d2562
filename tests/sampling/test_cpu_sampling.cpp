// CPU sampling of first calls (WARMUP_CPU_SAMPLING, set_cpu_sampling): where a first call's CPU
// time went, by shared object; the program's own SIGURG handler and SIGPROF left alone; the tick
// running only inside first calls, on the thread's CPU time, so that it never interrupts a
// blocking system call. Its own process: it installs a signal handler. No GPU.
#include "catch.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/partition.hpp"
#include "warmup/profile.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/analysis/cpu_tick_source.hpp"
#include "warmup/detail/analysis/host_probe.hpp"
#include "../support/test_plugin.hpp"
#include "../support/thread_cpu.hpp"
#include "sampling_support.hpp"

using namespace std::chrono_literals;

using namespace sampling_test;

namespace {
// The POSIX timers the process holds, as the kernel lists them; -1 where it has no such list.
int posix_timers() {
  std::FILE* f = std::fopen("/proc/self/timers", "r");
  if (f == nullptr) return -1;
  int n = 0;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) n += std::strncmp(line, "ID:", 3) == 0;
  std::fclose(f);
  return n;
}
std::atomic<int> program_handler_calls{0};
void program_handler(int) { program_handler_calls.fetch_add(1); }
}  // namespace

TEST_CASE("a timer tick is armed at its whole interval, at and past a second, and deleted at its end") {
  using namespace warmup::detail;
  const long tid = static_cast<long>(::syscall(SYS_gettid));
  const int before = posix_timers();
  // Periods the thread's CPU time does not reach here: the timer is read, never fires.
  for (const std::uint64_t period : {999'999'999ull, 1'000'000'000ull, 1'500'000'000ull}) {
    INFO("period " << period << " ns");
    const auto b = std::make_unique<sample_buffer>();
    int refused = 0;
    REQUIRE(open_tick(b.get(), tick_kind::cpu_timer, period, tid, refused) == tick_open::made);
    REQUIRE(b->tick.kind == tick_kind::cpu_timer);
    CHECK(posix_timers() == (before < 0 ? -1 : before + 1));
    REQUIRE(arm_tick(b->tick));
    itimerspec now{};
    REQUIRE(::timer_gettime(b->tick.timer, &now) == 0);
    CHECK(now.it_interval.tv_sec == static_cast<time_t>(period / 1'000'000'000u));
    CHECK(now.it_interval.tv_nsec == static_cast<long>(period % 1'000'000'000u));
    CHECK((now.it_value.tv_sec > 0 || now.it_value.tv_nsec > 0));  // armed: a zero value disarms
    end_tick(b->tick);
    CHECK(posix_timers() == before);
  }
}

TEST_CASE("a program with its own SIGURG handler keeps it, and the report says why sampling is off") {
  // In a child: once the library holds SIGURG, it keeps it to the end of the process.
  const int status = in_child([] {
    if (!is_default(SIGURG)) return 10;
    struct sigaction mine {};
    mine.sa_handler = program_handler;
    sigemptyset(&mine.sa_mask);
    if (sigaction(SIGURG, &mine, nullptr) != 0) return 11;
    warmup::set_cpu_sampling(1ms);
    {
      warmup::region_scope s{"sampling.in_the_way"};
      plugin_spin()(5'000'000);
    }
    struct sigaction after {};
    sigaction(SIGURG, nullptr, &after);
    if (after.sa_handler != program_handler) return 12;  // still the program's
    raise(SIGURG);
    if (program_handler_calls.load() != 1) return 13;  // and it still runs
    const warmup::report r = warmup::snapshot();
    if (r.cpu_sampling.rfind("off: SIGURG has a handler of the program's", 0) != 0) return 14;
    const auto* s = r.find(warmup::op_kind::region, "sampling.in_the_way");
    if (s == nullptr) return 15;
    const auto& why = s->host.first_call_causes;
    if (why && host_code_in(*why, "libwarmup_test_plugin.so") != nullptr) return 16;
    bool noticed = false;
    for (const std::string& n : r.notices) noticed = noticed || n.find("CPU sampling is off") != std::string::npos;
    return noticed ? 0 : 17;
  });
  CHECK(status == 0);
}

TEST_CASE("sampling off: SIGURG is never touched; sampling on: SIGPROF never is") {
  REQUIRE(warmup::cpu_sampling_interval() == 0us);
  { warmup::region_scope s{"sampling.off"}; plugin_spin()(2'000'000); }
  CHECK(is_default(SIGURG));
  CHECK(warmup::snapshot().cpu_sampling == "off");
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    { warmup::region_scope s{"sampling.sigprof_free"}; plugin_spin()(2'000'000); }
    return is_default(SIGPROF) && !is_default(SIGURG) ? 0 : 1;
  });
  CHECK(status == 0);
}

TEST_CASE("a first call's CPU time in a library is named after that library, with either tick") {
  using warmup::detail::tick_kind;
  warmup::set_cpu_sampling(200us);
  CHECK(warmup::cpu_sampling_interval() == 200us);
  spin_fn spin = plugin_spin();  // loaded before: its loading is not what is measured
  auto& shared = warmup::detail::sampler_state();
  const tick_kind before = shared.preferred.load();
  // The task clock where the kernel allows it; the CPU-clock timer, the fallback, asked for.
  for (const tick_kind tick : {tick_kind::task_clock, tick_kind::cpu_timer}) {
    shared.preferred = tick;
    const std::string name = tick == tick_kind::cpu_timer ? "sampling.spins.timer" : "sampling.spins";
    {
      warmup::region_scope s{name};
      // 40 ms of this thread's CPU in the plugin's code; 100 ms with the timer, which the
      // kernel checks only at its tick, so that a loaded machine's ticks still find it there.
      spin(tick == tick_kind::cpu_timer ? 100'000'000 : 40'000'000);
    }
    const warmup::report r = warmup::snapshot();
    CHECK(r.cpu_sampling.rfind("every 200 us of CPU time in first calls (", 0) == 0);
    const bool task_clock = shared.used_tick == tick_kind::task_clock;
    if (tick == tick_kind::cpu_timer) CHECK_FALSE(task_clock);
    INFO(name << ": " << r.cpu_sampling);
    const auto* s = r.find(warmup::op_kind::region, name);
    REQUIRE(s != nullptr);
    REQUIRE(s->host.first_call_causes);
    const warmup::attribution& why = *s->host.first_call_causes;
    const warmup::cause_time* in_plugin = host_code_in(why, "libwarmup_test_plugin.so");
    REQUIRE(in_plugin != nullptr);
    // One sample per 200 us of the call's CPU time (40 ms) with the task clock, one per kernel
    // tick (4 or 10 ms) of its 100 ms with the timer, each standing for the CPU time since the
    // one before.
    CHECK(in_plugin->count >= (task_clock ? 150u : 3u));
    CHECK(in_plugin->time >= (task_clock ? 35ms : 20ms));
    REQUIRE(s->first_call_host);
    CHECK(in_plugin->time <= s->first_call_host->cpu);
    partition::check_first(why, s->host);  // never more than the call's wall time, each instant once
    std::ostringstream table;
    warmup::print(r, table);
    CHECK(table.str().find("host code libwarmup_test_plugin.so") != std::string::npos);
    CHECK(warmup::to_json(r).find("\"where\":\"libwarmup_test_plugin.so\"") != std::string::npos);
    // Its ticks all reached the sampler, the buffer had room: nothing cut short, nothing said.
    for (const std::string& n : r.notices) CHECK(n.find("unattributed") == std::string::npos);
  }
  shared.preferred = before;
}

TEST_CASE("the timer runs inside first calls only, and a nested first call shares the outer's") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  {
    warmup::region_scope outer{"sampling.outer"};
    spin(10'000'000);
    {
      warmup::region_scope inner{"sampling.inner"};
      spin(10'000'000);
    }
    spin(10'000'000);
  }
  const std::size_t held = warmup::detail::cause_records().size();
  for (int i = 0; i < 3; ++i) {  // warm calls: not sampled
    warmup::region_scope outer{"sampling.outer"};
    spin(10'000'000);
  }
  spin(10'000'000);  // outside any scope: not sampled
  CHECK(warmup::detail::cause_records().size() == held);
  const warmup::report r = warmup::snapshot();
  const auto* outer = r.find(warmup::op_kind::region, "sampling.outer");
  const auto* inner = r.find(warmup::op_kind::region, "sampling.inner");
  REQUIRE((outer && inner && outer->host.first_call_causes && inner->host.first_call_causes));
  const auto* o = host_code_in(*outer->host.first_call_causes, "libwarmup_test_plugin.so");
  const auto* i = host_code_in(*inner->host.first_call_causes, "libwarmup_test_plugin.so");
  REQUIRE((o && i));
  CHECK(o->time > i->time + 5ms);  // 30 ms against 10 ms
  CHECK(i->time >= 5ms);
}

TEST_CASE("a nested first call of another site leaves the outer call's samples their weight") {
  // Each sample stands for the CPU time since the one before, the first since the outer call's
  // clock started: a nested first call (another site's) starts no clock of the outer's.
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  {
    warmup::region_scope outer{"sampling.weighed_outer"};
    spin(30'000'000);  // 30 ms of CPU in the plugin, all of it before the nested call
    warmup::region_scope inner{"sampling.weighed_inner"};
  }
  const warmup::report r = warmup::snapshot();
  const auto* outer = r.find(warmup::op_kind::region, "sampling.weighed_outer");
  REQUIRE((outer && outer->host.first_call_causes));
  // The plugin's samples, each of about a period's weight or more, whatever the tick and the load (a
  // nested call that restarted the outer's clock would leave them none: they all came before it).
  const auto* o = host_code_in(*outer->host.first_call_causes, "libwarmup_test_plugin.so");
  REQUIRE(o != nullptr);
  INFO(r.cpu_sampling << ": " << o->count << " samples in the plugin, " << o->time.count() << " ns");
  CHECK(o->time.count() >= static_cast<std::int64_t>(o->count) * 100'000);  // half of 200 us each
}

TEST_CASE("threads sample their own first calls") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([t, spin] {
      warmup::region_scope s{"sampling.thread." + std::to_string(t)};
      spin(40'000'000);
    });
  for (auto& t : threads) t.join();
  const warmup::report r = warmup::snapshot();
  for (int t = 0; t < 3; ++t) {
    const auto* s = r.find(warmup::op_kind::region, "sampling.thread." + std::to_string(t));
    REQUIRE((s && s->host.first_call_causes));
    const auto* in_plugin = host_code_in(*s->host.first_call_causes, "libwarmup_test_plugin.so");
    REQUIRE(in_plugin != nullptr);
    REQUIRE(s->first_call_host);
    CHECK(in_plugin->time >= 30ms);  // of its 40 ms
    CHECK(in_plugin->time <= s->first_call_host->cpu);  // none of the other threads' samples
  }
}

TEST_CASE("an interval out of range is said and clamped; 0 stops sampling") {
  warmup::set_cpu_sampling(1us);
  CHECK(warmup::cpu_sampling_interval() == 100us);
  warmup::set_cpu_sampling(10s);
  CHECK(warmup::cpu_sampling_interval() == 1s);
  warmup::set_cpu_sampling(0us);
  CHECK(warmup::cpu_sampling_interval() == 0us);
  CHECK(warmup::snapshot().cpu_sampling == "off");
  bool said = false;
  for (const std::string& n : warmup::snapshot().notices)
    said = said || n.find("set_cpu_sampling(1 us) is outside 100 to 1000000 microseconds") != std::string::npos;
  CHECK(said);
}

TEST_CASE("a forked child samples its first calls with a timer of its own") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  { warmup::region_scope s{"sampling.before_fork"}; spin(5'000'000); }  // this thread's timer exists
  const int status = in_child([spin] {
    { warmup::region_scope s{"sampling.in_child"}; spin(20'000'000); }
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::region, "sampling.in_child");
    if (s == nullptr || !s->host.first_call_causes) return 20;
    const auto* in_plugin = host_code_in(*s->host.first_call_causes, "libwarmup_test_plugin.so");
    return in_plugin != nullptr && in_plugin->time >= 10ms ? 0 : 21;
  });
  CHECK(status == 0);
}

namespace {
// A call that blocks for `timeout` and returns 0 where it timed out as asked, else the errno it
// failed with (EINTR: a signal cut it short).
using blocking_call = int (*)(std::chrono::milliseconds timeout);

struct blocking_kind {
  const char* name;
  blocking_call call;
};

struct pipe_pair {
  int fd[2] = {-1, -1};
  pipe_pair() { REQUIRE(pipe(fd) == 0); }
  ~pipe_pair() { close(fd[0]), close(fd[1]); }
};

int result(int r) { return r < 0 ? errno : 0; }

const blocking_kind blocking_calls[] = {
    {"poll", [](std::chrono::milliseconds t) {
       pipe_pair p;
       pollfd f{p.fd[0], POLLIN, 0};
       return result(poll(&f, 1, static_cast<int>(t.count())));
     }},
    {"select", [](std::chrono::milliseconds t) {
       pipe_pair p;
       fd_set in;
       FD_ZERO(&in);
       FD_SET(p.fd[0], &in);
       timeval tv{0, static_cast<suseconds_t>(t.count() * 1000)};
       return result(select(p.fd[0] + 1, &in, nullptr, nullptr, &tv));
     }},
    {"epoll_wait", [](std::chrono::milliseconds t) {
       pipe_pair p;
       const int ep = epoll_create1(EPOLL_CLOEXEC);
       REQUIRE(ep >= 0);
       epoll_event e{};
       e.events = EPOLLIN;
       REQUIRE(epoll_ctl(ep, EPOLL_CTL_ADD, p.fd[0], &e) == 0);
       const int r = result(epoll_wait(ep, &e, 1, static_cast<int>(t.count())));
       close(ep);
       return r;
     }},
    {"nanosleep", [](std::chrono::milliseconds t) {
       const timespec ts{0, static_cast<long>(t.count()) * 1'000'000L};
       return result(nanosleep(&ts, nullptr));
     }},
    {"sem_timedwait", [](std::chrono::milliseconds t) {
       sem_t sem;
       REQUIRE(sem_init(&sem, 0, 0) == 0);
       timespec until{};
       clock_gettime(CLOCK_REALTIME, &until);
       until.tv_nsec += static_cast<long>(t.count()) * 1'000'000L;
       until.tv_sec += until.tv_nsec / 1'000'000'000L;
       until.tv_nsec %= 1'000'000'000L;
       const int r = sem_timedwait(&sem, &until);
       const int e = errno;
       sem_destroy(&sem);
       return r == 0 ? -1 : (e == ETIMEDOUT ? 0 : e);  // 0: timed out, as asked
     }},
};

struct blocked_call {
  int error = -1;
  std::chrono::nanoseconds took{};
};

// Runs `kind` as the first call of a new site in a new thread (whose sampler makes its tick
// of the kind the process prefers now), then unsampled, as the site's second call.
std::pair<blocked_call, blocked_call> first_and_second(const blocking_kind& kind, const std::string& site,
                                                       std::chrono::milliseconds timeout) {
  std::pair<blocked_call, blocked_call> out;
  std::thread([&] {
    for (blocked_call* c : {&out.first, &out.second}) {
      warmup::region_scope s{site};
      const auto t0 = std::chrono::steady_clock::now();
      c->error = kind.call(timeout);
      c->took = std::chrono::steady_clock::now() - t0;
    }
  }).join();
  return out;
}
}  // namespace

TEST_CASE("a first call blocked in poll, select, epoll_wait, nanosleep or sem_timedwait is never interrupted") {
  using warmup::detail::tick_kind;
  warmup::set_cpu_sampling(200us);
  auto& shared = warmup::detail::sampler_state();
  const tick_kind before = shared.preferred.load();
  constexpr auto timeout = 200ms;
  // A record of another thread: the store holds something, so every first call gets its causes.
  warmup::detail::cause_records().add({warmup::cause::module_load, 0, 1, warmup::detail::this_thread_id() + 1});
  std::vector<std::string> sites;
  const int timers_before = posix_timers();
  for (const tick_kind tick : {tick_kind::task_clock, tick_kind::cpu_timer}) {
    shared.preferred = tick;
    for (const blocking_kind& kind : blocking_calls) {
      const std::string site = std::string("sampling.blocked.") + kind.name + (tick == tick_kind::cpu_timer ? ".timer" : "");
      const auto [first, second] = first_and_second(kind, site, timeout);
      INFO(site << ": sampled first call " << first.took.count() << " ns, unsampled second " << second.took.count()
                << " ns, tick " << static_cast<int>(shared.used_tick.load()));
      CHECK(first.error == 0);  // not EINTR: it slept its whole timeout
      CHECK(second.error == 0);
      CHECK(first.took >= timeout);
      sites.push_back(site);
    }
    // The tick asked for was the one made, where this kernel allows it.
    if (tick == tick_kind::cpu_timer) CHECK(shared.used_tick.load() == tick_kind::cpu_timer);
  }
  shared.preferred = before;
  // Each first call's timer was deleted at its end: the process holds no more POSIX timers
  // than before (the kernel lists them in /proc/self/timers, where it has that file).
  CHECK(posix_timers() == timers_before);
  // Sampling was on, and no sample was taken while a call was blocked: each stands for a
  // period of the call's CPU time (a new thread's first call spends some before it blocks:
  // its stack's page faults, the loader binding the call), so there are at most as many as its
  // CPU time holds periods. A wall-clock tick of 200 us would have taken a thousand.
  const warmup::report r = warmup::snapshot();
  CHECK(r.cpu_sampling.rfind("every 200 us of CPU time in first calls (", 0) == 0);
  for (const std::string& site : sites) {
    const auto* s = r.find(warmup::op_kind::region, site);
    REQUIRE((s && s->host.first_call_causes && s->first_call_host));
    std::uint64_t samples = 0;
    for (const auto& c : s->host.first_call_causes->causes)
      if (c.what == warmup::cause::host_code && c.where != "[kernel]") samples += c.count;  // [kernel] shares a tick
    INFO(site << ": " << samples << " samples, CPU " << s->first_call_host->cpu.count() << " ns");
    CHECK(samples <= static_cast<std::uint64_t>(s->first_call_host->cpu / 200us) + 1);
  }
}

TEST_CASE("with the task clock, a first call's CPU time in the kernel is the kernel's") {
  using warmup::detail::tick_kind;
  warmup::set_cpu_sampling(200us);
  bool task_clock = false;
  std::thread([&] {
    {
      warmup::region_scope s{"sampling.faults"};
      // Page faults on fresh anonymous memory: the kernel zeroes each page, on this thread's
      // CPU; 40 ms of it, however loaded the machine.
      const std::int64_t end = warmup_test::thread_cpu_ns() + 40'000'000;
      while (warmup_test::thread_cpu_ns() < end) {
        constexpr std::size_t size = 16u << 20;
        void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        for (std::size_t i = 0; i < size; i += 4096) static_cast<volatile char*>(p)[i] = 1;
        munmap(p, size);
      }
    }
    task_clock = warmup::detail::sampler_state().used_tick == tick_kind::task_clock;
  }).join();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "sampling.faults");
  REQUIRE((s && s->host.first_call_causes && s->first_call_host));
  const auto* kernel = host_code_in(*s->host.first_call_causes, "[kernel]");
  INFO(r.cpu_sampling << "\n" << partition::why_text(*s->host.first_call_causes, s->host) << "\nCPU "
                      << s->first_call_host->cpu.count() << " ns");
  if (!task_clock) {  // the CPU-clock timer samples the kernel's time as the code it returns to
    CHECK(kernel == nullptr);
    return;
  }
  REQUIRE(kernel != nullptr);
  CHECK(kernel->time >= s->first_call_host->cpu / 3);  // most of it: zeroing pages
  CHECK(kernel->time <= s->first_call_host->cpu);
  partition::check_first(*s->host.first_call_causes, s->host);
}

TEST_CASE("the task clock ticks on the thread's CPU time: a busy first call is sampled whatever the load") {
  warmup::set_cpu_sampling(1000us);
  std::atomic<bool> stop{false};
  std::vector<std::thread> load;  // twice as many spinning threads as CPUs
  for (unsigned i = 0; i < 2 * std::max(1u, std::thread::hardware_concurrency()); ++i)
    load.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  spin_fn spin = plugin_spin();
  bool task_clock = false;
  std::thread([&] {
    warmup::region_scope s{"sampling.under_load"};
    spin(40'000'000);  // 40 ms of this thread's CPU, however long that takes
    task_clock = warmup::detail::sampler_state().used_tick == warmup::detail::tick_kind::task_clock;
  }).join();
  stop = true;
  for (auto& t : load) t.join();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "sampling.under_load");
  REQUIRE((s && s->host.first_call_causes));
  const auto* in_plugin = host_code_in(*s->host.first_call_causes, "libwarmup_test_plugin.so");
  REQUIRE(in_plugin != nullptr);
  INFO(r.cpu_sampling << ": " << in_plugin->count << " samples in the plugin");
  // One a ms of CPU: 40, less those that land outside the plugin's code (its clock reads, the
  // kernel, a sanitizer's runtime: 35 under AddressSanitizer beside the host tests). A clock that
  // ticked on the wall, or lost ticks under load, would fall far below.
  CHECK(in_plugin->count >= (task_clock ? 32u : 3u));
}

TEST_CASE("with sampling, a first call's time is named: its CPU by object, the rest as waiting") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  std::thread([&] {
    warmup::region_scope s{"sampling.spins_and_waits"};
    spin(10'000'000);
    std::this_thread::sleep_for(30ms);
    spin(10'000'000);
  }).join();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "sampling.spins_and_waits");
  REQUIRE((s && s->host.first_call_causes && s->first_call_host));
  const warmup::attribution& why = *s->host.first_call_causes;
  std::ostringstream table;
  warmup::print(r, table);
  INFO(table.str());
  const warmup::cause_time* waiting = nullptr;
  for (const auto& c : why.causes)
    if (c.what == warmup::cause::waiting) waiting = &c;
  REQUIRE(waiting != nullptr);
  const auto* in_plugin = host_code_in(why, "libwarmup_test_plugin.so");
  REQUIRE(in_plugin != nullptr);
  INFO("call " << why.call.count() << " cpu " << s->first_call_host->cpu.count() << " waiting " << waiting->time.count());
  CHECK(waiting->time >= 29ms);  // the sleep, placed between the two spins' samples, and any preemption
  // Never more than it was off the CPU (the call's window and its first host time agree within
  // the clock's calibration: partition::check_first).
  CHECK(waiting->time <= why.call - s->first_call_host->cpu + 1us + why.call / 1000);
  CHECK(in_plugin->time >= 15ms);
  // A call that ran once has no steady p50: its excess is all of it, and 95% of it is named.
  CHECK(why.named * 100 >= why.excess * 95);
  partition::check_first(why, s->host);
}

namespace {
/// A first call `name` on this thread that waits for a worker, made before it, to run `work`.
template <class F>
void wait_in_first_call(const std::string& name, F&& work) {
  std::mutex m;
  std::condition_variable cv;
  bool go = false, done = false;
  std::thread worker([&] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return go; });
    lock.unlock();
    work();
    lock.lock();
    done = true;
    cv.notify_all();
  });
  {
    warmup::region_scope s{name};
    {
      const std::lock_guard<std::mutex> lock(m);
      go = true;
    }
    cv.notify_all();
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
  }
  worker.join();
}

std::chrono::nanoseconds total(const std::vector<warmup::cause_time>& causes, warmup::cause what) {
  std::chrono::nanoseconds t{};
  for (const auto& c : causes) t += c.what == what ? c.time : std::chrono::nanoseconds{};
  return t;
}
}  // namespace

// The same where the call did not wait (busy beside the worker) is tests/host/test_attribution.cpp's:
// on a loaded machine a busy caller may still wait for a worker that ran late.
// Attribution asked for: where CUPTI cannot run (this machine has no driver), the CPU samples
// still name the call, and the header says which sources ran.
namespace {
/// The buffer of the other threads of the one sampled call in flight, or nullptr.
warmup::detail::sample_buffer* others_buffer_in_flight() {
  warmup::detail::sampler_shared& shared = warmup::detail::sampler_state();
  for (std::uint32_t i = 0; i < shared.made.load(); ++i) {
    warmup::detail::sample_buffer* b = shared.buffers[i].load();
    if (b != nullptr && b->any_thread.load() && b->armed.load()) return b;
  }
  return nullptr;
}

/// One tick of the other threads' timer into `o`, raised by the thread itself and so exactly
/// where the test puts it: the handler, as the kernel calls it, with the interrupted
/// instruction at `pc`.
void tick_by_hand(warmup::detail::sample_buffer* o, const void* pc) {
  siginfo_t info{};
  info.si_code = SI_TIMER;
  info.si_value.sival_ptr = o;
  ucontext_t uc{};
#if defined(__x86_64__)
  uc.uc_mcontext.gregs[REG_RIP] = reinterpret_cast<greg_t>(pc);
#elif defined(__aarch64__)
  uc.uc_mcontext.pc = reinterpret_cast<std::uintptr_t>(pc);
#endif
  warmup::detail::on_cpu_sample(warmup::detail::sample_signal, &info, &uc);
}

/// A worker's share of a call: `rounds` rounds of the plugin's spin of `each`, each followed by a
/// tick by hand into the other threads' buffer of the call in flight. The kernel's tick on a
/// thread's CPU clock is 4 or 10 ms, and under load the worker may get few of them while the
/// caller waits; these are exact. Returns the thread's CPU time spent; none of it is ticked where
/// no buffer is armed for this thread (`*ticked` false).
std::chrono::nanoseconds spin_ticked(spin_fn spin, int rounds, long long each, bool* ticked = nullptr) {
  warmup::detail::sample_buffer* o = others_buffer_in_flight();
  if (ticked != nullptr) *ticked = o != nullptr;
  const std::int64_t t0 = warmup_test::thread_cpu_ns();
  for (int i = 0; i < rounds; ++i) {
    spin(each);
    if (o != nullptr) tick_by_hand(o, reinterpret_cast<const void*>(spin));
  }
  return std::chrono::nanoseconds{warmup_test::thread_cpu_ns() - t0};
}

/// What the process's other threads ran in the test plugin while first call `name` waited.
std::optional<warmup::cause_time> others_in_plugin(const std::string& name) {
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, name);
  REQUIRE((s && s->host.first_call_causes));
  warmup::attribution theirs;  // host_code_in reads `causes`
  theirs.causes = s->host.first_call_causes->other_threads;
  const warmup::cause_time* c = host_code_in(theirs, "libwarmup_test_plugin.so");
  return c == nullptr ? std::nullopt : std::optional<warmup::cause_time>(*c);
}
}  // namespace

TEST_CASE("a first call that waits on a worker names what the worker did meanwhile, apart from its causes") {
  warmup::set_cpu_sampling(200us);
  const bool cupti = warmup::set_attribution(true);
  spin_fn spin = plugin_spin();
  std::int64_t worker_cpu = 0;
  bool ticked = false;
  // The worker's ticks raised by hand: 16 of them, one after each 3.75 ms of the plugin's spin
  // (60 ms of the worker's CPU).
  wait_in_first_call("sampling.waits_on_a_worker",
                     [&] { worker_cpu = spin_ticked(spin, 16, 3'750'000, &ticked).count(); });
  const warmup::report r = warmup::snapshot();
  (void)warmup::set_attribution(false);
  REQUIRE(ticked);
  const auto* s = r.find(warmup::op_kind::region, "sampling.waits_on_a_worker");
  REQUIRE((s && s->host.first_call_causes));
  const warmup::attribution& why = *s->host.first_call_causes;
  std::ostringstream table;
  warmup::print(r, table);
  INFO(table.str() << r.attribution_source);
  CHECK(r.attribution_source.rfind(cupti ? "cupti" : "CPU samples and host signals, no CUPTI: ", 0) == 0);
  const auto waiting = total(why.causes, warmup::cause::waiting);
  INFO("waiting " << waiting.count() << " ns, the worker's CPU " << worker_cpu << " ns");
  CHECK(waiting >= 40ms);
  CHECK(host_code_in(why, "libwarmup_test_plugin.so") == nullptr);  // the worker's CPU, not the caller's
  warmup::attribution theirs;  // host_code_in reads `causes`
  theirs.causes = why.other_threads;
  const auto* in_plugin = host_code_in(theirs, "libwarmup_test_plugin.so");
  REQUIRE(in_plugin != nullptr);
  // Each sample stands for the worker's CPU since the one before: nearly all of it in the
  // plugin (the loop and the handler's own calls are the rest), never more than the caller waited.
  CHECK(in_plugin->count >= 16u);
  CHECK(in_plugin->time.count() * 100 >= worker_cpu * 90);
  CHECK(total(why.other_threads, warmup::cause::host_code) <= waiting);
}

TEST_CASE("a first call that waits on a busy worker names all its CPU: the worker's samples thinned, never cut, in bounded memory") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(100us);
    spin_fn spin = plugin_spin();
    std::int64_t worker_cpu = 0;
    int failed = 0;
    wait_in_first_call("sampling.waits_on_a_busy_worker", [&] {
      warmup::detail::sample_buffer* o = others_buffer_in_flight();
      const std::int64_t t0 = warmup_test::thread_cpu_ns();
      // A timer on another thread's CPU clock ticks at the kernel's tick (4 ms at HZ=250), too
      // seldom to fill a buffer in a short test: the ticks are raised here instead, one after
      // each round of the plugin's spin, 8192 of them: twice the old shared 4096, and the
      // worker's span (4096 over its thread and the room for later ones) many times over.
      for (int i = 0; i < 8192 && o != nullptr; ++i) {
        spin(1);
        tick_by_hand(o, reinterpret_cast<const void*>(spin));
      }
      worker_cpu = warmup_test::thread_cpu_ns() - t0;
      failed = o == nullptr ? 1 : 0;
    });
    if (failed != 0) return 2;
    const warmup::report r = warmup::snapshot();
    if (r.cpu_sampling.find("samples lost") != std::string::npos) return 3;
    const auto* s = r.find(warmup::op_kind::region, "sampling.waits_on_a_busy_worker");
    if (s == nullptr || !s->host.first_call_causes) return 4;
    warmup::attribution theirs;
    theirs.causes = s->host.first_call_causes->other_threads;
    const auto* in_plugin = host_code_in(theirs, "libwarmup_test_plugin.so");
    if (in_plugin == nullptr) return 5;
    // before: 4096 samples of the 8192 kept, the rest lost: half the worker's CPU named. Each
    // kept sample stands for the CPU since the one before it, so all of it is, nearly all in the
    // plugin (the loop and the handler's own calls are the rest).
    if (in_plugin->time.count() * 100 < worker_cpu * 90) return 6;
    // The worker's span, never more: 4096 over the slots, here between half of it and all of it.
    const std::uint32_t span = warmup::detail::sample_buffer::capacity / (1 + warmup::detail::sample_buffer::others_room);
    if (in_plugin->count > span || in_plugin->count < span / 3) return 7;
    return 0;
  });
  CHECK(status == 0);
}

// Each of the worker's ticks reads the waiting call's CPU clock too (cpu_sample::caller_cpu_ns),
// kept among the call's samples as a reading that names nothing: a long call's thinned samples
// leave its waiting timed to the worker's tick (tests/host/test_attribution.cpp has the join).
TEST_CASE("a worker's ticks read the waiting call's CPU clock, kept as the call's readings") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  int ticked = 0;
  const std::uint64_t caller = warmup::detail::this_thread_id();
  const std::uint64_t cpu_before = static_cast<std::uint64_t>(warmup_test::thread_cpu_ns());
  const std::uint64_t from = warmup::detail::clock_ns(CLOCK_MONOTONIC);
  wait_in_first_call("sampling.worker_reads_the_callers_clock", [&] {
    warmup::detail::sample_buffer* o = others_buffer_in_flight();
    for (int i = 0; i < 16 && o != nullptr; ++i, ++ticked) {
      spin(100'000);
      tick_by_hand(o, reinterpret_cast<const void*>(spin));
    }
  });
  const std::uint64_t cpu_after = static_cast<std::uint64_t>(warmup_test::thread_cpu_ns());
  REQUIRE(ticked == 16);
  const auto kept = warmup::detail::cause_records().samples_in({from, warmup::detail::clock_ns(CLOCK_MONOTONIC), caller});
  int readings = 0;
  for (const warmup::detail::thread_sample& x : kept) {
    if (x.pc != warmup::detail::clock_reading_pc) continue;
    ++readings;
    CHECK(x.weight_ns == 0u);
    CHECK(x.cpu_ns >= cpu_before);  // the caller's clock, read while it waited
    CHECK(x.cpu_ns <= cpu_after);
  }
  CHECK(readings >= 16);
}

TEST_CASE("a worker made during a sampled first call is named once sample_new_threads arms it") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  std::mutex m;
  std::condition_variable cv;
  bool started = false, go = false, done = false;
  std::uint32_t armed = 0;
  std::chrono::nanoseconds worker_cpu{};
  std::optional<std::thread> worker;
  {
    warmup::region_scope s{"sampling.waits_on_a_new_worker"};
    worker.emplace([&] {
      std::unique_lock<std::mutex> lock(m);
      started = true;
      cv.notify_all();
      cv.wait(lock, [&] { return go; });
      lock.unlock();
      // Its ticks raised by hand: they count only where the thread has a slot, which
      // sample_new_threads gave it.
      worker_cpu = spin_ticked(spin, 16, 4'000'000);
      lock.lock();
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return started; });
    armed = warmup::detail::sample_new_threads();  // as the Python module's code sampler does
    go = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
  }
  worker->join();
  CHECK(armed == 1u);
  CHECK(warmup::detail::sample_new_threads() == 0u);  // no call in flight: nothing to arm
  const auto in_plugin = others_in_plugin("sampling.waits_on_a_new_worker");
  // before: the worker, made after the call's start, had no timer: nothing of it named.
  REQUIRE(in_plugin);
  INFO("the worker's CPU " << worker_cpu.count() << " ns");
  CHECK(in_plugin->time * 10 >= worker_cpu * 9);
}

TEST_CASE("in C++, a worker made during a sampled first call is named once a first call starts on it") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  std::chrono::nanoseconds worker_cpu{};
  {
    warmup::region_scope s{"sampling.waits_on_a_worker_with_a_first_call"};
    std::thread([&] {
      { warmup::region_scope first{"sampling.new_worker_first_call"}; }  // arms this thread for the call waiting
      // Its ticks raised by hand: they count only where the thread has a slot, which its first
      // call's start gave it.
      worker_cpu = spin_ticked(spin, 16, 4'000'000);
    }).join();
  }
  const auto in_plugin = others_in_plugin("sampling.waits_on_a_worker_with_a_first_call");
  REQUIRE(in_plugin);  // before: the worker had no timer
  INFO("the worker's CPU " << worker_cpu.count() << " ns");
  CHECK(in_plugin->time * 10 >= worker_cpu * 9);
}

TEST_CASE("another thread blocked while a first call is sampled is never interrupted by its timer") {
  warmup::set_cpu_sampling(200us);
  spin_fn spin = plugin_spin();
  int n = 0;
  for (const blocking_kind& kind : blocking_calls) {
    std::atomic<bool> blocked{false};
    int error = -1;
    std::chrono::nanoseconds took{};
    std::thread other([&] {
      blocked = true;
      const auto t0 = std::chrono::steady_clock::now();
      error = kind.call(150ms);
      took = std::chrono::steady_clock::now() - t0;
    });
    while (!blocked) std::this_thread::yield();
    {
      warmup::region_scope s{"sampling.beside_a_blocked_thread." + std::to_string(n++)};  // its timers on `other` too
      spin(30'000'000);
    }
    other.join();
    INFO(kind.name << ": " << took.count() << " ns");
    CHECK(error == 0);  // not EINTR: it waited its whole timeout
    CHECK(took >= 150ms);
  }
}
