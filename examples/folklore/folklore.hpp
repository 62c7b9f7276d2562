// What every folklore example shares: its command line, checking CUDA calls, formatting
// durations, and the report at the end (table, findings, JSON). Each example keeps only what it
// measures.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <warmup/profile.hpp>

#include "args.hpp"

namespace folklore {

// What the command line said, set by start (the libtorch examples, which read more, bind these
// to their own folklore::args).
inline const char* program_name = "folklore";  // used in messages
inline const char* json_path = nullptr;        // --json FILE: finish writes the JSON report there
// --prewarm: the example pays its first-call costs ahead of time with warmup's prewarm calls
// (warmup/prewarm.hpp, warmup/cublas.hpp), each in a site of its own, before what it measures.
inline bool prewarm_mode = false;

inline bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s failed: %s\n", program_name, what, cudaGetErrorString(e));
  return false;
}

// A prewarm step's status: true when it worked; otherwise says what failed.
inline bool prewarmed(const warmup::prewarm_status& s) {
  if (s) return true;
  std::fprintf(stderr, "%s: %s\n", program_name, s.message.c_str());
  return false;
}

// The opening of every example: "PROGRAM [--prewarm] [--json FILE]", then the device's context
// made in its own scope (the site "cudaSetDevice + cudaFree(0)"), so that nothing measured after
// it pays for it. Returns 0, or the status to exit with: 2 on a bad command line (after the
// usage line), 77 where no GPU can be used.
inline int start(int argc, char** argv, const char* program) {
  program_name = program;
  if (!args{}.option("--json", json_path).flag("--prewarm", prewarm_mode).read(argc, argv))
    return std::fprintf(stderr, "usage: %s [--prewarm] [--json FILE]\n", argv[0]), 2;
  std::printf("prewarm: %s\n", prewarm_mode ? "on (--prewarm)" : "off");
  bool gpu = false;
  {
    // Under CUDA_MODULE_LOADING=EAGER, this is where every module of the program is loaded.
    warmup::context_scope init{"cudaSetDevice + cudaFree(0)"};
    gpu = check(cudaSetDevice(0), "cudaSetDevice(0)") && check(cudaFree(nullptr), "cudaFree(0)");
  }
  if (!gpu) {
    std::fprintf(stderr, "%s: no usable GPU\n", program);
    return 77;
  }
  return 0;
}

// 1234567 ns -> "1.23 ms".
inline std::string fmt(std::chrono::nanoseconds d) {
  double v = double(d.count());
  const char* unit = "ns";
  if (v >= 1e9) v /= 1e9, unit = "s";
  else if (v >= 1e6) v /= 1e6, unit = "ms";
  else if (v >= 1e3) v /= 1e3, unit = "us";
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, unit);
  return buf;
}

// "first 1.23 ms vs steady 45.0 us (27.3x)".
inline std::string first_vs_steady(const warmup::timing& t) {
  if (!t.steady) return "first " + fmt(t.first) + " (one call: no steady state)";
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.1fx", double(t.first.count()) / double(std::max<long long>(1, t.steady->p50.count())));
  return "first " + fmt(t.first) + " vs steady " + fmt(t.steady->p50) + " (" + ratio + ")";
}

// The end of every example: waits for the device measurements, prints the table and (when all
// went well) the findings, writes the JSON report if --json asked for it. Returns the exit status.
template <class Findings>
int finish(int status, Findings&& print_findings) {
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  warmup::print(r, std::cout);
  if (status == 0) print_findings(r);
  if (json_path != nullptr) {
    std::ofstream out(json_path);
    out << warmup::to_json(r) << '\n';
    if (!out) {
      std::fprintf(stderr, "%s: cannot write %s\n", program_name, json_path);
      return status == 0 ? 1 : status;
    }
  }
  return status;
}

// The end of an example after a failure (said on stderr already): the report so far, no
// findings, exit status 1.
inline int fail() {
  return finish(1, [](const warmup::report&) {});
}

}  // namespace folklore

// On a failed CUDA (or cuBLAS) call: say which, print the report so far, exit 1.
#define CHECK(call)                                     \
  do {                                                  \
    if (!check((call), #call)) return folklore::fail(); \
  } while (0)

// A prewarm step (a warmup::prewarm_status expression): on failure, say what failed, print the
// report so far, exit 1.
#define PREWARM(step)                                        \
  do {                                                       \
    if (!folklore::prewarmed(step)) return folklore::fail(); \
  } while (0)
