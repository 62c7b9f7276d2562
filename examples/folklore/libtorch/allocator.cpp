// allocator: PyTorch's caching allocator against the folklore about it (issue 28, the third
// article): "the first allocation is slow", "empty_cache() so that later runs are not
// affected", "pre-allocate a large tensor so that later allocations are cheap".
//
// Each case is a site of 20 calls, the tensor freed (back to PyTorch's cache) between calls,
// outside the scope; PyTorch's allocator statistics (reserved: bytes it holds from cudaMalloc;
// allocated: bytes in live tensors) are read around the first calls, outside every scope:
//   torch::empty 64 MiB                     the first against the second
//   torch::empty 64 MiB after emptyCache()  emptyCache() gives the cache back to the driver
//   torch::randn 1024 x 1024                the article's first example (emptyCache() before);
//                                           device-timed on PyTorch's stream
//   torch::empty 64 MiB, 1 GiB held         the article's pre-allocation: a 1 GiB tensor kept
//   torch::empty 64 MiB from a freed 1 GiB  the same pre-allocation freed into the cache first
// Run with PYTORCH_CUDA_ALLOC_CONF unset (the program says its value): other settings
// (expandable segments, the cudaMallocAsync backend) change what the cache does.
//
//   allocator [--json FILE]
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/torch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <warmup/profile.hpp>

#include "../folklore.hpp"  // args, finish; fmt, first_vs_steady: the formats check_folklore.py rebuilds
#include "gpu_context.hpp"

