// What the CPU sampler must never touch, as a hostile program would try it: descriptors the
// program closed and reused (as daemons do), signal dispositions reset under a sampled call, a
// fork while the sampler's lock is held, a short descriptor limit, thread-local destructors that
// run scopes, full buffers, blocked signals and scopes that end on another thread. Each test
// runs in a child process where it changes descriptors or dispositions for good.
#include "catch.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "../support/thread_cpu.hpp"
#include "sampling_support.hpp"

using namespace std::chrono_literals;
using namespace sampling_test;

namespace {

// As a daemon does: every descriptor above the standard three closed, whoever opened it.
void close_all_descriptors() {
  for (int fd = 3; fd < 1024; ++fd) (void)close(fd);
}

// As a daemon does with the numbers it freed: the program's file under each of [from, to).
bool reuse_numbers(int from, int to, int file) {
  for (int fd = from; fd < to; ++fd) {
    (void)close(fd);
    if (dup2(file, fd) != fd) return false;
  }
  return true;
}

// One byte through each of the program's numbers [from, to): each still its file.
bool write_through(int from, int to, char c) {
  for (int fd = from; fd < to; ++fd)
    if (write(fd, &c, 1) != 1) return false;
  return true;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const char* what) {
  return "/tmp/warmup_sampler_" + std::to_string(getpid()) + "_" + what;
}

int open_descriptors() {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) n += fcntl(fd, F_GETFD) != -1;
  return n;
}

// A one-shot gate between two threads.
struct gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void release() {
    std::lock_guard<std::mutex> l(m);
    open = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return open; });
  }
};

}  // namespace

TEST_CASE("a daemon that closes every descriptor and reuses the numbers keeps its bytes") {
  const std::string path = temp_path("daemon");
  // After a sampled first call, at exit: the program's file at the lowest number, written by
  // stdio and flushed as the process ends (after thread-local destructors).
  int status = in_child([&] {
    warmup::set_cpu_sampling(200us);
    { warmup::region_scope s{"daemon.before"}; plugin_spin()(5'000'000); }
    close_all_descriptors();
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr || fileno(f) != 3) return 2;
    std::fputs("the program's bytes\n", f);
    std::exit(0);  // stdio flushes after the library's destructors
  });
  CHECK(status == 0);
  CHECK(read_file(path) == "the program's bytes\n");
  // Inside a sampled first call, the number its tick held becomes the program's file, which
  // must outlive the call's end, a thread's exit and a fork: the program holds its file under
  // every number the tick could have had.
  status = in_child([&] {
    warmup::set_cpu_sampling(200us);
    int file = -1;
    {
      warmup::region_scope s{"daemon.during"};
      plugin_spin()(2'000'000);
      close_all_descriptors();
      file = open(path.c_str(), O_WRONLY | O_APPEND | O_TRUNC | O_CREAT, 0600);
      if (file != 3 || !reuse_numbers(4, 64, file)) return 3;
      plugin_spin()(2'000'000);
    }
    if (!write_through(3, 64, 'c')) return 4;
    std::thread([&] {
      warmup::region_scope s{"daemon.thread"};
      plugin_spin()(2'000'000);
      if (!reuse_numbers(64, 128, file)) std::abort();
    }).join();
    if (!write_through(3, 128, 't')) return 5;
    {
      warmup::region_scope s{"daemon.fork"};
      plugin_spin()(2'000'000);
      if (!reuse_numbers(128, 192, file)) return 6;
      const pid_t child = fork();
      if (child == 0) _exit(write_through(3, 192, 'k') ? 0 : 1);
      int st = 0;
      waitpid(child, &st, 0);
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 7;
    }
    return write_through(3, 192, 'p') ? 0 : 8;
  });
  CHECK(status == 0);
  CHECK(read_file(path) == std::string(61, 'c') + std::string(125, 't') + std::string(189, 'k') + std::string(189, 'p'));
  std::remove(path.c_str());
}

TEST_CASE("a program that resets every signal's disposition during a sampled call lives") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(100us);
    std::atomic<bool> spinning{false}, done{false};
    std::thread resetter([&] {
      while (!spinning.load()) std::this_thread::yield();
      while (!done.load())
        for (int s = 1; s < 32; ++s)
          if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
    });
    {
      warmup::region_scope s{"reset.during"};
      spinning = true;
      warmup_test::spend_cpu(100'000'000);
    }
    { warmup::region_scope s{"reset.after"}; warmup_test::spend_cpu(20'000'000); }
    done = true;
    resetter.join();
    return 0;
  });
  CHECK(status == 0);  // before: killed by SIGPROF's default action, 128 + 27
}

