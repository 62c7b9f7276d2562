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
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include <warmup/profile.hpp>

namespace {

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

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s failed: %s\n", program, what, cudaGetErrorString(e));
  return false;
}
bool check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "%s: %s failed: %s\n", program, what, cublasGetStatusString(s));
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

const char* const create_site = "cublasCreate";
const char* const variant_sites[] = {"SGEMM fp32 4096^3", "GemmEx tf32 4096^3", "GemmEx fp16 4096^3",
                                     "GemmEx bf16 4096^3"};

void print_findings(const warmup::report& r) {
  if (const auto* c = find(r, warmup::op_kind::region, create_site))
    std::cout << "finding: cublasCreate costs " << fmt(c->host.first) << " once\n";
  for (const char* name : variant_sites) {
    const auto* s = find(r, warmup::op_kind::launch, name);
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

}  // namespace

// On a failed CUDA or cuBLAS call: say which, print the report so far, exit 1.
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
    warmup::context_scope init{"cudaSetDevice + cudaFree(0)"};
    gpu = check(cudaSetDevice(0), "cudaSetDevice(0)") && check(cudaFree(nullptr), "cudaFree(0)");
  }
  if (!gpu) {
    std::fprintf(stderr, "%s: no usable GPU\n", program);
    return 77;
  }
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  {
    warmup::region_scope s{create_site};
    CHECK(cublasCreate(&handle));
  }
  CHECK(cublasSetStream(handle, stream));  // every GEMM below on `stream`: device-timed

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
  return finish(json_path, 0);
}
