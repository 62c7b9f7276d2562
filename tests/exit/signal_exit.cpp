// A program whose SIGINT handler calls std::exit (not async-signal-safe, but common), interrupted
// while it makes sites as fast as it can: the report at exit must neither hang nor crash, and
// the exit status stays the handler's (check_signal_exit.py).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "warmup/profile.hpp"

int main() {
  std::vector<std::string> names;  // made before the signal can come: the loop allocates nothing
  for (int i = 0; i < 60'000; ++i) names.push_back("signal.site." + std::to_string(i));
  std::signal(SIGINT, [](int) { std::exit(130); });
  std::puts("ready");
  std::fflush(stdout);
  for (;;)
    for (const std::string& n : names) warmup::region_scope s{n};
}
