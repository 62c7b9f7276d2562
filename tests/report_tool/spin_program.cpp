// A program with host-timed scopes of known length (each busy-waits on steady_clock until its
// time is up, so that load on the machine stretches no call), for warmup-report's tests.
// usage: spin_program OUT.json [--first-us N] [--steady-us N] [--calls N] [--extra-site] [--no-io]
// Sites: "load" (one call, the first-call cost), "step" (a first call of --first-us, then
// steady calls of --steady-us), "io" (20 calls of 30 us), and with --extra-site, "new site".
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "warmup/profile.hpp"

namespace {
void spin(double us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<long long>(us * 1e3));
  while (std::chrono::steady_clock::now() < until) {
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::cerr << "usage: spin_program OUT.json [options]\n", 2;
  double first_us = 20000, steady_us = 200;
  int calls = 60;
  bool extra = false, io = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--first-us" && i + 1 < argc) first_us = std::atof(argv[++i]);
    else if (a == "--steady-us" && i + 1 < argc) steady_us = std::atof(argv[++i]);
    else if (a == "--calls" && i + 1 < argc) calls = std::atoi(argv[++i]);
    else if (a == "--extra-site") extra = true;
    else if (a == "--no-io") io = false;
    else return std::cerr << "spin_program: unknown argument " << a << '\n', 2;
  }
  {
    warmup::region_scope load{"load"};
    spin(first_us / 2);
  }
  for (int i = 0; i < calls; ++i) {
    warmup::region_scope step{"step"};
    spin(i == 0 ? first_us : steady_us);
  }
  for (int i = 0; io && i < 20; ++i) {
    warmup::region_scope s{"io"};
    spin(30);
  }
  if (extra) {
    warmup::region_scope s{"new site"};
    spin(10);
  }
  return warmup::write_report(warmup::snapshot(), argv[1]) ? 0 : 1;
}
