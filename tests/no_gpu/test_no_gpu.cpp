// Without a usable GPU (no driver, no device, CUDA_VISIBLE_DEVICES=""), device-timed scopes
// keep host timing, say why once, and leave no CUDA error behind. Exits 77 (skipped) where a
// GPU is visible: there the GPU tests cover device timing.
#include "catch.hpp"
#include "catch_run.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "warmup/cublas.hpp"
#include "warmup/detail/cuda_driver.hpp"
#include "warmup/detail/record/memory_probe.hpp"
#include "warmup/profile.hpp"

namespace {
// Runs f with stderr sent to a file, and returns what was written there.
template <class F>
std::string capture_stderr(F&& f) {
  char path[] = "/tmp/warmup-stderr-XXXXXX";
  const int fd = mkstemp(path);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path);
  return ss.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("device-timed scopes without a GPU: host timing, one notice, no error changed") {
  // Without a driver the runtime reports its own failure from every call, cudaGetLastError
  // included: what the program sees must be what it saw before the scopes ran.
  const cudaError_t before = cudaPeekAtLastError();
  static unsigned char host_buffer[4096];  // a copy's host side: no driver to ask whether it is pinned
  const std::string err = capture_stderr([] {
    // The process's first device-timed call, alone, its scope looking for a GPU (the probe)
    // before its clock starts; then a call that begins once it has ended.
    { warmup::launch_scope k{"nogpu.first", cudaStreamPerThread}; }
    { warmup::region_scope next{"nogpu.next"}; }
    for (int i = 0; i < 100; ++i) {
      warmup::launch_scope k{"nogpu.launch", cudaStreamPerThread};
      warmup::h2d_scope c{"nogpu.copy", std::size_t{4096}, nullptr};
      warmup::d2h_scope d{"nogpu.download", sizeof host_buffer, nullptr, host_buffer};
      WARMUP_SCOPE("nogpu.macro", nullptr);
    }
  });
  CHECK(count(err, "warmup: device timing is off") == 1);
  CHECK(cudaPeekAtLastError() == before);

  const warmup::report r = warmup::snapshot();
  CHECK_FALSE(r.device);
  // The library's look for a GPU is its own cost, not the first call's: a body that could do no
  // GPU work is no slower the first time for it (0.1 read "first call 4367x"). Judged by order,
  // not by length, so that the machine's load cannot decide it: the call's time, from its start,
  // ends before the next call begins; with the probe counted in it, it would run past that by
  // the probe's length, far more than the little work between the two calls.
  CHECK(r.library.device_probe.count() > 0);
  const auto* first = r.find(warmup::op_kind::launch, "nogpu.first");
  const auto* next = r.find(warmup::op_kind::region, "nogpu.next");
  REQUIRE((first != nullptr && next != nullptr && !first->timeline.empty() && !next->timeline.empty()));
  const warmup::call_record& a = first->timeline.front();
  const warmup::call_record& b = next->timeline.front();
  INFO("first call at " << a.host_start.count() << " ns for " << a.host.count() << " ns, the next at "
                        << b.host_start.count() << " ns; probes " << r.library.device_probe.count() << " ns");
  CHECK(a.host == first->host.first);
  CHECK(a.host_start + a.host <= b.host_start);
  CHECK(r.device_status.find("cudaGetDeviceCount") != std::string::npos);
  REQUIRE(r.notices.size() == 1);
  for (const auto& [name, op] : {std::pair{"nogpu.launch", warmup::op_kind::launch},
                                 std::pair{"nogpu.copy", warmup::op_kind::h2d},
                                 std::pair{"nogpu.download", warmup::op_kind::d2h},
                                 std::pair{"nogpu.macro", warmup::op_kind::region}}) {
    const auto* s = r.find(op, name);
    REQUIRE(s != nullptr);
    CHECK(s->calls == 100);
    CHECK(s->host.calls == 100);
    CHECK_FALSE(s->device);
    CHECK(s->device_untimed.unavailable == 100);
    // Device-timed first calls read no device memory where there is no device: nothing
    // recorded, no second notice (the one above says why).
    REQUIRE(s->first_call_host);
    CHECK_FALSE(s->first_call_host->device_memory_taken);
  }
  // A copy given its host pointer: its calls and bytes counted as any copy's; with no driver to
  // answer, none is counted as pinned or as pageable.
  const auto* download = r.find(warmup::op_kind::d2h, "nogpu.download");
  REQUIRE(download != nullptr);
  REQUIRE(download->bytes);
  CHECK(download->bytes->first == 4096);
  CHECK(download->bytes->total == 100 * 4096);
  CHECK_FALSE(download->bytes->sizes_vary);
  CHECK(download->bytes->host_pinned_calls == 0);
  CHECK(download->bytes->host_pageable_calls == 0);
  CHECK(warmup::to_json(r).find("\"device_memory_taken\":null") != std::string::npos);
  const std::string j = warmup::to_json(r);
  CHECK(j.find("\"enabled\":true,\"identity\":{") != std::string::npos);
  CHECK(j.find("},\"device\":null,") != std::string::npos);  // no device described
  CHECK(j.find("\"device\":null,\"bytes\":") != std::string::npos);        // and no site device-timed
}

// A host function stands in for a kernel (this file is C++, not CUDA): without a GPU the runtime
// fails before it looks the symbol up.
void nogpu_kernel(int* x) { *x = 1; }

TEST_CASE("every prewarm step without a GPU: an error status that names the step and the call") {
  // Prewarm is asked for by the program: it must say it failed, clearly, and never abort.
  const cudaError_t before = cudaPeekAtLastError();
  const auto named = [](const warmup::prewarm_status& s, const std::string& step, const std::string& call) {
    CHECK_FALSE(s.ok());
    CHECK_FALSE(static_cast<bool>(s));
    CHECK(s.error != cudaSuccess);
    CHECK(s.message.rfind(step, 0) == 0);  // starts with the step
    CHECK(s.message.find(call + " failed: ") != std::string::npos);
    CHECK(s.message.find(cudaGetErrorName(s.error)) != std::string::npos);
  };
  named(warmup::prewarm_context(0), "warmup::prewarm_context(device 0)", "cudaInitDevice");
  named(warmup::prewarm_kernels(&nogpu_kernel), "warmup::prewarm_kernels(1 kernels)", "cudaGetFuncBySymbol(kernel 1 of 1)");
  named(warmup::prewarm_pool(std::size_t{1} << 20, nullptr), "warmup::prewarm_pool(1048576 bytes)", "cudaStreamGetDevice");
  const warmup::pinned_buffer staging{std::size_t{1} << 20};
  CHECK_FALSE(staging);
  CHECK(staging.data() == nullptr);
  CHECK(staging.size() == 0);
  named(staging.status(), "warmup::pinned_buffer(1048576 bytes)", "cudaMallocHost");
  const warmup::cublas::handle blas{nullptr};
  CHECK_FALSE(blas);
  CHECK(blas.status().message.rfind("warmup::cublas::handle: cublasCreate failed: ", 0) == 0);
  const auto gemm = warmup::cublas::prewarm(blas.get(), {warmup::cublas::gemm::fp32(64, 64, 64)});
  CHECK_FALSE(gemm.ok());
  CHECK(gemm.message.find("the handle is null") != std::string::npos);

  // The loop stops at its first call, with the failed synchronisation in its status.
  int calls = 0;
  const warmup::steady_result r = warmup::warmup_until_steady("nogpu.until_steady", [&] { ++calls; }, cudaStream_t{});
  CHECK(calls == 1);
  CHECK(r.calls == 1);
  CHECK(r.why == warmup::steady_stop::error);
  CHECK_FALSE(r.steady());
  CHECK(r.status.message.find("warmup_until_steady(\"nogpu.until_steady\"): cudaStreamSynchronize failed: ") == 0);
  CHECK(cudaPeekAtLastError() == before);

  // Each step's site is in the report, with the calls it made.
  const warmup::report rep = warmup::snapshot();
  for (const auto& [name, op] : {std::pair{"warmup::prewarm_context", warmup::op_kind::context},
                                 std::pair{"warmup::prewarm_kernels", warmup::op_kind::region},
                                 std::pair{"warmup::prewarm_pool", warmup::op_kind::alloc},
                                 std::pair{"warmup::pinned_buffer", warmup::op_kind::alloc},
                                 std::pair{"warmup::cublas::handle", warmup::op_kind::region},
                                 std::pair{"nogpu.until_steady", warmup::op_kind::region}}) {
    const auto* s = rep.find(op, name);
    REQUIRE(s != nullptr);
    CHECK(s->calls == 1);
  }
}

// The driver's table (detail/cuda_driver.hpp), filled from drivers of the test's own: a function
// a driver lacks turns off the features that need it, and those alone, naming it; nothing else.
namespace {
// A driver that has every function but the one named in `context` (nullptr: it has them all).
void* driver_without(const char* name, int, void* context) noexcept {
  static int any_function;
  const char* missing = static_cast<const char*>(context);
  return missing != nullptr && std::string(name) == missing ? nullptr : &any_function;
}
}  // namespace

TEST_CASE("the driver's table: a missing function turns off the features that need it, naming it") {
  using warmup::detail::cuda_driver;
  using warmup::detail::driver_feature;
  constexpr driver_feature all[] = {driver_feature::device_timing, driver_feature::context_probe,
                                    driver_feature::memory_free,   driver_feature::pool_reserve,
                                    driver_feature::host_memory_kind, driver_feature::kernel_loading};
  static_assert(std::size(all) == warmup::detail::driver_feature_count);
  const auto off = [&](const char* missing) {
    const cuda_driver d = cuda_driver::look_up(&driver_without, const_cast<char*>(missing));
    std::vector<driver_feature> out;
    for (const driver_feature f : all) {
      if (!d.has(f)) {
        CHECK(std::string(d.missing(f)) == missing);
        out.push_back(f);
      }
    }
    return out;
  };
  using v = std::vector<driver_feature>;
  CHECK(off(nullptr).empty());
  CHECK(off("cuEventRecord") == v{driver_feature::device_timing});
  CHECK(off("cuStreamGetCtx") == v{driver_feature::device_timing});
  CHECK(off("cuThreadExchangeStreamCaptureMode") == v{driver_feature::device_timing});
  CHECK(off("cuCtxGetCurrent") == v{driver_feature::device_timing, driver_feature::memory_free});
  CHECK(off("cuDevicePrimaryCtxGetState") == v{driver_feature::context_probe});
  CHECK(off("cuMemGetInfo") == v{driver_feature::memory_free});
  CHECK(off("cuDeviceGetMemPool") == v{driver_feature::pool_reserve});
  CHECK(off("cuMemPoolGetAttribute") == v{driver_feature::pool_reserve});
  CHECK(off("cuStreamGetDevice").empty());  // the pool's device then comes from the context
  CHECK(off("cuPointerGetAttribute") == v{driver_feature::host_memory_kind});
  CHECK(off("cuFuncIsLoaded") == v{driver_feature::kernel_loading});
  // A table never filled from a driver (the shared state's, before device timing was found
  // possible) has every feature off.
  const cuda_driver unfilled;
  for (const driver_feature f : all) CHECK_FALSE(unfilled.has(f));
}

TEST_CASE("without a GPU the driver's table, where there is one, leaves the memory probes silent") {
  // Where libcuda is not loaded the table is not there; where it is (a driver without a visible
  // device), no probe may use it before the runtime was seen working.
  if (const warmup::detail::cuda_driver* d = warmup::detail::cuda_driver_table()) CHECK(d == warmup::detail::cuda_driver_table());
  CHECK_FALSE(warmup::detail::pool_reserved(nullptr));
  static unsigned char host_buffer[64];
  CHECK(warmup::detail::classify_host_memory(host_buffer) == warmup::detail::host_memory_kind::unknown);
}

int warmup_test::before_tests() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
    std::puts("a GPU is visible: this test is for machines without one (skipped)");
    return warmup_test::skipped;
  }
  return -1;
}
