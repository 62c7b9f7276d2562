// What a scope costs on the host, against its raw parts measured in the same run.
#include <benchmark/benchmark.h>
#include <nvtx3/nvtx3.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "warmup/profile.hpp"

int work_with_disabled_scopes(int x);
int work_without_scopes(int x);

namespace {

// The baseline: what any host-timed range needs at least. Two clock reads and an NVTX range.
void raw_parts(benchmark::State& state) {
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    nvtx3::scoped_range r{"raw"};
    const auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(t1 - t0);
  }
}
BENCHMARK(raw_parts);

// The floor a scope is held to (issue 16): two reads of the cycle counter the scopes read
// (detail/runtime/time_base.hpp; rdtsc on x86-64, CNTVCT_EL0 on Arm), with nothing between them.
void counter_pair(benchmark::State& state) {
  for (auto _ : state) {
    const std::uint64_t t0 = warmup::detail::read_counter();
    benchmark::ClobberMemory();
    const std::uint64_t t1 = warmup::detail::read_counter();
    benchmark::DoNotOptimize(t1 - t0);
  }
}
BENCHMARK(counter_pair);

// What a scope pays to know whether an exception ended it, two ways: the standard call at its
// start and end, and the per-thread state's address taken once (detail/record/exception_depth.hpp).
void exceptions_std(benchmark::State& state) {
  for (auto _ : state) {
    const int at_begin = std::uncaught_exceptions();
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(std::uncaught_exceptions() > at_begin);
  }
}
BENCHMARK(exceptions_std);

void exceptions_held(benchmark::State& state) {
  for (auto _ : state) {
    warmup::detail::exception_depth depth;
    const unsigned at_begin = depth.begin();
    benchmark::ClobberMemory();
    benchmark::DoNotOptimize(depth.unwinding(at_begin));
  }
}
BENCHMARK(exceptions_held);

void macro_scope(benchmark::State& state) {
  for (auto _ : state) {
    WARMUP_SCOPE("bench.macro");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(macro_scope);

void named_scope(benchmark::State& state) {
  for (auto _ : state) {
    warmup::region_scope s{"bench.named"};
    benchmark::ClobberMemory();
  }
}
BENCHMARK(named_scope);

// The benchmark loop alone: what runtime_off is measured against.
void empty_loop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
BENCHMARK(empty_loop);

void runtime_off(benchmark::State& state) {
  warmup::disable();
  for (auto _ : state) {
    WARMUP_SCOPE("bench.off");
    benchmark::ClobberMemory();
  }
  warmup::enable();
}
BENCHMARK(runtime_off);

void no_scope_call(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) x = work_without_scopes(x);
}
BENCHMARK(no_scope_call);

void disabled_scope_call(benchmark::State& state) {
  int x = 0;
  for (auto _ : state) x = work_with_disabled_scopes(x);
}
BENCHMARK(disabled_scope_call);

// Threads: every thread on one shared site, or each on its own.
void shared_site(benchmark::State& state) {
  for (auto _ : state) {
    WARMUP_SCOPE("bench.shared");
    benchmark::ClobberMemory();
  }
}
BENCHMARK(shared_site)->ThreadRange(1, 16)->UseRealTime();

void own_site(benchmark::State& state) {
  const std::string name = "bench.own." + std::to_string(state.thread_index());
  for (auto _ : state) {
    warmup::region_scope s{name};
    benchmark::ClobberMemory();
  }
}
BENCHMARK(own_site)->ThreadRange(1, 16)->UseRealTime();

void raw_parts_threads(benchmark::State& state) { raw_parts(state); }
BENCHMARK(raw_parts_threads)->ThreadRange(1, 16)->UseRealTime();

// A snapshot and its reports with 10^4 sites.
void snapshot_10k_sites(benchmark::State& state) {
  static const bool made = [] {
    for (int i = 0; i < 10000; ++i)
      for (int c = 0; c < 100; ++c) warmup::launch_scope s{"bench.site." + std::to_string(i)};
    return true;
  }();
  benchmark::DoNotOptimize(made);
  std::size_t bytes = 0, sites = 0;
  for (auto _ : state) {
    const warmup::report r = warmup::snapshot();
    bytes = r.library.site_bytes;
    sites = r.sites.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["sites"] = double(sites);
  state.counters["site_MiB"] = double(bytes) / double(1 << 20);
  state.counters["bytes_per_site"] = double(bytes) / double(sites);
}
BENCHMARK(snapshot_10k_sites)->Unit(benchmark::kMillisecond);

void json_10k_sites(benchmark::State& state) {
  const warmup::report r = warmup::snapshot();
  for (auto _ : state) benchmark::DoNotOptimize(warmup::to_json(r));
}
BENCHMARK(json_10k_sites)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
