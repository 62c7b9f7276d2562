// A program with host-timed scopes of known length, for warmup-report's tests. Short calls
// busy-wait on steady_clock (a median of many is untouched by the odd preempted one); calls
// of a millisecond or more sleep instead, so that a busy machine (CI runs two tests at once on
// two cores), which stretches a busy-wait by whatever CPU time it loses, delays them only by
// a wake-up: a first call is one sample, and must not carry that noise.
// usage: spin_program OUT.json [--first-us N] [--steady-us N] [--calls N] [--extra-site] [--no-io]
// Sites: "load" (one call, the first-call cost), "step" (a first call of --first-us, then
// steady calls of --steady-us), "io" (20 calls of 30 us), and with --extra-site, "new site".
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "warmup/profile.hpp"

namespace {
void spin(double us) {
  const auto d = std::chrono::nanoseconds(static_cast<long long>(us * 1e3));
  if (us >= 1000) return std::this_thread::sleep_for(d);
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::cerr << "usage: spin_program OUT.json [options]\n", 2;
  double first_us = 100000, steady_us = 200;
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