TEST_CASE("a fork while another thread holds the sampler's lock leaves a child that samples") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    warmup::detail::sampler_shared& shared = warmup::detail::sampler_state();
    gate held;
    std::thread holder([&] {
      std::lock_guard<std::mutex> lock(shared.m);
      held.release();
      std::this_thread::sleep_for(50ms);  // while the main thread forks
    });
    held.wait();
    const int code = in_child(
        [] {
          warmup::region_scope s{"fork.in_child"};
          plugin_spin()(5'000'000);
          return 0;
        },
        10);
    holder.join();
    return code;
  });
  CHECK(status == 0);  // before: the child waited forever for a lock no thread of its held
}

TEST_CASE("a sampled thread holds no descriptor after its first call, and none of the program's last") {
  const int status = in_child([] {
    rlimit r{256, 256};
    if (setrlimit(RLIMIT_NOFILE, &r) != 0) return 2;
    warmup::set_cpu_sampling(1ms);
    const int before = open_descriptors();
    std::atomic<int> finished{0};
    gate all_done;
    std::vector<std::thread> threads;
    for (int t = 0; t < 200; ++t)
      threads.emplace_back([&, t] {
        { warmup::region_scope s{"fds.thread." + std::to_string(t)}; plugin_spin()(200'000); }
        finished.fetch_add(1);
        all_done.wait();  // alive, as a pool's threads are
      });
    while (finished.load() < 200) std::this_thread::sleep_for(1ms);
    const int during = open_descriptors();
    all_done.release();
    for (auto& t : threads) t.join();
    if (during != before) return 3;  // before: one perf descriptor per thread, 200
    // The program takes all but a few: a first call then takes none, and says so.
    std::vector<int> taken;
    for (int fd; (fd = dup(0)) >= 0 && fd < 256 - 8;) taken.push_back(fd);
    const int left_before = 256 - open_descriptors();
    { warmup::region_scope s{"fds.short"}; plugin_spin()(2'000'000); }
    if (256 - open_descriptors() != left_before) return 4;
    const warmup::report rep = warmup::snapshot();
    if (!noticed(rep, "CPU sampling skipped a first call: paused while the program has fewer than 32 file descriptors"))
      return 5;
    for (int fd : taken) close(fd);
    // With descriptors free again, sampling resumes.
    { warmup::region_scope s{"fds.again"}; plugin_spin()(20'000'000); }
    const warmup::report again = warmup::snapshot();
    const auto* s = again.find(warmup::op_kind::region, "fds.again");
    if (s == nullptr || !s->host.first_call_causes || !host_code_in(*s->host.first_call_causes, "libwarmup_test_plugin.so"))
      return 6;
    return 0;
  });
  CHECK(status == 0);
}

namespace {
// A thread-local object made before the thread's first scope, whose destructor runs a scope:
// it is destroyed after the thread's sampler.
struct scope_at_thread_exit {
  std::string name;
  ~scope_at_thread_exit() {
    warmup::region_scope s{name};
    warmup_test::spend_cpu(200'000);
  }
};
thread_local std::optional<scope_at_thread_exit> at_exit;
}  // namespace

TEST_CASE("a scope in a thread-local destructor after the sampler's own neither leaks nor reuses") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    const int before = open_descriptors();
    for (int t = 0; t < 50; ++t)
      std::thread([t] {
        at_exit.emplace().name = "tls.exit." + std::to_string(t);  // no temporary: its scope would be the first call
        warmup::region_scope s{"tls.first." + std::to_string(t)};
        plugin_spin()(200'000);
      }).join();
    const warmup::report r = warmup::snapshot();
    const auto* exit_scope = r.find(warmup::op_kind::region, "tls.exit.49");
    if (exit_scope == nullptr || exit_scope->calls != 1) return 4;  // the destructors' first calls ran, measured
    if (open_descriptors() != before) return 2;  // before: 50 perf descriptors left open
    warmup::detail::sampler_shared& shared = warmup::detail::sampler_state();
    std::lock_guard<std::mutex> lock(shared.m);
    return shared.spare.size() == shared.made.load() ? 0 : 3;  // every buffer given back
  });
  CHECK(status == 0);
}

TEST_CASE("a first call longer than its buffer is thinned, never cut: its CPU time named in full, in bounded memory") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(100us);
    // About 4096 ticks fill the buffer (0.41 s of CPU at 100 us): 1.3 s of user-mode CPU in the
    // plugin fills it three times over, thinning it twice (one tick in 4 kept at its end).
    {
      warmup::region_scope s{"long.call"};
      const std::int64_t t0 = warmup_test::thread_cpu_ns();
      while (warmup_test::thread_cpu_ns() - t0 < 1'300'000'000) plugin_spin()(1'000'000);
    }
    const warmup::report r = warmup::snapshot();
    if (r.cpu_sampling.find("samples lost") != std::string::npos) return 2;
    if (noticed(r, "unattributed")) return 3;
    const auto* s = r.find(warmup::op_kind::region, "long.call");
    if (s == nullptr || !s->host.first_call_causes || !s->first_call_host) return 4;
    const warmup::attribution& why = *s->host.first_call_causes;
    const auto* plugin = host_code_in(why, "libwarmup_test_plugin.so");
    const auto cpu = s->first_call_host->cpu;
    // before: 0.41 s of the 1.3 s named, the rest unattributed. Each kept sample stands for the
    // CPU time since the one before, so the whole call's CPU time is named; the plugin's share
    // holds nearly all of it (the loop's own code and the clock reads are the rest).
    if (plugin == nullptr || plugin->time * 100 < cpu * 90) return 5;
    if (why.named * 100 < why.excess * 95) return 6;
    // A buffer's worth of samples, never more: 4096 kept at most, here between 2048 and 4096.
    if (plugin->count > warmup::detail::sample_buffer::capacity || plugin->count < 1500) return 7;
    const auto* kernel = host_code_in(why, "[kernel]");
    if (kernel != nullptr && kernel->time > 100ms) return 8;  // thinning never reads user time as the kernel's
    return 0;
  });
  CHECK(status == 0);
}

