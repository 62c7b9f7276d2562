// alloc: "the first allocation is slow, so pre-allocate", measured.
//
// The same 64 MiB is allocated, used (a memset) and freed 20 times in four ways, each its own
// site in the report:
//   1. cudaMalloc / cudaFree;
//   2. cudaMallocAsync from the device's default pool with its default release threshold (0):
//      at every synchronisation the pool hands its unused memory back to the OS, so the next
//      allocation maps it again;
//   3. the same pool with the release threshold raised to UINT64_MAX: the memory stays in the
//      pool after the first allocation;
//   4. the same pool emptied (cudaMemPoolTrimTo), then the high-water size allocated and freed
//      once up front, then the loop: the loop's first call is already warm.
//
//   alloc                 print the report and the findings
//   alloc --json FILE     also write the JSON report to FILE
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include <warmup/profile.hpp>

namespace {

constexpr const char* program = "alloc";
constexpr std::size_t bytes = std::size_t{64} << 20;
constexpr int calls = 20;

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s failed: %s\n", program, what, cudaGetErrorString(e));
  return false;
}

const warmup::site_report* find(const warmup::report& r, warmup::op_kind op, std::string_view name) {
  for (const warmup::site_report& s : r.sites)
    if (s.op == op && s.name == name) return &s;
  return nullptr;
}

// 1234567 ns -> "1.23 ms".
std::string fmt(std::chrono::nanoseconds d) {
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
std::string first_vs_steady(const warmup::timing& t) {
  if (!t.steady) return "first " + fmt(t.first) + " (one call: no steady state)";
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.1fx", double(t.first.count()) / double(std::max<long long>(1, t.steady->p50.count())));
  return "first " + fmt(t.first) + " vs steady " + fmt(t.steady->p50) + " (" + ratio + ")";
}

const char* const malloc_site = "cudaMalloc 64 MiB";
const char* const async_zero_site = "cudaMallocAsync 64 MiB, release threshold 0";
const char* const async_max_site = "cudaMallocAsync 64 MiB, release threshold max";
const char* const preallocate_site = "pre-allocate 64 MiB high-water (malloc+free+sync)";
const char* const preallocated_site = "cudaMallocAsync 64 MiB, after pre-allocation";

void print_findings(const warmup::report& r) {
  using warmup::op_kind;
  const auto* m = find(r, op_kind::alloc, malloc_site);
  const auto* zero = find(r, op_kind::alloc, async_zero_site);
  const auto* max = find(r, op_kind::alloc, async_max_site);
  const auto* pre = find(r, op_kind::alloc, preallocate_site);
  const auto* after = find(r, op_kind::alloc, preallocated_site);
  // The folklore's claim, checked rather than assumed: once the context exists (created above,
  // on purpose), is the first cudaMalloc still the slow one?
  if (m && m->host.steady)
    std::cout << "finding: the first cudaMalloc is slower than later ones: "
              << (m->host.first > m->host.steady->p50 ? "holds" : "does not hold here") << ", "
              << first_vs_steady(m->host) << '\n';
  if (zero && max && zero->host.steady && max->host.steady)
    std::cout << "finding: with release threshold 0 every cudaMallocAsync after a sync maps memory again: "
              << first_vs_steady(zero->host) << ", against steady " << fmt(max->host.steady->p50)
              << " once the threshold is raised\n";
  if (max) std::cout << "finding: a raised release threshold leaves only the first cudaMallocAsync cold: "
                     << first_vs_steady(max->host) << '\n';
  if (pre && after)
    std::cout << "finding: pre-allocating the high-water size moves the cost out of the loop: pre-allocation "
              << fmt(pre->host.first) << " once, then " << first_vs_steady(after->host) << '\n';
}

int finish(const char* json_path, int status) {
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  warmup::print(r, std::cout);
  if (status == 0) print_findings(r);
  if (json_path != nullptr) {
    std::ofstream out(json_path);
    out << warmup::to_json(r) << '\n';
    if (!out) {
      std::fprintf(stderr, "%s: cannot write %s\n", program, json_path);
      return status == 0 ? 1 : status;
    }
  }
  return status;
}

// The pool's reserved memory: what it holds from the OS right now.
std::uint64_t reserved(cudaMemPool_t pool) {
  std::uint64_t v = 0;
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v), "cudaMemPoolGetAttribute");
  return v;
}

}  // namespace

