/// @file
/// @brief Prewarm: pay a first call's costs ahead of time, on purpose, each step in a site of its
/// own, so the same report shows what the prewarm cost and that the real first call is warm.
///
/// Every step returns a `prewarm_status` (never throws, never aborts: without a GPU it says so),
/// does its work whether measurement is on or off (`WARMUP_DISABLE`, `WARMUP=off`: prewarm
/// changes what the program does, measurement does not), and may run on a thread of its own
/// while the program does its own start-up (docs/prewarm.md). Sites, by kind:
/// context "warmup::prewarm_context", region "warmup::prewarm_kernels", alloc
/// "warmup::prewarm_pool" and "warmup::pinned_buffer".
/// \code
///   warmup::prewarm_context(0);                         // the primary context, now
///   warmup::prewarm_kernels(&bias_relu, &softmax);      // load these kernels (lazy loading)
///   warmup::prewarm_pool(512 << 20, stream);            // the pool holds 512 MiB from now on
///   warmup::pinned_buffer staging{64 << 20};            // pinned once, reused by every copy
/// \endcode
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "warmup/config.hpp"
#include "warmup/op.hpp"
#include "warmup/scope.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief What one prewarm step did: success, or the CUDA error and a sentence naming the step
/// and the call that failed; and how long it took.
/// \code
///   if (const warmup::prewarm_status s = warmup::prewarm_context(); !s)
///     std::fprintf(stderr, "%s\n", s.message.c_str());  // "warmup::prewarm_context(device 0):
///                                                        //  cudaInitDevice failed: cudaErrorNoDevice: ..."
/// \endcode
struct prewarm_status {
  cudaError_t error = cudaSuccess;  ///< the first CUDA error met, or cudaSuccess
  std::string message;              ///< empty on success
  std::chrono::nanoseconds took{0};  ///< host time of the whole step
  /// @brief Whether the step succeeded: `error == cudaSuccess`.
  bool ok() const noexcept { return error == cudaSuccess; }
  /// @brief `ok()`, for `if (const auto s = warmup::prewarm_context(); !s)`.
  explicit operator bool() const noexcept { return ok(); }
};

namespace detail {

/// Times one prewarm step and words its failure. A failure leaves the runtime's last-error slot
/// as the program had it: a prewarm that fails must not be the error the program reads next.
class prewarm_step {
 public:
  explicit prewarm_step(std::string who) noexcept
      : who_(std::move(who)), pending_(cudaPeekAtLastError()), start_(std::chrono::steady_clock::now()) {}

  prewarm_status ok() const {
    prewarm_status s;
    s.took = elapsed();
    return s;
  }
  prewarm_status failed(std::string_view call, cudaError_t e) const {
    const cudaError_t error = e == cudaSuccess ? cudaErrorUnknown : e;
    return failure(error, std::string(call) + " failed: " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
  }
  /// A library's own failure (a cuBLAS status): no CUDA error to name, so cudaErrorUnknown.
  prewarm_status failed_library(const std::string& what) const { return failure(cudaErrorUnknown, what); }
  /// Refuses a stream that is capturing a graph: a prewarm step allocates and synchronises,
  /// which would end the program's capture (or record the step into its graph).
  std::optional<prewarm_status> refuse_capturing(cudaStream_t stream) const {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
      return invalid("the stream is capturing a CUDA graph: prewarm before the capture, on a stream that is not");
    return std::nullopt;
  }
  prewarm_status invalid(std::string_view why) const {
    prewarm_status s;
    s.error = cudaErrorInvalidValue;
    s.message = who_ + ": " + std::string(why);
    s.took = elapsed();
    return s;
  }

 private:
  prewarm_status failure(cudaError_t error, const std::string& what) const {
    if (pending_ == cudaSuccess) (void)cudaGetLastError();  // ours, not the program's
    prewarm_status s;
    s.error = error;
    s.message = who_ + ": " + what;
    s.took = elapsed();
    return s;
  }
  std::chrono::nanoseconds elapsed() const noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_);
  }
  std::string who_;
  cudaError_t pending_;
  std::chrono::steady_clock::time_point start_;
};

/// Loads `count` kernels (their host-side addresses) now (detail/runtime/prewarm-inl.hpp).
prewarm_status load_kernels(const void* const* kernels, std::size_t count);

}  // namespace detail

/// @brief Use this to say "the current device" to `prewarm_context`.
inline constexpr int current_device = -1;

/// @brief Creates the device's primary context now (`cudaInitDevice`), without making it
/// current on this thread, so that no later call pays for it. The first CUDA call of a process
/// also pays for the driver's own start-up: both land here. Measured as the context site
/// "warmup::prewarm_context".
/// \code
///   std::thread t{[] { warmup::prewarm_context(0); }};  // while the program reads its weights
///   load_weights();
///   t.join();
/// \endcode
prewarm_status prewarm_context(int device = current_device);