TEST_CASE("threads made and gone while sampled calls start and end are armed beside them, and every timer ends") {
  // What runs at once in a PyTorch program: calls starting and ending (their slots made and
  // their timers deleted), threads made and ending, and the code sampler arming the new ones
  // every few milliseconds. Run under ThreadSanitizer as well (the sampling tests' build).
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    std::atomic<bool> stop{false};
    std::atomic<std::uint32_t> armed{0};
    std::thread poller([&] {
      while (!stop) armed += warmup::detail::sample_new_threads();
    });
    std::thread maker([&] {
      while (!stop) std::thread([] { warmup_test::spend_cpu(300'000); }).join();
    });
    for (int i = 0; i < 40 || (armed.load() == 0 && i < 1000); ++i) {  // until one was met meanwhile
      warmup::region_scope s{"arming.call." + std::to_string(i)};
      plugin_spin()(1'000'000);
    }
    stop = true;
    poller.join();
    maker.join();
    if (armed.load() == 0) return 2;  // the poller never met a thread made during a call
    warmup::detail::sampler_shared& shared = warmup::detail::sampler_state();
    std::lock_guard<std::mutex> lock(shared.m);
    return shared.spare.size() == shared.made.load() ? 0 : 3;  // every buffer given back
  });
  CHECK(status == 0);
}

TEST_CASE("a worker's first call is sampled after the main thread's tick number was closed and reused") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    if (warmup::detail::sampler_state().preferred.load() != warmup::detail::tick_kind::task_clock) return 0;
    warmup::region_scope main_call{"reused.main"};
    plugin_spin()(1'000'000);
    if (warmup::detail::sampler_state().used_tick.load() != warmup::detail::tick_kind::task_clock)
      return 0;  // no task clock here (perf_event refused): no descriptor to reuse
    close_all_descriptors();  // main's tick among them, mid-call
    std::thread([] {
      warmup::region_scope s{"reused.worker"};
      warmup_test::spend_cpu(30'000'000);
    }).join();
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::region, "reused.worker");
    if (s == nullptr || !s->host.first_call_causes) return 2;
    const warmup::attribution& why = *s->host.first_call_causes;
    // before: no sample reached the worker's buffer (main's stale one matched the number)
    return why.named * 2 >= why.excess ? 0 : 3;
  });
  CHECK(status == 0);
}

TEST_CASE("a thread that blocks SIGURG is told it goes unsampled") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    std::thread([] {
      sigset_t urg;
      sigemptyset(&urg);
      sigaddset(&urg, SIGURG);
      pthread_sigmask(SIG_BLOCK, &urg, nullptr);
      warmup::region_scope s{"blocked.thread"};
      warmup_test::spend_cpu(20'000'000);
    }).join();
    const warmup::report r = warmup::snapshot();
    if (!noticed(r, "CPU sampling skipped a first call: a thread blocks SIGURG")) return 2;
    return r.cpu_sampling.rfind("every ", 0) == 0 ? 0 : 3;  // sampling is still on for the others
  });
  CHECK(status == 0);
}

