// graphs: "CUDA graphs remove launch overhead, once you pay to build them", measured.
//
// A chain of 20 small kernels, launched 50 times one kernel at a time on a stream, then
// captured once into a CUDA graph and launched 50 times as one graph. Each step of the graph's
// life is its own site: the capture (cudaStreamBeginCapture .. cudaStreamEndCapture),
// cudaGraphInstantiate, cudaGraphUpload (the executable graph moved to the device ahead of the
// first launch), the first cudaGraphLaunch and the steady ones.
//
// Scopes inside a capture get host time only, by design: events recorded on a capturing stream
// would become graph nodes. The "step, recorded during capture" site shows it (its calls are
// counted under device_untimed.captured); put the scopes that matter around cudaGraphLaunch.
//
//   graphs                 print the report and the findings
//   graphs --json FILE     also write the JSON report to FILE
//   graphs --prewarm       the kernel loaded first (warmup::prewarm_kernels)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <warmup/profile.hpp>

#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "graphs";
constexpr int n = 1024;        // a small buffer: each kernel is a few microseconds or less
constexpr int chain = 20;      // kernels per chain
constexpr int launches = 50;   // chains launched each way

__global__ void step(float* x, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] += 1.0f;
}

const char* const stream_site = "20 kernels on a stream";
const char* const captured_site = "step, recorded during capture";
const char* const capture_site = "capture 20 kernels";
const char* const instantiate_site = "cudaGraphInstantiate";
const char* const upload_site = "cudaGraphUpload";
const char* const graph_site = "cudaGraphLaunch (20 kernels)";

void print_findings(const warmup::report& r) {
  using warmup::op_kind;
  const auto* st = r.find(op_kind::region, stream_site);
  const auto* gl = r.find(op_kind::launch, graph_site);
  for (const auto* s : {st, gl}) {
    if (s == nullptr) continue;
    std::cout << "finding: " << s->name << ", host: " << first_vs_steady(s->host);
    if (s->device) std::cout << "; device: " << first_vs_steady(*s->device);
    std::cout << '\n';
  }
  const auto* cap = r.find(op_kind::region, capture_site);
  const auto* ins = r.find(op_kind::region, instantiate_site);
  const auto* up = r.find(op_kind::region, upload_site);
  if (!cap || !ins || !up) return;
  const std::chrono::nanoseconds setup = cap->host.first + ins->host.first + up->host.first;
  std::cout << "finding: building the graph costs once: capture " << fmt(cap->host.first) << " + instantiate "
            << fmt(ins->host.first) << " + upload " << fmt(up->host.first) << " = " << fmt(setup) << " on the host\n";
  if (st && gl && st->host.steady && gl->host.steady && st->host.steady->p50 > gl->host.steady->p50) {
    const auto saved = st->host.steady->p50 - gl->host.steady->p50;
    std::cout << "finding: a graph launch saves " << fmt(saved) << " of host time per chain (steady "
              << fmt(st->host.steady->p50) << " vs " << fmt(gl->host.steady->p50) << "): the set-up is paid back after "
              << (setup.count() + saved.count() - 1) / saved.count() << " launches\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float* x = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), stream));
  const int block = 256, grid = (n + block - 1) / block;
  // --prewarm: the kernel loaded before the first chain is launched (or captured).
  if (folklore::prewarm_mode) PREWARM(warmup::prewarm_kernels(&step));

  // 1. The chain launched kernel by kernel. The sync after each chain, outside the scope, keeps
  // the chains apart; the host time is what launching 20 kernels cost the CPU.
  for (int l = 0; l < launches; ++l) {
    {
      warmup::region_scope s{stream_site, stream};
      for (int k = 0; k < chain; ++k) {
        step<<<grid, block, 0, stream>>>(x, n);
        CHECK(cudaGetLastError());
      }
    }
    CHECK(cudaStreamSynchronize(stream));
  }

  // 2. The same chain captured into a graph: nothing runs, the launches become nodes.
  cudaGraph_t graph;
  {
    warmup::region_scope s{capture_site};
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < chain; ++k) {
      warmup::launch_scope inside{captured_site, stream};  // host time only: the stream is capturing
      step<<<grid, block, 0, stream>>>(x, n);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaStreamEndCapture(stream, &graph));
  }
  cudaGraphExec_t exec;
  {
    warmup::region_scope s{instantiate_site};
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
  }
  {
    // Optional: without it, the first launch uploads the graph itself.
    warmup::region_scope s{upload_site, stream};
    CHECK(cudaGraphUpload(exec, stream));
  }
  CHECK(cudaStreamSynchronize(stream));

  // 3. The chain as one graph launch.
  for (int l = 0; l < launches; ++l) {
    {
      warmup::launch_scope s{graph_site, stream};
      CHECK(cudaGraphLaunch(exec, stream));
    }
    CHECK(cudaStreamSynchronize(stream));
  }

  // Every element was incremented once per kernel: 50 chains on the stream, 50 graph launches.
  float x0 = 0;
  CHECK(cudaMemcpy(&x0, x, sizeof x0, cudaMemcpyDeviceToHost));
  if (x0 != float(2 * launches * chain)) {
    std::fprintf(stderr, "%s: wrong result %g, expected %d\n", program, double(x0), 2 * launches * chain);
    return folklore::fail();
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(x));
  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
