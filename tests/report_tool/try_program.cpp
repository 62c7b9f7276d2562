// A program for `warmup-report try`'s test (check_try.py): two host-timed sites whose first calls
// are slow for reasons an environment variable or a cache folder removes, as a remedy would.
// The slow first calls sleep, never busy-wait: a loaded CI machine stretches a busy-wait by the
// CPU time it loses, and a first call is one sample a run.
// usage: try_program [--exit N]   (writes its report where WARMUP_REPORT says, at exit; exits N,
// else TRY_TEST_EXIT's value, else 0, saying so on stdout and, where not 0, on stderr)
// Sites: "first call": a first call of TRY_TEST_FIRST_MS milliseconds (default 150), then 10 calls
// of 200 us; "compile": a first call of 150 ms unless $TRITON_CACHE_DIR holds try_test_marker
// (then 2 ms), which the call writes there after, as a compile cache fills; then 10 calls of 200 us.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "warmup/profile.hpp"

namespace {
void sleep_ms(double ms) { std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(ms * 1e3))); }
void spin_us(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long long>(us * 1e3));
  while (std::chrono::steady_clock::now() < until) {
  }
}
}  // namespace

int main(int argc, char** argv) {
  const char* exit_env = std::getenv("TRY_TEST_EXIT");
  int exit_code = exit_env != nullptr ? std::atoi(exit_env) : 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--exit" && i + 1 < argc) exit_code = std::atoi(argv[++i]);
    else return std::cerr << "try_program: unknown argument " << a << '\n', 2;
  }
  const char* first = std::getenv("TRY_TEST_FIRST_MS");
  const double first_ms = first != nullptr && *first != '\0' ? std::atof(first) : 150;
  for (int i = 0; i < 11; ++i) {
    warmup::region_scope s{"first call"};
    if (i == 0) sleep_ms(first_ms);
    else spin_us(200);
  }
  const char* cache = std::getenv("TRITON_CACHE_DIR");
  const std::string marker = cache != nullptr && *cache != '\0' ? std::string(cache) + "/try_test_marker" : "";
  for (int i = 0; i < 11; ++i) {
    warmup::region_scope s{"compile"};
    if (i != 0) {
      spin_us(200);
      continue;
    }
    const bool warm = !marker.empty() && std::ifstream(marker).good();
    sleep_ms(warm ? 2 : 150);
    if (!marker.empty()) std::ofstream(marker) << "compiled\n";
  }
  std::cout << "try_program: done, exit " << exit_code << std::endl;
  if (exit_code != 0) std::cerr << "try_program: failing as asked (exit " << exit_code << ")" << std::endl;
  return exit_code;
}
