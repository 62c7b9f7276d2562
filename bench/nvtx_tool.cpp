// What warmup's NVTX tool costs a range (nvtx_tool/, docs/nvtx-tool.md), against a WARMUP_SCOPE
// in the same run. The program starts itself again under the tool: NVTX picks its tool at its
// first call, which warmup's start-up makes before main.
#include <benchmark/benchmark.h>
#include <nvtx3/nvtx3.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "warmup/profile.hpp"
#include "../nvtx_tool/known_name.hpp"

namespace {

struct bench_domain {
  static constexpr const char* name{"bench"};
};
struct bench_message {
  static constexpr const char* message{"bench.registered"};
};

// The baseline: a scope as a program without any NVTX tool pays for it (no NVTX range: the
// tool this process carries would otherwise add its cost to the baseline's).
void warmup_scope(benchmark::State& state) {
  void* const tool = warmup::detail::nvtx_tool_domain.exchange(nullptr);
  for (auto _ : state) {
    WARMUP_SCOPE("bench.scope");
    benchmark::ClobberMemory();
  }
  warmup::detail::nvtx_tool_domain.store(tool);
}
BENCHMARK(warmup_scope);

// nvtxRangePushA / nvtxRangePop, as torch.cuda.nvtx.range_push does: a literal name.
void nvtx_push_pop(benchmark::State& state) {
  for (auto _ : state) {
    nvtxRangePushA("bench.range");
    benchmark::ClobberMemory();
    nvtxRangePop();
  }
}
BENCHMARK(nvtx_push_pop);

// nvtx3::scoped_range_in with a registered string in a domain, as a library annotates itself.
void nvtx_registered(benchmark::State& state) {
  const auto& message = nvtx3::registered_string_in<bench_domain>::get<bench_message>();
  for (auto _ : state) {
    nvtx3::scoped_range_in<bench_domain> r{message};
    benchmark::ClobberMemory();
  }
}
BENCHMARK(nvtx_registered);

/// emit_nvtx's name for call `seq` of one operator.
const char* pytorch_name(char (&name)[128], long seq) {
  std::snprintf(name, sizeof name, "aten::addmm, seq = %ld, op_id = %ld, sizes = [[32, 64], [64, 64]]", seq, seq + 7);
  return name;
}

// emit_nvtx's names: a new string each call, its sequence number and operator id dropped.
void nvtx_pytorch_name(benchmark::State& state) {
  char name[128];
  long seq = 0;
  for (auto _ : state) {
    nvtxRangePushA(pytorch_name(name, seq++));
    benchmark::ClobberMemory();
    nvtxRangePop();
  }
}
BENCHMARK(nvtx_pytorch_name);

// The formatting nvtx_pytorch_name does, alone: what is the program's, not the tool's.
void pytorch_name_alone(benchmark::State& state) {
  char name[128];
  long seq = 0;
  for (auto _ : state) benchmark::DoNotOptimize(pytorch_name(name, seq++));
}
BENCHMARK(pytorch_name_alone);

// The parts a range through the tool pays beyond a scope's, each alone: the name compared with
// the one its thread passed last (the tool's known_name, and strcmp, which it replaced), a call
// through a pointer (each NVTX call is one).
void part_name_compare(benchmark::State& state) {
  static const std::string kept = "bench.range";
  static const warmup_nvtx::known_name known(kept.c_str(), kept.size());
  const char* volatile passed = "bench.range";
  for (auto _ : state) benchmark::DoNotOptimize(known.matches(passed));
}
BENCHMARK(part_name_compare);

void part_name_strcmp(benchmark::State& state) {
  const char* volatile kept = "bench.range";
  for (auto _ : state) benchmark::DoNotOptimize(std::strcmp(kept, "bench.range"));
}
BENCHMARK(part_name_strcmp);

int callee(int x) { return x + 1; }
void part_indirect_call(benchmark::State& state) {
  int (*volatile fn)(int) = &callee;
  int x = 0;
  for (auto _ : state) benchmark::DoNotOptimize(x = fn(x));
}
BENCHMARK(part_indirect_call);

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("NVTX_INJECTION64_PATH") == nullptr) {
    setenv("NVTX_INJECTION64_PATH", WARMUP_NVTX_TOOL, 1);
    execv("/proc/self/exe", argv);
    std::perror("warmup_bench_nvtx_tool: cannot start itself again under the tool");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
