// streams: "overlap copies with compute using streams", measured.
//
// 64 MiB of pinned host data goes through the GPU in 16 chunks of 4 MiB: copy in, process
// (a kernel), copy out. First all on one stream, where each step waits for the one before;
// then the chunks alternate between two streams, so one chunk's copy in can run while another
// is processed and a third copied out (H2D, D2H and kernels use different engines).
// Each whole pipeline is a region on the first stream; for two streams it forks the second
// stream off the first and joins it back with events, so the region's device time covers both.
// Each step of each chunk is its own device-timed site too.
//
//   streams                 print the report and the findings
//   streams --json FILE     also write the JSON report to FILE
//   streams --prewarm       the kernel loaded first (warmup::prewarm_kernels)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <warmup/profile.hpp>

#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "streams";
constexpr int chunks = 16;
constexpr std::size_t chunk_elements = std::size_t{1} << 20;  // 4 MiB of floats
constexpr std::size_t chunk_bytes = chunk_elements * sizeof(float);
constexpr std::size_t total_elements = chunk_elements * chunks;
constexpr int iterations = 2000;  // kernel work per element: about as long as a chunk's copy
constexpr int pipelines = 20;

// The "processing": a dependent chain of multiply-adds per element.
__host__ __device__ inline float process_one(float x) {
  for (int k = 0; k < iterations; ++k) x = x * 0.999f + 0.001f;
  return x;
}
__global__ void process(const float* in, float* out, std::size_t count) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = process_one(in[i]);
}

const char* const pipeline_sites[] = {"pipeline 64 MiB, 1 stream", "pipeline 64 MiB, 2 streams"};
const char* const h2d_sites[] = {"H2D 4 MiB chunk, 1 stream", "H2D 4 MiB chunk, 2 streams"};
const char* const kernel_sites[] = {"process chunk, 1 stream", "process chunk, 2 streams"};
const char* const d2h_sites[] = {"D2H 4 MiB chunk, 1 stream", "D2H 4 MiB chunk, 2 streams"};

void print_findings(const warmup::report& r) {
  const auto* one = r.find(warmup::op_kind::region, pipeline_sites[0]);
  const auto* two = r.find(warmup::op_kind::region, pipeline_sites[1]);
  for (const auto* s : {one, two})
    if (s && s->device)
      std::cout << "finding: " << s->name << " on the device: " << first_vs_steady(*s->device) << '\n';
  if (one && two && one->device && two->device && one->device->steady && two->device->steady) {
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.2fx",
                  double(one->device->steady->p50.count()) / double(std::max<long long>(1, two->device->steady->p50.count())));
    std::cout << "finding: overlapping copies and kernels over two streams: steady " << fmt(one->device->steady->p50)
              << " on 1 stream vs " << fmt(two->device->steady->p50) << " on 2 streams (" << speedup << " speed-up)\n";
  }
  const auto* k1 = r.find(warmup::op_kind::launch, kernel_sites[0]);
  const auto* k2 = r.find(warmup::op_kind::launch, kernel_sites[1]);
  if (k1 && k2 && k1->device && k2->device && k1->device->steady && k2->device->steady)
    std::cout << "finding: one chunk's kernel, alone vs overlapped with copies: steady "
              << fmt(k1->device->steady->p50) << " alone vs " << fmt(k2->device->steady->p50) << " overlapped\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t streams[2];
  CHECK(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking));
  cudaEvent_t fork, join;  // ordering only: no timing
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  // Overlap needs pinned host memory: a copy from pageable memory is staged by the host.
  float *host_in = nullptr, *host_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
  {
    warmup::alloc_scope a{"cudaMallocHost 2 x 64 MiB", 2 * total_elements * sizeof(float)};
    CHECK(cudaMallocHost(&host_in, total_elements * sizeof(float)));
    CHECK(cudaMallocHost(&host_out, total_elements * sizeof(float)));
  }
  CHECK(cudaMalloc(&dev_in, total_elements * sizeof(float)));
  CHECK(cudaMalloc(&dev_out, total_elements * sizeof(float)));
  for (std::size_t i = 0; i < total_elements; ++i) host_in[i] = float(i % 1000) / 1000.0f;
  // --prewarm: the kernel loaded before the first chunk is launched.
  if (folklore::prewarm_mode) PREWARM(warmup::prewarm_kernels(&process));

  for (int mode = 0; mode < 2; ++mode) {  // 0: one stream, 1: two streams
    const int used = mode + 1;
    for (int p = 0; p < pipelines; ++p) {
      {
        warmup::region_scope pipeline{pipeline_sites[mode], streams[0]};
        if (used == 2) {  // fork: the second stream starts after the region's start on the first
          CHECK(cudaEventRecord(fork, streams[0]));
          CHECK(cudaStreamWaitEvent(streams[1], fork, 0));
        }
        for (int c = 0; c < chunks; ++c) {
          cudaStream_t s = streams[c % used];
          const std::size_t offset = std::size_t(c) * chunk_elements;
          {
            warmup::h2d_scope up{h2d_sites[mode], chunk_bytes, s};
            CHECK(cudaMemcpyAsync(dev_in + offset, host_in + offset, chunk_bytes, cudaMemcpyHostToDevice, s));
          }
          {
            warmup::launch_scope k{kernel_sites[mode], s};
            process<<<unsigned(chunk_elements / 256), 256, 0, s>>>(dev_in + offset, dev_out + offset, chunk_elements);
          }
          CHECK(cudaGetLastError());
          {
            warmup::d2h_scope down{d2h_sites[mode], chunk_bytes, s};
            CHECK(cudaMemcpyAsync(host_out + offset, dev_out + offset, chunk_bytes, cudaMemcpyDeviceToHost, s));
          }
        }
        if (used == 2) {  // join: the first stream (and so the region's end) waits for the second
          CHECK(cudaEventRecord(join, streams[1]));
          CHECK(cudaStreamWaitEvent(streams[0], join, 0));
        }
      }
      CHECK(cudaStreamSynchronize(streams[0]));  // outside the region: its device time is GPU work only
    }
  }

  // The answer, against the host doing the same arithmetic (FMA contraction may differ).
  for (std::size_t i = 0; i < total_elements; i += 4099) {
    const float want = process_one(host_in[i]);
    if (std::fabs(host_out[i] - want) > 1e-3f * std::fabs(want) + 1e-3f) {
      std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", program, i, double(host_out[i]), double(want));
      return folklore::fail();
    }
  }

  CHECK(cudaFreeHost(host_in));
  CHECK(cudaFreeHost(host_out));
  CHECK(cudaFree(dev_in));
  CHECK(cudaFree(dev_out));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(streams[0]));
  CHECK(cudaStreamDestroy(streams[1]));
  return folklore::finish(0, print_findings);
}
