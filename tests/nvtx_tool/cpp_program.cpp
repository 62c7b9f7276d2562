// A C++ program that knows nothing of warmup: nvtx3.hpp only. check_nvtx_tool.py runs it under
// the tool and checks each range's calls in the report. argv[1] picks what it does.
#include <nvtx3/nvtx3.hpp>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

struct my_library {
  static constexpr const char* name{"mylib"};
};
struct step_message {
  static constexpr const char* message{"cpp.registered"};
};

namespace {

// "oom": while set, every allocation in the process fails, the tool's too (one global operator new).
std::atomic<bool> starved{false};

}  // namespace

void* operator new(std::size_t n) {
  if (!starved.load(std::memory_order_relaxed))
    if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

// A push the tool cannot keep, memory being out, still returns its depth, as NVTX promises.
int out_of_memory() {
  // 64 open ranges fill the thread's frames to a power of two: the next must grow them.
  for (int i = 0; i < 64; ++i) nvtxRangePushA("oom.open");
  starved.store(true);
  const int depth = nvtxRangePushA("oom.not_kept");
  starved.store(false);
  for (int i = 0; i < 65; ++i) nvtxRangePop();
  std::printf("%d\n", depth);
  return 0;
}

int ranges() {
  for (int i = 0; i < 4; ++i) {
    nvtx3::scoped_range outer{"cpp.outer"};
    {
      nvtx3::scoped_range_in<my_library> inner{"cpp.inner"};
    }
    nvtx3::scoped_range_in<my_library> registered{nvtx3::registered_string_in<my_library>::get<step_message>()};
  }
  // Categories do not split a site; colours and payloads change nothing.
  const nvtx3::named_category_in<my_library> io{7, "io"};
  for (int i = 0; i < 3; ++i) {
    nvtx3::scoped_range_in<my_library> r{nvtx3::event_attributes{"cpp.categorised", io, nvtx3::rgb{i * 50, 0, 0},
                                                               nvtx3::payload{i}}};
  }
  // A range that starts on one thread and ends on another.
  std::vector<nvtx3::unique_range> moved;
  for (int i = 0; i < 3; ++i) moved.emplace_back("cpp.unique");
  std::thread t{[&] { moved.clear(); }};
  t.join();
  // Threads at once, each its own nesting.
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w)
    workers.emplace_back([] {
      for (int i = 0; i < 250; ++i) {
        nvtx3::scoped_range a{"cpp.worker"};
        nvtx3::scoped_range b{"cpp.worker.inner"};
      }
    });
  for (auto& w : workers) w.join();
  return 0;
}

// A fork inside a range: the parent's range ends in the parent only; the child counts its own.
// Another thread of the parent is inside a range at the fork: a thread the child starts (glibc
// gives it that thread's memory, its thread pointer too) has no range to pop.
int fork_inside(const char* child_report) {
  nvtx3::scoped_range before{"fork.parent"};
  std::atomic<int> stage{0};
  pthread_t worker_id{};
  std::thread worker([&] {
    worker_id = pthread_self();
    nvtxRangePushA("fork.worker");
    stage.store(1);
    while (stage.load() != 2) std::this_thread::yield();  // inside its range until the fork is done
    nvtxRangePop();
  });
  while (stage.load() != 1) std::this_thread::yield();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 2; ++i) nvtx3::scoped_range r{"fork.child"};
    int popped = 0, same = 0;
    std::thread in_its_place([&] {
      same = pthread_equal(pthread_self(), worker_id);
      popped = nvtxRangePop();  // -1: no range pushed on this thread
    });
    in_its_place.join();
    (void)child_report;
    std::_Exit(popped == -1 && same ? 0 : 4 + same);  // no exit handlers: the child reports nothing
  }
  stage.store(2);
  worker.join();
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Ranges after the report at exit: in an exit handler registered before the program's first NVTX
// call (exit handlers run last registered first; the report's is registered at that call), and in
// a static object's destructor (its object was made before main).
bool late_mode = false;
struct ranges_when_destroyed {
  ~ranges_when_destroyed() {
    if (!late_mode) return;
    nvtxRangePushA("late.static");
    nvtxRangePop();
  }
};
ranges_when_destroyed made_before_main;

void late_handler() {
  nvtxRangePushA("late.atexit");
  nvtxRangePop();
  nvtxRangeEnd(nvtxRangeStartA("late.atexit.start_end"));  // a start/end range counts as well
}

int late() {
  late_mode = true;
  std::atexit(late_handler);
  nvtx3::scoped_range r{"late.main"};
  nvtxRangeEnd(nvtxRangeStartA("late.main.start_end"));  // before the report: in it, not late
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "ranges";
  if (what == "ranges") return ranges();
  if (what == "fork") return fork_inside(argc > 2 ? argv[2] : "");
  if (what == "late") return late();
  if (what == "oom") return out_of_memory();
  std::fprintf(stderr, "usage: %s ranges|fork|late|oom\n", argv[0]);
  return 2;
}
