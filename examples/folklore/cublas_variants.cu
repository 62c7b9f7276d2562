// cublas_variants: "warm up cuBLAS once and you are done", measured: warm-up is per variant.
//
// After cublasCreate, four variants of the same 4096 x 4096 x 4096 GEMM run 20 times each, one
// variant after the other: FP32 SGEMM, TF32 on tensor cores (cublasGemmEx with
// CUBLAS_COMPUTE_32F_FAST_TF32), FP16 and BF16 inputs on tensor cores (FP32 accumulation).
// Each variant is its own site, timed on the host and, on the handle's stream, on the device.
// A warm SGEMM does not make the first TF32, FP16 or BF16 call warm: each loads its own kernels.
// The steady TFLOP/s of each comes from its device p50 in the report.
//
//   cublas_variants                 print the report and the findings
//   cublas_variants --json FILE     also write the JSON report to FILE
//   cublas_variants --prewarm       one call of each of the four variants first (warmup::cublas::prewarm)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <iostream>

#include <warmup/cublas.hpp>
#include <warmup/profile.hpp>

#include "cublas_handle.hpp"
#include "folklore.hpp"

namespace {

using folklore::check;
using folklore::first_vs_steady;
using folklore::fmt;

constexpr const char* program = "cublas_variants";
constexpr int n = 4096;  // m = n = k
constexpr std::size_t elements = std::size_t(n) * n;
constexpr int calls = 20;

// Deterministic values in [-1, 1), converted to T (float, __half or __nv_bfloat16).
template <class T>
__global__ void fill(T* x, std::size_t count, unsigned seed) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < count) x[i] = T(float((i * 2654435761u + seed) % 2048u) / 1024.0f - 1.0f);
}

const char* const variant_sites[] = {"SGEMM fp32 4096^3", "GemmEx tf32 4096^3", "GemmEx fp16 4096^3",
                                     "GemmEx bf16 4096^3"};

void print_findings(const warmup::report& r) {
  if (const auto* c = r.find(warmup::op_kind::region, folklore::cublas_create_site))
    std::cout << "finding: cublasCreate costs " << fmt(c->host.first) << " once\n";
  for (const char* name : variant_sites) {
    const auto* s = r.find(warmup::op_kind::launch, name);
    if (s == nullptr) continue;
    std::cout << "finding: the first " << name << " call is cold on the host: " << first_vs_steady(s->host);
    if (s->device && s->device->steady) {
      const double tflops = 2.0 * n * double(n) * n / double(s->device->steady->p50.count()) / 1e3;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f TFLOP/s", tflops);
      std::cout << "; device " << first_vs_steady(*s->device) << ", steady " << buf;
    }
    std::cout << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (const int status = folklore::start(argc, argv, program)) return status;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;  // on `stream`: every GEMM below is timed on the device too
  if (!folklore::create_handle(handle, stream)) return folklore::fail();
  // --prewarm: one call of each variant below, on this handle, before any is measured.
  if (folklore::prewarm_mode) {
    using warmup::cublas::gemm;
    PREWARM(warmup::cublas::prewarm(handle, {gemm::fp32(n, n, n), gemm::tf32(n, n, n), gemm::fp16(n, n, n),
                                             gemm::bf16(n, n, n)}));
  }

  // Operands: A, B, C in FP32 (SGEMM and TF32), FP16 and BF16 (C in the same type as A and B).
  float *a32, *b32, *c32;
  __half *a16, *b16, *c16;
  __nv_bfloat16 *abf, *bbf, *cbf;
  CHECK(cudaMalloc(&a32, elements * sizeof(float)));
  CHECK(cudaMalloc(&b32, elements * sizeof(float)));
  CHECK(cudaMalloc(&c32, elements * sizeof(float)));
  CHECK(cudaMalloc(&a16, elements * sizeof(__half)));
  CHECK(cudaMalloc(&b16, elements * sizeof(__half)));
  CHECK(cudaMalloc(&c16, elements * sizeof(__half)));
  CHECK(cudaMalloc(&abf, elements * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&bbf, elements * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&cbf, elements * sizeof(__nv_bfloat16)));
  const unsigned grid = unsigned((elements + 255) / 256);
  fill<<<grid, 256, 0, stream>>>(a32, elements, 1);
  fill<<<grid, 256, 0, stream>>>(b32, elements, 2);
  fill<<<grid, 256, 0, stream>>>(a16, elements, 1);
  fill<<<grid, 256, 0, stream>>>(b16, elements, 2);
  fill<<<grid, 256, 0, stream>>>(abf, elements, 1);
  fill<<<grid, 256, 0, stream>>>(bbf, elements, 2);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));

  const float one = 1.0f, zero = 0.0f;
  // 1. FP32 SGEMM (CUDA cores; the default math mode does not use TF32).
  for (int i = 0; i < calls; ++i) {
    warmup::launch_scope s{variant_sites[0], stream};
    CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a32, n, b32, n, &zero, c32, n));
  }
  // 2. The same FP32 data on tensor cores, rounded to TF32.
  for (int i = 0; i < calls; ++i) {
    warmup::launch_scope s{variant_sites[1], stream};
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a32, CUDA_R_32F, n, b32, CUDA_R_32F, n, &zero,
                       c32, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  }
  // 3. FP16 inputs and output, FP32 accumulation (alpha and beta are then float).
  for (int i = 0; i < calls; ++i) {
    warmup::launch_scope s{variant_sites[2], stream};
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a16, CUDA_R_16F, n, b16, CUDA_R_16F, n, &zero,
                       c16, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  // 4. BF16, the same way.
  for (int i = 0; i < calls; ++i) {
    warmup::launch_scope s{variant_sites[3], stream};
    CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, abf, CUDA_R_16BF, n, bbf, CUDA_R_16BF, n, &zero,
                       cbf, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  CHECK(cudaStreamSynchronize(stream));

  CHECK(cublasDestroy(handle));
  for (void* p : {(void*)a32, (void*)b32, (void*)c32, (void*)a16, (void*)b16, (void*)c16, (void*)abf, (void*)bbf, (void*)cbf})
    CHECK(cudaFree(p));
  CHECK(cudaStreamDestroy(stream));
  return folklore::finish(0, print_findings);
}
