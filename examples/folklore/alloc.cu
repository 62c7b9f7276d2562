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
//   alloc --prewarm       loop 2 after warmup::prewarm_pool(64 MiB): its site is then named
//                         "cudaMallocAsync 64 MiB, default pool after warmup::prewarm_pool"
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>

#include <warmup/profile.hpp>

#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "alloc";
constexpr std::size_t bytes = std::size_t{64} << 20;
constexpr int calls = 20;

const char* const malloc_site = "cudaMalloc 64 MiB";
const char* const async_zero_site = "cudaMallocAsync 64 MiB, release threshold 0";
const char* const async_max_site = "cudaMallocAsync 64 MiB, release threshold max";
const char* const preallocate_site = "pre-allocate 64 MiB high-water (malloc+free+sync)";
const char* const preallocated_site = "cudaMallocAsync 64 MiB, after pre-allocation";
const char* const prewarmed_site = "cudaMallocAsync 64 MiB, default pool after warmup::prewarm_pool";

void print_findings(const warmup::report& r) {
  using warmup::op_kind;
  const auto* m = r.find(op_kind::alloc, malloc_site);
  const auto* zero = r.find(op_kind::alloc, async_zero_site);
  const auto* max = r.find(op_kind::alloc, async_max_site);
  const auto* pre = r.find(op_kind::alloc, preallocate_site);
  const auto* after = r.find(op_kind::alloc, preallocated_site);
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
  if (const auto* p = r.find(op_kind::alloc, prewarmed_site))
    std::cout << "finding: warmup::prewarm_pool(64 MiB) leaves the default pool's first cudaMallocAsync warm: "
              << first_vs_steady(p->host) << '\n';
  if (pre && after)
    std::cout << "finding: pre-allocating the high-water size moves the cost out of the loop: pre-allocation "
              << fmt(pre->host.first) << " once, then " << first_vs_steady(after->host) << '\n';
}

// The pool's reserved memory: what it holds from the OS right now.
std::uint64_t reserved(cudaMemPool_t pool) {
  std::uint64_t v = 0;
  check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v), "cudaMemPoolGetAttribute");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
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
  // program does once per step. The sync is where a pool with threshold 0 shrinks. Given the
  // stream, the scope reads the pool's reserved bytes around each call (the report's `pool`).
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  auto step = [&](const char* site) {
    void* p = nullptr;
    {
      warmup::alloc_scope a{site, bytes, stream};
      if (!check(cudaMallocAsync(&p, bytes, stream), "cudaMallocAsync")) return false;
    }
    return check(cudaMemsetAsync(p, 0, bytes, stream), "cudaMemsetAsync") &&
           check(cudaFreeAsync(p, stream), "cudaFreeAsync") && check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };

  // 2. The default pool as it comes: release threshold 0. With --prewarm, the pool prewarmed
  // first (threshold raised to 64 MiB, 64 MiB allocated and freed), and the site says so.
  if (folklore::prewarm_mode) PREWARM(warmup::prewarm_pool(bytes, stream));
  const char* const default_pool_site = folklore::prewarm_mode ? prewarmed_site : async_zero_site;
  for (int i = 0; i < calls; ++i)
    if (!step(default_pool_site)) return folklore::fail();
  std::printf("pool reserved after the default-pool loop: %llu MiB\n", (unsigned long long)(reserved(pool) >> 20));

  // 3. Keep freed memory in the pool whatever happens: threshold UINT64_MAX.
  std::uint64_t threshold = UINT64_MAX;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  for (int i = 0; i < calls; ++i)
    if (!step(async_max_site)) return folklore::fail();
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
    if (!step(preallocated_site)) return folklore::fail();

  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