/// @brief Loads the given kernels into the current device's context now, instead of at their
/// first launch (lazy loading, the default since CUDA 12.2), and JIT-compiles any that have
/// only PTX for this GPU: only these kernels, where `CUDA_MODULE_LOADING=EAGER` would load
/// every module of the process. Call it on the device the kernels will run on (after
/// `cudaSetDevice` on a thread of its own). Measured as the region "warmup::prewarm_kernels".
/// \code
///   warmup::prewarm_kernels(&bias_relu, &layer_norm<float>, &softmax);
/// \endcode
template <class... Kernels>
prewarm_status prewarm_kernels(Kernels*... kernels) {
  static_assert((std::is_function_v<Kernels> && ...),
                "warmup::prewarm_kernels takes kernels (__global__ functions): prewarm_kernels(&k1, &k2)");
  if constexpr (sizeof...(Kernels) == 0) {
    return detail::load_kernels(nullptr, 0);
  } else {
    // CUDA names kernels by their host-side address, as in cudaLaunchKernel.
    const void* const list[] = {reinterpret_cast<const void*>(kernels)...};
    return detail::load_kernels(list, sizeof...(Kernels));
  }
}

/// @brief Makes the stream-ordered pool of `stream`'s device (the one `cudaMallocAsync` draws
/// from) hold `bytes` from now on: raises its release threshold to at least `bytes`, so that
/// no synchronisation hands the memory back, then allocates and frees `bytes` on `stream` and
/// waits for it. Give the high-water size of what the program holds allocated at once. Measured
/// as the alloc site "warmup::prewarm_pool" (its `pool` figures show the growth).
/// \code
///   warmup::prewarm_pool(std::size_t{1} << 30, stream);  // 1 GiB: later cudaMallocAsync calls map nothing
/// \endcode
prewarm_status prewarm_pool(std::size_t bytes, cudaStream_t stream = nullptr);

/// @brief Pinned (page-locked) host memory, allocated once: copies from it run at full speed and
/// without the driver's staging, and pinning (its cost per MiB is in BENCHMARKS.md) is paid here, not in the first
/// copy. Freed by the destructor (`cudaFreeHost`, which may wait for the device). Measured as
/// the alloc site "warmup::pinned_buffer".
/// \code
///   warmup::pinned_buffer staging{64 << 20};
///   if (!staging) std::fprintf(stderr, "%s\n", staging.status().message.c_str());
///   std::memcpy(staging.data(), input, n);
///   cudaMemcpyAsync(d_input, staging.data(), n, cudaMemcpyHostToDevice, stream);
/// \endcode
class pinned_buffer {
 public:
  /// @brief No memory: `data()` is null and the buffer tests false.
  pinned_buffer() noexcept = default;
  /// @brief `bytes` bytes of pinned host memory (`cudaMallocHost`); where that fails, none, and
  /// `status()` says why.
  explicit pinned_buffer(std::size_t bytes) {
    const alloc_scope s{"warmup::pinned_buffer", bytes};
    const detail::prewarm_step step{"warmup::pinned_buffer(" + std::to_string(bytes) + " bytes)"};
    if (bytes == 0) {
      status_ = step.invalid("0 bytes");
      return;
    }
    if (const cudaError_t e = cudaMallocHost(&data_, bytes); e != cudaSuccess) {
      data_ = nullptr;
      status_ = step.failed("cudaMallocHost", e);
      return;
    }
    size_ = bytes;
    status_ = step.ok();
  }
  /// @brief Frees the memory (`cudaFreeHost`).
  ~pinned_buffer() { release(); }
  /// @brief Takes `o`'s memory; `o` is left empty.
  pinned_buffer(pinned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), status_(std::move(o.status_)) {}
  /// @brief Frees this buffer's memory and takes `o`'s; `o` is left empty.
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      status_ = std::move(o.status_);
    }
    return *this;
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;

  /// @brief The memory; null where the allocation failed.
  void* data() const noexcept { return data_; }
  /// @brief Its size in bytes; 0 where the allocation failed.
  std::size_t size() const noexcept { return size_; }
  /// @brief How the allocation went: the CUDA error and a sentence where it failed.
  const prewarm_status& status() const noexcept { return status_; }
  /// @brief Whether the buffer holds memory.
  explicit operator bool() const noexcept { return data_ != nullptr; }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFreeHost(data_);  // at exit the runtime may be gone: nothing to do then
    data_ = nullptr;
    size_ = 0;
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  prewarm_status status_;
};

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
