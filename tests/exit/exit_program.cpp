// A program measured by warmup that ends in the way argv[1] says, for check_exit_report.py:
//   return N        main returns N
//   exit N          std::exit(N) from inside a function
//   quick_exit N    std::quick_exit(N): exit handlers do not run, so no report (documented)
//   now N           write_report_at_exit_now() (twice: the second writes nothing), then
//                   std::exit(N): one report, its exit handler writes none
//   now_quick N     write_report_at_exit_now(), then std::quick_exit(N): the report all the same
//   exit_inside N   std::exit(N) from inside the library's locked section, as a signal handler
//                   calling exit in the middle of a scope would: no report, and a sentence
//   fork N          forks after its work; the child measures its own calls and exits 0 (its pid
//                   goes to stdout), the parent waits for it and returns N
//   gate N          says "ready" on stdout after its work, then returns N once its standard
//                   input ends: processes that run at once, for certain
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "warmup/profile.hpp"
#include "warmup/report_file.hpp"

namespace {
void work() {
  for (int i = 0; i < 20; ++i) {
    warmup::region_scope s{"exit.step"};
    warmup::h2d_scope c{"exit.copy", std::size_t{4096}};
    std::this_thread::sleep_for(std::chrono::microseconds(i == 0 ? 2000 : 100));
  }
}
}  // namespace

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "return";
  const int code = argc > 2 ? std::atoi(argv[2]) : 0;
  work();
  if (std::strcmp(how, "exit") == 0) std::exit(code);
  if (std::strcmp(how, "quick_exit") == 0) std::quick_exit(code);
  if (std::strcmp(how, "now") == 0) {
    if (!warmup::write_report_at_exit_now() || warmup::write_report_at_exit_now()) return 101;
    std::exit(code);
  }
  if (std::strcmp(how, "now_quick") == 0) {
    (void)warmup::write_report_at_exit_now();
    std::quick_exit(code);
  }
  if (std::strcmp(how, "exit_inside") == 0) {
    const warmup::detail::busy_section inside;
    std::exit(code);
  }
  if (std::strcmp(how, "fork") == 0) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      for (int i = 0; i < 3; ++i) warmup::region_scope s{"exit.child"};
      std::printf("%d\n", static_cast<int>(getpid()));
      std::exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 100;
  }
  if (std::strcmp(how, "gate") == 0) {
    std::printf("ready\n");
    std::fflush(stdout);
    for (int c; (c = std::getchar()) != EOF;) {
    }
  }
  return code;
}
