/// @file
/// @brief Optional: prewarm cuBLAS, a handle with its workspace and one call per GEMM variant the
/// program uses. Link the CMake target `warmup::cublas` (it adds `CUDA::cublas`); the core
/// headers never include this one, so `warmup::warmup` stays free of cuBLAS.
///
/// cuBLAS loads its kernels lazily, per variant: a warm SGEMM leaves the first TF32, FP16 or
/// BF16 GEMM, or another shape, cold (tens of ms each on an H200: the README's folklore table).
/// \code
///   #include <warmup/cublas.hpp>
///
///   warmup::cublas::handle blas{stream};  // cublasCreate, stream, 32 MiB workspace
///   warmup::cublas::prewarm(blas.get(), {warmup::cublas::gemm::fp32(4096, 64, 1024),
///                                        warmup::cublas::gemm::fp16(4096, 64, 1024)});
/// \endcode
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "warmup/config.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/scope.hpp"

WARMUP_BEGIN_NAMESPACE
namespace cublas {

/// @brief One GEMM variant, as cuBLAS tells variants apart: operations, shape, types and compute
/// type. `C(m x n) = op(A) op(B)`, column-major, leading dimensions the tight ones.
/// \code
///   const auto v = warmup::cublas::gemm::tf32(4096, 4096, 4096);
///   const auto t = warmup::cublas::gemm::fp32(512, 64, 512).ops(CUBLAS_OP_T, CUBLAS_OP_N);
/// \endcode
struct gemm {
  ///@{
  /// The shape: C is m x n, the inner dimension k.
  int m = 0, n = 0, k = 0;
  ///@}
  ///@{
  /// The operations on A and on B (`CUBLAS_OP_N`, `CUBLAS_OP_T`).
  cublasOperation_t op_a = CUBLAS_OP_N, op_b = CUBLAS_OP_N;
  ///@}
  cudaDataType_t ab_type = CUDA_R_32F;  ///< A and B
  cudaDataType_t c_type = CUDA_R_32F;   ///< C
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;  ///< the compute type

