/// @file
/// @brief The report's description of the current GPU (`report::device`): made once per process,
/// with calls that create no context, and never at exit in a program that did not use CUDA.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "warmup/detail/process.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The device description, made once and kept in storage that is never destroyed: the report
/// at exit reads it after static destructors have run.
struct described_device {
  std::mutex m;
  bool done = false;
  std::optional<device_description> d;
};

inline described_device& device_cache() noexcept {
  return shared<described_device, slot::device_cache>();
}

/// A GPU's UUID as nvidia-smi writes it.
inline std::string uuid_text(const unsigned char (&b)[16]) {
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

/// What the report's `device_status` says, given device timing's state and whether the device
/// was `described`.
inline std::string device_status(const cuda_state& st, bool described) {
  if (st.runtime.load() == cuda_state::unavailable) return st.why_unavailable;
  if (described) return "ok";
  if (st.runtime.load() == cuda_state::unknown)
    return "not described: no scope was given a stream, so the library never asked CUDA for a device";
  if (st.closed.load()) return "not described: the program was exiting and CUDA may already be shut down";
  return "the current device could not be described";
}

/// The report's description of device `index` from its properties (the versions apart).
inline device_description description_of(int index, const cudaDeviceProp& p) {
  device_description d;
  d.index = index;
  d.name = p.name;
  unsigned char uuid[16];
  std::memcpy(uuid, p.uuid.bytes, sizeof uuid);
  d.uuid = uuid_text(uuid);
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  return d;
}

/// Describes the current device once per process, with calls that create no context.
inline std::optional<device_description> describe_device(std::string& status) {
  described_device& c = device_cache();
  std::lock_guard<std::mutex> lock(c.m);
  const cuda_state& st = cuda();
  // At exit, a program that never asked for device timing is not made to initialise CUDA now.
  const bool probed = st.runtime.load() != cuda_state::unknown;
  if (!c.done && (probed || !st.closed.load())) {
    c.done = true;
    if (runtime_available()) {
      const cudaError_t before = cudaPeekAtLastError();
      int index = 0;
      cudaDeviceProp p{};
      if (cudaGetDevice(&index) == cudaSuccess && cudaGetDeviceProperties(&p, index) == cudaSuccess) {
        device_description d = description_of(index, p);
        (void)cudaDriverGetVersion(&d.driver_version);
        (void)cudaRuntimeGetVersion(&d.runtime_version);
        c.d = d;
      }
      if (before == cudaSuccess) forget_own_error(cudaPeekAtLastError());
    }
  }
  status = device_status(st, c.d.has_value());
  return c.d;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
