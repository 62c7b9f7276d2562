// What the cuBLAS examples (batching, cublas_variants) share: cuBLAS statuses checked as CUDA's
// are (folklore::check, so CHECK takes both), and the handle made in a site of its own.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>

#include <warmup/profile.hpp>

#include "folklore.hpp"

namespace folklore {

inline bool check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "%s: %s failed: %s\n", program_name, what, cublasGetStatusString(s));
  return false;
}

// The site of cublasCreate: what a handle costs, apart from every GEMM after it.
inline const char* const cublas_create_site = "cublasCreate";

// cublasCreate in its own site, then the handle bound to `stream`, so that every call on it is
// timed on the device too. False (after saying which call failed) where either fails.
inline bool create_handle(cublasHandle_t& handle, cudaStream_t stream) {
  {
    warmup::region_scope s{cublas_create_site};
    if (!check(cublasCreate(&handle), "cublasCreate(&handle)")) return false;
  }
  return check(cublasSetStream(handle, stream), "cublasSetStream(handle, stream)");
}

}  // namespace folklore
