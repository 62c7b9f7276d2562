// warmup-report merge at scale: 1,024 rank reports of 200 sites each (generated once, like a
// real job's: host and device timings, copies with bytes, notes), merged by the installed tool
// as a user runs it. Baseline: reading the same files' bytes. Counters: the merge's peak
// memory (the child's maxrss) and the reports' total size.
// usage: warmup_bench_merge [--benchmark_*]   (WARMUP_BENCH_RANKS / _SITES change the scale)
#include <benchmark/benchmark.h>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "warmup/json.hpp"
#include "warmup/read.hpp"
#include "warmup/report.hpp"

extern char** environ;

namespace {

int scale(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

struct corpus {
  std::string dir;
  std::vector<std::string> files;
  std::uint64_t bytes = 0;
};

warmup::report rank_report(int rank, int sites, std::mt19937& rng) {
  std::lognormal_distribution<double> noise(0.0, 0.2);
  warmup::report r;
  r.identity.rank = rank;
  r.identity.world_size = scale("WARMUP_BENCH_RANKS", 1024);
  r.identity.launcher = "Open MPI";
  r.identity.host = "node" + std::to_string(rank / 8);
  r.identity.pid = 1000 + rank;
  r.identity.started = "2026-11-27T00:00:00.000Z";
  warmup::device_description d;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-00000000-0000-0000-0000-" + std::to_string(100000000000 + rank);
  r.device = d;
  for (int s = 0; s < sites; ++s) {
    warmup::site_report x;
    x.name = "model.layer" + std::to_string(s / 4) + (s % 4 == 0 ? ".attention" : s % 4 == 1 ? ".mlp" : s % 4 == 2 ? ".copy_in" : ".allreduce");
    x.op = s % 4 == 2 ? warmup::op_kind::h2d : warmup::op_kind::region;
    x.calls = 1000;
    const double steady = 2e4 * (1 + s % 7) * noise(rng);
    warmup::timing t;
    t.calls = 1000;
    t.first = std::chrono::nanoseconds(static_cast<long long>(steady * 300 * noise(rng)));
    t.warmup_calls = 3;
    t.total = std::chrono::nanoseconds(static_cast<long long>(steady * 1000));
    warmup::steady_state st;
    st.calls = 997;
    st.p50 = std::chrono::nanoseconds(static_cast<long long>(steady));
    st.p90 = st.p50 * 11 / 10, st.p99 = st.p50 * 13 / 10, st.p999 = st.p50 * 2, st.min = st.p50 * 9 / 10;
    st.max = st.p50 * 3, st.mean = st.p50, st.stddev = st.p50 / 20, st.p50_low = st.p50 * 99 / 100;
    st.p50_high = st.p50 * 101 / 100, st.enough_calls = true;
    t.steady = st;
    t.first_call_excess = t.first - st.p50;
    t.warmup_excess = t.first - st.p50;
    x.host = t;
    x.device = t;
    if (x.op == warmup::op_kind::h2d) {
      warmup::transfer b;
      b.first = b.total = 1u << 24;
      b.gbps_clock = warmup::clock_domain::device;
      b.first_gbps = 12.5, b.steady_gbps = 48.1, b.mean_gbps = 47.9;
      x.bytes = b;
    }
    x.notes.push_back("first call 300x the steady p50");
    r.sites.push_back(std::move(x));
  }
  return r;
}

const corpus& reports() {
  static const corpus c = [] {
    corpus out;
    char tmpl[] = "/tmp/warmup-bench-merge-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    out.dir = tmpl;
    std::mt19937 rng(17);
    const int ranks = scale("WARMUP_BENCH_RANKS", 1024), sites = scale("WARMUP_BENCH_SITES", 200);
    for (int r = 0; r < ranks; ++r) {
      const std::string path = out.dir + "/rank" + std::to_string(r) + ".json";
      const std::string json = warmup::to_json(rank_report(r, sites, rng)) + '\n';
      std::ofstream(path, std::ios::binary) << json;
      out.files.push_back(path);
      out.bytes += json.size();
    }
    return out;
  }();
  return c;
}

void read_files(benchmark::State& state) {  // baseline: the bytes a merge must at least read
  const corpus& c = reports();
  for (auto _ : state) {
    std::uint64_t n = 0;
    std::string error;
    for (const std::string& f : c.files) n += warmup::read_text_file(f, error)->size();
    benchmark::DoNotOptimize(n);
  }
  state.counters["report_MiB"] = double(c.bytes) / (1 << 20);
}
BENCHMARK(read_files)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void merge_tool(benchmark::State& state) {  // warmup-report merge DIR -o merged.json
  const corpus& c = reports();
  const std::string out = c.dir + "/../" + c.dir.substr(c.dir.rfind('/') + 1) + ".merged.json";
  double peak_mib = 0;
  for (auto _ : state) {
    std::vector<std::string> args = {WARMUP_REPORT_TOOL, "merge", c.dir, "-o", out};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      state.SkipWithError("cannot start warmup-report");
      return;
    }
    int status = 0;
    rusage use{};
    ::wait4(pid, &status, 0, &use);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("warmup-report merge failed");
      return;
    }
    peak_mib = std::max(peak_mib, double(use.ru_maxrss) / 1024);  // Linux: KiB
  }
  std::remove(out.c_str());
  state.counters["peak_MiB"] = peak_mib;
  state.counters["report_MiB"] = double(c.bytes) / (1 << 20);
}
BENCHMARK(merge_tool)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  const corpus& c = reports();
  for (const std::string& f : c.files) std::remove(f.c_str());
  ::rmdir(c.dir.c_str());
  benchmark::Shutdown();
  return 0;
}
