// host_memory: "pinned memory is faster", measured, with what pinning costs.
//
//   - what pinning costs up front: cudaMallocHost of 256 MiB, and cudaHostRegister of 256 MiB
//     from malloc;
//   - 64 MiB copies, 20 each way, from and to pageable (std::vector) and pinned memory, on a
//     stream so that the report has their device time and the bandwidth it gives;
//   - one copy from freshly malloc'ed pages never written (the OS maps them during the copy)
//     against one from malloc'ed pages written first.
//
//   host_memory                 print the report and the findings
//   host_memory --json FILE     also write the JSON report to FILE
//   host_memory --prewarm       the pinned copies from a warmup::pinned_buffer made first
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <warmup/profile.hpp>

#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "host_memory";
constexpr std::size_t pin_bytes = std::size_t{256} << 20;
constexpr std::size_t copy_bytes = std::size_t{64} << 20;
constexpr int copies = 20;

std::string gbps(const warmup::site_report* s) {
  if (s == nullptr || !s->bytes || !s->bytes->steady_gbps) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", *s->bytes->steady_gbps);
  return buf;
}

const char* const malloc_host_site = "cudaMallocHost 256 MiB";
const char* const register_site = "cudaHostRegister 256 MiB";
const char* const h2d_pageable = "H2D 64 MiB pageable";
const char* const h2d_pinned = "H2D 64 MiB pinned";
const char* const d2h_pageable = "D2H 64 MiB pageable";
const char* const d2h_pinned = "D2H 64 MiB pinned";
const char* const untouched_site = "H2D 64 MiB from untouched malloc pages";
const char* const touched_site = "H2D 64 MiB from touched malloc pages";

void print_findings(const warmup::report& r) {
  using warmup::op_kind;
  const auto* mh = r.find(op_kind::alloc, malloc_host_site);
  const auto* reg = r.find(op_kind::alloc, register_site);
  if (mh && reg)
    std::cout << "finding: pinning host memory costs time up front: cudaMallocHost(256 MiB) " << fmt(mh->host.first)
              << ", cudaHostRegister(256 MiB) " << fmt(reg->host.first) << '\n';
  const struct { const char* what; op_kind op; const char* pageable; const char* pinned; } pairs[] = {
      {"H2D", op_kind::h2d, h2d_pageable, h2d_pinned}, {"D2H", op_kind::d2h, d2h_pageable, d2h_pinned}};
  for (const auto& p : pairs) {
    const auto* pg = r.find(p.op, p.pageable);
    const auto* pn = r.find(p.op, p.pinned);
    if (!pg || !pn) continue;
    std::cout << "finding: pinned " << p.what << " copies are faster: steady " << gbps(pn) << " pinned vs "
              << gbps(pg) << " pageable (device p50 " << (pn->device && pn->device->steady ? fmt(pn->device->steady->p50) : "-")
              << " vs " << (pg->device && pg->device->steady ? fmt(pg->device->steady->p50) : "-")
              << "); first pinned copy " << fmt(pn->host.first) << ", first pageable " << fmt(pg->host.first) << '\n';
  }
  const auto* un = r.find(op_kind::h2d, untouched_site);
  const auto* to = r.find(op_kind::h2d, touched_site);
  const auto* pg = r.find(op_kind::h2d, h2d_pageable);
  if (un && to)
    std::cout << "finding: a copy from never-written pages pays for mapping them: untouched " << fmt(un->host.first)
              << " vs touched " << fmt(to->host.first) << " (steady pageable "
              << (pg && pg->host.steady ? fmt(pg->host.steady->p50) : "-") << ")\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  void* device = nullptr;
  CHECK(cudaMalloc(&device, copy_bytes));
  // --prewarm: the pinned copies below go through a staging buffer pinned here, once, before
  // anything is measured (the 256 MiB pinnings below stay: they measure what pinning costs).
  warmup::pinned_buffer staging;
  if (folklore::prewarm_mode) {
    staging = warmup::pinned_buffer{copy_bytes};
    PREWARM(staging.status());
  }

  // What pinning costs: the driver locks every page and maps it for the GPU.
  void* pinned = nullptr;
  {
    warmup::alloc_scope a{malloc_host_site, pin_bytes};
    CHECK(cudaMallocHost(&pinned, pin_bytes));
  }
  // Page-aligned, never written: registering faults every page in and locks it.
  void* registered = std::aligned_alloc(4096, pin_bytes);
  if (registered == nullptr) {
    std::fprintf(stderr, "%s: out of host memory\n", program);
    return folklore::fail();
  }
  {
    warmup::alloc_scope a{register_site, pin_bytes};
    CHECK(cudaHostRegister(registered, pin_bytes, cudaHostRegisterDefault));
  }
  CHECK(cudaHostUnregister(registered));
  std::free(registered);

  // Bandwidth. Each copy has the stream, so the report has its device time; the sync after it,
  // outside the scope, keeps the copies apart.
  std::vector<unsigned char> pageable(copy_bytes, 1);  // written by the constructor: touched
  void* const pinned_copies = folklore::prewarm_mode ? staging.data() : pinned;
  std::memset(pinned_copies, 1, copy_bytes);
  // One copy and its sync; `tag` picks the scope's kind (h2d_scope is warmup::scope<op::h2d>).
  // Given the host pointer, the report counts the calls from pinned and from pageable memory.
  auto copy = [&](auto tag, const char* site, void* dst, const void* src, cudaMemcpyKind kind) {
    {
      const void* host = kind == cudaMemcpyHostToDevice ? src : dst;
      warmup::scope<decltype(tag)> s{site, copy_bytes, stream, host};
      if (!check(cudaMemcpyAsync(dst, src, copy_bytes, kind, stream), site)) return false;
    }
    return check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  const struct { const char* site; void* host; } h2d[] = {{h2d_pageable, pageable.data()}, {h2d_pinned, pinned_copies}};
  for (const auto& c : h2d)
    for (int i = 0; i < copies; ++i)
      if (!copy(warmup::op::h2d{}, c.site, device, c.host, cudaMemcpyHostToDevice)) return folklore::fail();
  const struct { const char* site; void* host; } d2h[] = {{d2h_pageable, pageable.data()}, {d2h_pinned, pinned_copies}};
  for (const auto& c : d2h)
    for (int i = 0; i < copies; ++i)
      if (!copy(warmup::op::d2h{}, c.site, c.host, device, cudaMemcpyDeviceToHost)) return folklore::fail();

  // Fresh malloc memory (64 MiB comes straight from mmap): its pages do not exist until touched.
  // The first buffer is copied as it comes, the second after being written once.
  void* untouched = std::malloc(copy_bytes);
  void* touched = std::malloc(copy_bytes);
  if (untouched == nullptr || touched == nullptr) {
    std::fprintf(stderr, "%s: out of host memory\n", program);
    return folklore::fail();
  }
  std::memset(touched, 2, copy_bytes);
  if (!copy(warmup::op::h2d{}, untouched_site, device, untouched, cudaMemcpyHostToDevice) ||
      !copy(warmup::op::h2d{}, touched_site, device, touched, cudaMemcpyHostToDevice))
    return folklore::fail();
  std::free(untouched);
  std::free(touched);

  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(device));
  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
