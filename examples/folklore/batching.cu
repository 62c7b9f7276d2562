// batching: "bigger batches are cheaper per sample, but every new shape warms up again", measured.
//
// A small MLP (two fully connected 1024 -> 1024 layers: cuBLAS SGEMM, then our bias + ReLU
// kernel) runs at batch sizes 1, 2, 4, ..., 256, 20 forward passes each, smallest first. Each
// batch size is its own site ("forward b=N"), timed on the host and on the device, so the report
// shows the first call of each new shape (cuBLAS picks, and may load, a kernel per shape)
// against its steady calls; the findings give the steady time per sample.
//
//   batching                 print the report and the findings
//   batching --json FILE     also write the JSON report to FILE
//   batching --prewarm       one SGEMM of each batch size first (warmup::cublas::prewarm), bias kernel loaded
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <warmup/cublas.hpp>
#include <warmup/profile.hpp>

#include "cublas_handle.hpp"
#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "batching";
constexpr int width = 1024;  // every layer 1024 -> 1024
constexpr int layers = 2;
constexpr int max_batch = 256;
constexpr int calls = 20;

// Deterministic values in [-scale, scale).
__global__ void fill(float* x, int count, unsigned seed, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] = scale * (float((unsigned(i) * 2654435761u + seed) % 2048u) / 1024.0f - 1.0f);
}

// y[o, b] = max(0, y[o, b] + bias[o]) for a column-major [out x batch] activation.
__global__ void bias_relu(float* y, const float* bias, int out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = fmaxf(0.0f, y[i] + bias[i % out]);
}

std::string site_name(int batch) { return "forward b=" + std::to_string(batch); }

void print_findings(const warmup::report& r) {
  std::chrono::nanoseconds per_sample_first{}, per_sample_last{};
  for (int b = 1; b <= max_batch; b *= 2) {
    const auto* s = r.find(warmup::op_kind::region, site_name(b));
    if (s == nullptr) continue;
    std::cout << "finding: " << s->name << ", a new shape: " << first_vs_steady(s->host) << " on the host";
    if (s->device && s->device->steady) {
      const std::chrono::nanoseconds per_sample = s->device->steady->p50 / b;
      std::cout << "; steady " << fmt(s->device->steady->p50) << " on the device, " << fmt(per_sample) << " per sample";
      if (b == 1) per_sample_first = per_sample;
      per_sample_last = per_sample;
    }
    std::cout << '\n';
  }
  if (per_sample_first.count() > 0 && per_sample_last.count() > 0)
    std::cout << "finding: once warm, the device time per sample falls from " << fmt(per_sample_first) << " at b=1 to "
              << fmt(per_sample_last) << " at b=" << max_batch << " ("
              << std::lround(double(per_sample_first.count()) / double(per_sample_last.count())) << "x)\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  if (!folklore::create_handle(handle, stream)) return folklore::fail();

  // Weights, biases and activations sized for the largest batch, made once: only the shape of
  // the work changes from one batch size to the next, never an allocation.
  float *w[layers], *bias[layers], *act[layers + 1];
  for (int l = 0; l < layers; ++l) {
    CHECK(cudaMalloc(&w[l], sizeof(float) * width * width));
    CHECK(cudaMalloc(&bias[l], sizeof(float) * width));
    fill<<<width * width / 256, 256, 0, stream>>>(w[l], width * width, 10 + l, 1.0f / std::sqrt(float(width)));
    fill<<<width / 256, 256, 0, stream>>>(bias[l], width, 20 + l, 0.1f);
  }
  for (int l = 0; l <= layers; ++l) CHECK(cudaMalloc(&act[l], sizeof(float) * width * max_batch));
  fill<<<width * max_batch / 256, 256, 0, stream>>>(act[0], width * max_batch, 1, 1.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  // --prewarm: each batch size is its own SGEMM variant to cuBLAS: one call of each, and the
  // bias kernel loaded, before any batch is measured.
  if (folklore::prewarm_mode) {
    for (int b = 1; b <= max_batch; b *= 2)
      PREWARM(warmup::cublas::prewarm(handle, {warmup::cublas::gemm::fp32(width, b, width)}));
    PREWARM(warmup::prewarm_kernels(&bias_relu));
  }

  const float one = 1.0f, zero = 0.0f;
  for (int batch = 1; batch <= max_batch; batch *= 2) {
    const std::string site = site_name(batch);
    for (int call = 0; call < calls; ++call) {
      {
        // One forward pass at this batch size; the sync after it (outside the scope) is where a
        // server would read the answer.
        warmup::region_scope forward{site, stream};
        for (int l = 0; l < layers; ++l) {
          CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, width, batch, width, &one, w[l], width, act[l], width,
                            &zero, act[l + 1], width));
          const int count = width * batch;
          bias_relu<<<(count + 255) / 256, 256, 0, stream>>>(act[l + 1], bias[l], width, count);
          CHECK(cudaGetLastError());
        }
      }
      CHECK(cudaStreamSynchronize(stream));
    }
  }

  CHECK(cublasDestroy(handle));
  for (int l = 0; l < layers; ++l) {
    CHECK(cudaFree(w[l]));
    CHECK(cudaFree(bias[l]));
  }
  for (int l = 0; l <= layers; ++l) CHECK(cudaFree(act[l]));
  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