namespace {

constexpr int calls = 20;
constexpr std::int64_t mib = 1 << 20;
constexpr std::int64_t block = 64 * mib;  // bytes of each timed allocation
constexpr std::int64_t large = 1024 * mib;

struct cache_state {
  std::int64_t reserved = 0, allocated = 0;
};

cache_state read_cache() {
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
  // [0]: StatType::AGGREGATE (its namespace moved between releases).
  return {stats.reserved_bytes[0].current, stats.allocated_bytes[0].current};
}

void say(const char* when, const cache_state& c) {
  std::printf("allocator: %s: reserved %lld MiB, allocated %lld MiB\n", when, static_cast<long long>(c.reserved / mib),
              static_cast<long long>(c.allocated / mib));
}

std::string grew(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+lld MiB", static_cast<long long>(bytes / mib));
  return buf;
}

// What the reserved bytes did at a site's first and second call.
struct first_two {
  std::int64_t first = 0, second = 0;
};

// `calls` allocations of one site, each freed outside its scope; returns the growth of the
// reserved bytes at the first two calls.
template <class Allocate>
first_two allocate_calls(const char* site, Allocate&& allocate) {
  first_two g;
  for (int i = 0; i < calls; ++i) {
    const cache_state before = read_cache();
    torch::Tensor t;
    {
      warmup::alloc_scope s{site, block};
      t = allocate();
    }
    const cache_state after = read_cache();
    if (i == 0) g.first = after.reserved - before.reserved;
    if (i == 1) g.second = after.reserved - before.reserved;
    t = torch::Tensor();  // back to PyTorch's cache, not to the driver
  }
  return g;
}

const warmup::site_report* site_of(const warmup::report& r, warmup::op_kind op, const char* name) {
  const warmup::site_report* s = r.find(op, name);
  if (s == nullptr || !s->host.steady) std::fprintf(stderr, "allocator: the site \"%s\" lacks steady figures\n", name);
  return s != nullptr && s->host.steady ? s : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  folklore::program_name = "allocator";
  if (!folklore::args{}.option("--json", folklore::json_path).read(argc, argv))
    return std::fprintf(stderr, "usage: allocator [--json FILE]\n"), 2;
  if (!folklore::gpu_usable("allocator")) return 77;
  const char* conf = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
  std::printf("allocator: PYTORCH_CUDA_ALLOC_CONF %s\n", conf != nullptr ? conf : "unset");
  const torch::Device gpu(torch::kCUDA, 0);
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(gpu);
  folklore::make_context(gpu);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  using c10::cuda::CUDACachingAllocator::emptyCache;
  emptyCache();
  say("start", read_cache());
  const auto empty_block = [&] { return torch::empty({block / 4}, floats); };

  const first_two plain = allocate_calls("torch::empty 64 MiB", empty_block);
  say("after torch::empty 64 MiB x 20", read_cache());

  const cache_state before_empty = read_cache();
  emptyCache();
  const cache_state after_empty = read_cache();
  say("after emptyCache()", after_empty);
  const first_two emptied = allocate_calls("torch::empty 64 MiB after emptyCache()", empty_block);

  // The article's first example: randn, first and second (a kernel besides the allocation).
  emptyCache();
  first_two randn;
  for (int i = 0; i < calls; ++i) {
    const cache_state before = read_cache();
    torch::Tensor t;
    {
      warmup::region_scope s{"torch::randn 1024 x 1024", stream};
      t = torch::randn({1024, 1024}, floats);
    }
    const cache_state after = read_cache();
    if (i == 0) randn.first = after.reserved - before.reserved;
    if (i == 1) randn.second = after.reserved - before.reserved;
  }

  // Pre-allocation as the article writes it: the large tensor stays alive.
  emptyCache();
  torch::Tensor held;
  {
    warmup::alloc_scope s{"pre-allocate 1 GiB, kept", large};
    held = torch::empty({large / 4}, floats);
  }
  say("1 GiB held", read_cache());
  const first_two kept = allocate_calls("torch::empty 64 MiB, 1 GiB held", empty_block);
  held = torch::Tensor();

  // Pre-allocation freed into the cache: the next allocations split the cached block.
  emptyCache();
  {
    warmup::alloc_scope s{"pre-allocate 1 GiB and free it", large};
    torch::Tensor t = torch::empty({large / 4}, floats);
  }
  say("1 GiB freed into the cache", read_cache());
  const first_two freed = allocate_calls("torch::empty 64 MiB from a freed 1 GiB", empty_block);
  say("end", read_cache());
  torch::cuda::synchronize();

  int found = 1;  // until the findings are printed
  const int status = folklore::finish(0, [&](const warmup::report& r) {
    using warmup::op_kind;
    const auto* s_plain = site_of(r, op_kind::alloc, "torch::empty 64 MiB");
    const auto* s_emptied = site_of(r, op_kind::alloc, "torch::empty 64 MiB after emptyCache()");
    const auto* s_randn = site_of(r, op_kind::region, "torch::randn 1024 x 1024");
    const auto* s_kept = site_of(r, op_kind::alloc, "torch::empty 64 MiB, 1 GiB held");
    const auto* s_freed = site_of(r, op_kind::alloc, "torch::empty 64 MiB from a freed 1 GiB");
    const auto* s_pre = r.find(op_kind::alloc, "pre-allocate 1 GiB and free it");
    if (!s_plain || !s_emptied || !s_randn || !s_kept || !s_freed || !s_pre || !s_randn->device) return;
    using folklore::first_vs_steady;
    std::printf("finding: the first torch::empty of 64 MiB asks the driver, the second reuses PyTorch's cache: %s; "
                "reserved %s at the first call, %s at the second\n",
                first_vs_steady(s_plain->host).c_str(), grew(plain.first).c_str(), grew(plain.second).c_str());
    std::printf("finding: emptyCache() hands the cache back, and the next torch::empty pays for it again: %s; reserved "
                "%lld -> %lld MiB at emptyCache(), %s at the first call after it\n",
                first_vs_steady(s_emptied->host).c_str(), static_cast<long long>(before_empty.reserved / mib),
                static_cast<long long>(after_empty.reserved / mib), grew(emptied.first).c_str());
    std::printf("finding: the first torch::randn(1024 x 1024) on the host (the article's reading): %s; on the device: "
                "%s; reserved %s at the first call, %s at the second\n",
                first_vs_steady(s_randn->host).c_str(), first_vs_steady(*s_randn->device).c_str(),
                grew(randn.first).c_str(), grew(randn.second).c_str());
    std::printf("finding: a pre-allocated 1 GiB tensor kept alive (the article's way) leaves the next torch::empty of "
                "64 MiB cold: %s; reserved %s at its first call\n",
                first_vs_steady(s_kept->host).c_str(), grew(kept.first).c_str());
    std::printf("finding: the same 1 GiB freed into the cache first (%s once) serves the next torch::empty of 64 MiB: "
                "%s; reserved %s at its first call\n",
                folklore::fmt(s_pre->host.first).c_str(), first_vs_steady(s_freed->host).c_str(), grew(freed.first).c_str());
    std::printf("finding: pre-allocation helps only when freed into the cache: %s, first call %s freed vs %s kept\n",
                s_freed->host.first < s_kept->host.first ? "holds" : "does not hold here",
                folklore::fmt(s_freed->host.first).c_str(), folklore::fmt(s_kept->host.first).c_str());
    found = 0;
  });
  return status != 0 ? status : found;
}