  /// `cublasSgemm` with the handle's math mode (CUDA cores unless the handle allows TF32).
  static constexpr gemm fp32(int m, int n, int k) { return {m, n, k}; }
  /// FP32 data on tensor cores, rounded to TF32 (`cublasGemmEx`, `CUBLAS_COMPUTE_32F_FAST_TF32`).
  static constexpr gemm tf32(int m, int n, int k) {
    return fp32(m, n, k).types(CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
  }
  /// FP16 A, B and C, FP32 accumulation (`cublasGemmEx`).
  static constexpr gemm fp16(int m, int n, int k) {
    return fp32(m, n, k).types(CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F);
  }
  /// BF16 A, B and C, FP32 accumulation (`cublasGemmEx`).
  static constexpr gemm bf16(int m, int n, int k) {
    return fp32(m, n, k).types(CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F);
  }
  /// FP64 (`cublasDgemm`).
  static constexpr gemm fp64(int m, int n, int k) {
    return fp32(m, n, k).types(CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F);
  }

  /// The same variant with other operations on A and B (transposed: another variant to cuBLAS).
  constexpr gemm ops(cublasOperation_t a, cublasOperation_t b) const {
    gemm g = *this;
    g.op_a = a;
    g.op_b = b;
    return g;
  }
  /// The same shape with other types: A and B, C, and the compute type.
  constexpr gemm types(cudaDataType_t ab, cudaDataType_t c, cublasComputeType_t compute_type) const {
    gemm g = *this;
    g.ab_type = ab;
    g.c_type = c;
    g.compute = compute_type;
    return g;
  }
};

namespace detail {

inline std::size_t element_size(cudaDataType_t t) noexcept {
  switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: return 4;
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    case CUDA_R_8I: return 1;
    case CUDA_R_32I: return 4;
    default: return 0;
  }
}

inline std::string describe(const gemm& g) {
  const char* const ops = "NTC";
  std::string s = std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " " +
                  ops[std::min<int>(g.op_a, 2)] + ops[std::min<int>(g.op_b, 2)] + " types " +
                  std::to_string(int(g.ab_type)) + "/" + std::to_string(int(g.c_type)) + " compute " +
                  std::to_string(int(g.compute));
  return s;
}

inline std::string status_text(cublasStatus_t s) { return cublasGetStatusString(s); }

/// One call of the variant on zeroed operands; alpha = 1, beta = 0 in the compute type's scale.
inline cublasStatus_t call(cublasHandle_t h, const gemm& g, const void* a, const void* b, void* c) {
  const int lda = g.op_a == CUBLAS_OP_N ? g.m : g.k;
  const int ldb = g.op_b == CUBLAS_OP_N ? g.k : g.n;
  const int ldc = g.m;
  if (g.ab_type == CUDA_R_32F && g.c_type == CUDA_R_32F && g.compute == CUBLAS_COMPUTE_32F) {
    const float one = 1.0f, zero = 0.0f;  // the call programs make, so the kernels they load
    return cublasSgemm(h, g.op_a, g.op_b, g.m, g.n, g.k, &one, static_cast<const float*>(a), lda,
                       static_cast<const float*>(b), ldb, &zero, static_cast<float*>(c), ldc);
  }
  if (g.ab_type == CUDA_R_64F && g.c_type == CUDA_R_64F && g.compute == CUBLAS_COMPUTE_64F) {
    const double one = 1.0, zero = 0.0;
    return cublasDgemm(h, g.op_a, g.op_b, g.m, g.n, g.k, &one, static_cast<const double*>(a), lda,
                       static_cast<const double*>(b), ldb, &zero, static_cast<double*>(c), ldc);
  }
  // The scale type follows the compute type.
  const float f_one = 1.0f, f_zero = 0.0f;
  const double d_one = 1.0, d_zero = 0.0;
  const __half h_one = __float2half(1.0f), h_zero = __float2half(0.0f);
  const std::int32_t i_one = 1, i_zero = 0;
  const void* one = &f_one;
  const void* zero = &f_zero;
  switch (g.compute) {
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC: one = &d_one, zero = &d_zero; break;
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC: one = &h_one, zero = &h_zero; break;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC: one = &i_one, zero = &i_zero; break;
    default: break;
  }
  return cublasGemmEx(h, g.op_a, g.op_b, g.m, g.n, g.k, one, a, g.ab_type, lda, b, g.ab_type, ldb, zero, c,
                      g.c_type, ldc, g.compute, CUBLAS_GEMM_DEFAULT);
}

/// Device memory freed on every path out of prewarm.
struct scratch {
  void* p = nullptr;
  ~scratch() {
    if (p != nullptr) (void)cudaFree(p);
  }
};

}  // namespace detail

/// @brief Makes one call of each variant on `handle` (on its stream), then waits for them:
/// cuBLAS loads each variant's kernels and builds its heuristics' state here instead of at the
/// program's first call. Operands are scratch device memory, zeroed, freed before returning.
/// Use the program's own handle (the warm state is per handle where cuBLAS caches it). Measured
/// as the region "warmup::cublas::prewarm", device-timed on the handle's stream.
/// \code
///   warmup::cublas::prewarm(handle, {warmup::cublas::gemm::fp32(2048, 64, 1024)});
/// \endcode
inline prewarm_status prewarm(cublasHandle_t handle, std::initializer_list<gemm> variants) {
  const ::cuda_warmup::detail::prewarm_step step{"warmup::cublas::prewarm(" + std::to_string(variants.size()) +
                                                   " variants)"};
  if (handle == nullptr) return step.invalid("the handle is null: create it first (cublasCreate)");
  cudaStream_t stream = nullptr;
  if (const cublasStatus_t s = cublasGetStream(handle, &stream); s != CUBLAS_STATUS_SUCCESS)
    return step.failed_library("cublasGetStream failed: " + detail::status_text(s));
  if (auto refused = step.refuse_capturing(stream)) return *refused;
  const region_scope timed{"warmup::cublas::prewarm", stream};
  std::size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;
  for (const gemm& g : variants) {
    const std::size_t ab = detail::element_size(g.ab_type), c = detail::element_size(g.c_type);
    if (g.m <= 0 || g.n <= 0 || g.k <= 0 || ab == 0 || c == 0)
      return step.invalid("variant " + detail::describe(g) + ": sizes must be positive and the types known");
    a_bytes = std::max(a_bytes, std::size_t(g.m) * std::size_t(g.k) * ab);
    b_bytes = std::max(b_bytes, std::size_t(g.k) * std::size_t(g.n) * ab);
    c_bytes = std::max(c_bytes, std::size_t(g.m) * std::size_t(g.n) * c);
  }
  if (variants.size() == 0) return step.ok();
  detail::scratch a, b, c;
  for (auto [buf, bytes] : {std::pair{&a, a_bytes}, std::pair{&b, b_bytes}, std::pair{&c, c_bytes}}) {
    if (const cudaError_t e = cudaMalloc(&buf->p, bytes); e != cudaSuccess) return step.failed("cudaMalloc", e);
    if (const cudaError_t e = cudaMemsetAsync(buf->p, 0, bytes, stream); e != cudaSuccess)
      return step.failed("cudaMemsetAsync", e);
  }
  for (const gemm& g : variants)
    if (const cublasStatus_t s = detail::call(handle, g, a.p, b.p, c.p); s != CUBLAS_STATUS_SUCCESS)
      return step.failed_library("the GEMM " + detail::describe(g) + " failed: " + detail::status_text(s));
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return step.failed("cudaStreamSynchronize", e);
  return step.ok();
}

/// @brief A cuBLAS handle made ahead of time: `cublasCreate` (which loads cuBLAS's first
/// modules), bound to `stream`, with a workspace of its own (`cublasSetWorkspace`), so the first
/// GEMM allocates nothing. Destroys both. Measured as the region "warmup::cublas::handle".
/// \code
///   warmup::cublas::handle blas{stream, 64 << 20};
///   if (!blas) std::fprintf(stderr, "%s\n", blas.status().message.c_str());
///   cublasSgemm(blas.get(), ...);
/// \endcode
class handle {
 public:
  /// @brief Creates the handle, binds it to `stream` and gives it a workspace of
  /// `workspace_bytes` (none for 0); where a step fails, `status()` says which.
  explicit handle(cudaStream_t stream, std::size_t workspace_bytes = std::size_t{32} << 20) {
    const region_scope timed{"warmup::cublas::handle"};
    const ::cuda_warmup::detail::prewarm_step step{"warmup::cublas::handle"};
    if (const cublasStatus_t s = cublasCreate(&handle_); s != CUBLAS_STATUS_SUCCESS) {
      handle_ = nullptr;
      status_ = step.failed_library("cublasCreate failed: " + detail::status_text(s));
      return;
    }
    if (const cublasStatus_t s = cublasSetStream(handle_, stream); s != CUBLAS_STATUS_SUCCESS) {
      status_ = step.failed_library("cublasSetStream failed: " + detail::status_text(s));
      return;
    }
    if (workspace_bytes != 0) {
      if (const cudaError_t e = cudaMalloc(&workspace_, workspace_bytes); e != cudaSuccess) {
        workspace_ = nullptr;
        status_ = step.failed("cudaMalloc(workspace)", e);
        return;
      }
      if (const cublasStatus_t s = cublasSetWorkspace(handle_, workspace_, workspace_bytes); s != CUBLAS_STATUS_SUCCESS) {
        status_ = step.failed_library("cublasSetWorkspace failed: " + detail::status_text(s));
        return;
      }
    }
    status_ = step.ok();
  }
  ~handle() {
    if (handle_ != nullptr) (void)cublasDestroy(handle_);
    if (workspace_ != nullptr) (void)cudaFree(workspace_);
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;

  /// @brief The cuBLAS handle; null where `cublasCreate` failed.
  cublasHandle_t get() const noexcept { return handle_; }
  /// @brief How making it went: the error and a sentence naming the step that failed.
  const prewarm_status& status() const noexcept { return status_; }
  /// @brief Whether every step succeeded.
  explicit operator bool() const noexcept { return handle_ != nullptr && status_.ok(); }

 private:
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  prewarm_status status_;
};

}  // namespace cublas
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