TEST_CASE("a scope destroyed on another thread mixes no clocks and starves no later call") {
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    std::optional<warmup::region_scope> moved;
    gate begun, ended;
    std::thread owner([&] {
      moved.emplace("moved.call");
      warmup_test::spend_cpu(5'000'000);
      begun.release();
      ended.wait();
      // This thread's next first call is sampled: its tick was not left armed.
      { warmup::region_scope s{"moved.next"}; plugin_spin()(20'000'000); }
    });
    begun.wait();
    std::this_thread::sleep_for(5ms);
    moved.reset();  // ends here, on another thread
    ended.release();
    owner.join();
    const warmup::report r = warmup::snapshot();
    if (!noticed(r, "the first call of 'moved.call' ended on a thread other than the one it began on")) return 2;
    const auto* m = r.find(warmup::op_kind::region, "moved.call");
    if (m == nullptr || !m->first_call_host) return 3;
    if (m->first_call_host->cpu.count() != 0) return 4;  // before: two threads' clocks subtracted
    const auto* n = r.find(warmup::op_kind::region, "moved.next");
    if (n == nullptr || !n->host.first_call_causes) return 5;
    return host_code_in(*n->host.first_call_causes, "libwarmup_test_plugin.so") != nullptr ? 0 : 6;
  });
  CHECK(status == 0);
}

TEST_CASE("a call sampled in the process's first buffer, ended on another thread, frees it there") {
  // As above, with the buffer a lookup by index meets first: the one at index 0.
  const int status = in_child([] {
    warmup::set_cpu_sampling(200us);
    if (!first_buffer_next()) return 2;
    warmup::detail::sampler_shared& shared = warmup::detail::sampler_state();
    std::optional<warmup::region_scope> moved;
    gate begun, ended;
    std::thread owner([&] {
      moved.emplace("first_buffer.moved");
      warmup_test::spend_cpu(1'000'000);
      begun.release();
      ended.wait();
      { warmup::region_scope s{"first_buffer.next"}; plugin_spin()(20'000'000); }
    });
    begun.wait();
    const bool taken = shared.buffers[0].load()->owner.load() != nullptr;
    moved.reset();  // ends here, on another thread
    const bool freed = shared.buffers[0].load()->owner.load() == nullptr;
    ended.release();
    owner.join();
    if (!taken) return 3;  // the call did not sample into the first buffer: the test proves nothing
    if (!freed) return 4;  // a lookup that missed it: its tick running on, held for a call that had ended
    const warmup::report r = warmup::snapshot();
    const auto* n = r.find(warmup::op_kind::region, "first_buffer.next");
    if (n == nullptr || !n->host.first_call_causes) return 5;
    // (and the thread's next first call then shared the ended call's tick, its samples dropped)
    return host_code_in(*n->host.first_call_causes, "libwarmup_test_plugin.so") != nullptr ? 0 : 6;
  });
  CHECK(status == 0);
}

namespace {
void foreign_copy_handler(int, siginfo_t*, void*) {}
void program_urg_handler(int) {}

// The file name of the object holding `code`, as dladdr names it: this program's here.
std::string object_holding(const void* code) {
  Dl_info info{};
  if (dladdr(code, &info) == 0 || info.dli_fname == nullptr) return {};
  const std::string path = info.dli_fname;
  return path.substr(path.find_last_of('/') + 1);  // npos + 1: the whole name
}
}  // namespace

TEST_CASE("the report names who holds SIGURG: another copy of warmup, or the program after a sampled call") {
  // A handler with the library's signature (its mask) but not this copy's: a second copy.
  int status = in_child([] {
    struct sigaction other {};
    other.sa_sigaction = foreign_copy_handler;
    other.sa_flags = SA_SIGINFO;
    other.sa_mask = warmup::detail::handler_mask();
    sigaction(SIGURG, &other, nullptr);
    warmup::set_cpu_sampling(1ms);
    { warmup::region_scope s{"holder.copy"}; plugin_spin()(1'000'000); }
    const warmup::report r = warmup::snapshot();
    const std::string holder = object_holding(reinterpret_cast<const void*>(&foreign_copy_handler));
    if (holder.empty()) return 3;
    const std::string named = "off: SIGURG is held by another copy of warmup in this process (in " + holder + "), ";
    return r.cpu_sampling.rfind(named, 0) == 0 ? 0 : 2;  // the holder's object named, not only the refusal
  });
  CHECK(status == 0);
  // The program takes SIGURG after a first call was sampled: sampling stopped, not "off".
  status = in_child([] {
    warmup::set_cpu_sampling(1ms);
    { warmup::region_scope s{"holder.before"}; plugin_spin()(5'000'000); }
    signal(SIGURG, program_urg_handler);
    { warmup::region_scope s{"holder.after"}; plugin_spin()(1'000'000); }
    const warmup::report r = warmup::snapshot();
    const std::string holder = object_holding(reinterpret_cast<const void*>(&program_urg_handler));
    if (holder.empty()) return 3;
    const std::string named =
        "stopped after 1 sampled first calls: SIGURG has a handler of the program's (in " + holder + "); it keeps it";
    return r.cpu_sampling == named ? 0 : 2;
  });
  CHECK(status == 0);
}