// On a failed CUDA call: say which, print the report so far, exit 1.
#define CHECK(call)                                          \
  do {                                                       \
    if (!check((call), #call)) return finish(json_path, 1); \
  } while (0)

int main(int argc, char** argv) {
  const char* json_path = nullptr;
  if (argc == 3 && std::strcmp(argv[1], "--json") == 0) json_path = argv[2];
  else if (argc != 1) return std::fprintf(stderr, "usage: %s [--json FILE]\n", argv[0]), 2;

  bool gpu = false;
  {
    // The context first, in its own scope, so that no allocation below pays for it.
    warmup::context_scope init{"cudaSetDevice + cudaFree(0)"};
    gpu = check(cudaSetDevice(0), "cudaSetDevice(0)") && check(cudaFree(nullptr), "cudaFree(0)");
  }
  if (!gpu) {
    std::fprintf(stderr, "%s: no usable GPU\n", program);
    return 77;
  }
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // 1. cudaMalloc: synchronous, and the first one also sets up the device's address space.
  for (int i = 0; i < calls; ++i) {
    void* p = nullptr;
    {
      warmup::alloc_scope a{malloc_site, bytes};
      CHECK(cudaMalloc(&p, bytes));
    }
    CHECK(cudaMemsetAsync(p, 0, bytes, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaFree(p));
  }

  // Stream-ordered allocation: allocate, use, free on the stream, then synchronise, as a
  // program does once per step. The sync is where a pool with threshold 0 shrinks.
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  auto step = [&](const char* site) {
    void* p = nullptr;
    {
      warmup::alloc_scope a{site, bytes};
      if (!check(cudaMallocAsync(&p, bytes, stream), "cudaMallocAsync")) return false;
    }
    return check(cudaMemsetAsync(p, 0, bytes, stream), "cudaMemsetAsync") &&
           check(cudaFreeAsync(p, stream), "cudaFreeAsync") && check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };

  // 2. The default pool as it comes: release threshold 0.
  for (int i = 0; i < calls; ++i)
    if (!step(async_zero_site)) return finish(json_path, 1);
  std::printf("pool reserved after the threshold-0 loop: %llu MiB\n", (unsigned long long)(reserved(pool) >> 20));

  // 3. Keep freed memory in the pool whatever happens: threshold UINT64_MAX.
  std::uint64_t threshold = UINT64_MAX;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  for (int i = 0; i < calls; ++i)
    if (!step(async_max_site)) return finish(json_path, 1);
  std::printf("pool reserved after the threshold-max loop: %llu MiB\n", (unsigned long long)(reserved(pool) >> 20));

  // 4. Start again from an empty pool, and pay for the high-water size once, before the loop.
  CHECK(cudaMemPoolTrimTo(pool, 0));
  std::printf("pool reserved after cudaMemPoolTrimTo(0): %llu MiB\n", (unsigned long long)(reserved(pool) >> 20));
  {
    warmup::alloc_scope a{preallocate_site, bytes};
    void* p = nullptr;
    CHECK(cudaMallocAsync(&p, bytes, stream));
    CHECK(cudaFreeAsync(p, stream));
    CHECK(cudaStreamSynchronize(stream));
  }
  for (int i = 0; i < calls; ++i)
    if (!step(preallocated_site)) return finish(json_path, 1);

  CHECK(cudaStreamDestroy(stream));
  return finish(json_path, 0);
}
