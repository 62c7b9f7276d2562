// Device timing on a real GPU. Exits 77 (skipped) where there is none.
#include "catch.hpp"
#include "catch_run.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <sstream>
#include <vector>

#include "gpu_support.cuh"
#include "warmup/profile.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"  // the event-pair floor as stored

namespace {

#define CHECK_CUDA(call) REQUIRE((call) == cudaSuccess)

using gpu_support::spin;

__global__ void empty() {}
__global__ void prewarmed_only(int* x) { *x = 7; }  // loaded by prewarm_kernels before any launch

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST_CASE("device time of a 1 ms kernel agrees with a raw event pair within 2%") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<double> raw_ms;
  for (int i = 0; i < 40; ++i) {
    {
      warmup::launch_scope k{"gpu.spin_1ms", s};
      CHECK_CUDA(cudaEventRecord(a, s));
      spin<<<1, 1, 0, s>>>(1'000'000);
      CHECK_CUDA(cudaEventRecord(b, s));
    }
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    raw_ms.push_back(ms);
  }
  const warmup::report r = warmup::snapshot();
  const auto* site = r.find(warmup::op_kind::launch, "gpu.spin_1ms");
  REQUIRE(site != nullptr);
  REQUIRE(site->device);
  CHECK(site->device->calls == 40);
  REQUIRE(site->device->steady);
  const double ours = double(site->device->steady->p50.count()) / 1e6;
  const double theirs = median(raw_ms);
  INFO("warmup p50 " << ours << " ms, raw events median " << theirs << " ms");
  CHECK(ours == Approx(theirs).epsilon(0.02));
  CHECK(ours >= 1.0);
  // The event-pair floor, measured once on the device, is reported as measured: it is stored plus
  // one, so that 0 can mean not measured.
  REQUIRE(r.device);
  const std::uint64_t stored =
      warmup::detail::cuda().pair_floor_ns[static_cast<std::size_t>(r.device->index)].load();
  REQUIRE(stored != 0);
  REQUIRE(r.device->event_pair_floor);
  CHECK(r.device->event_pair_floor->count() == static_cast<long long>(stored - 1));
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("1000 timed launches return before the GPU has run them: no hidden synchronisation", "[timing]") {
  // A stream holds about a thousand pending operations; past that the launching thread waits
  // for the GPU, with or without this library (seen on an H200: 500 raw event-timed launches
  // on one stream behind a busy kernel block the host). So the 1000 launches are spread over
  // four streams, each held busy for 300 ms, and raw events doing the same are the control.
  constexpr int streams = 4, launches = 1000;
  cudaStream_t s[streams];
  for (auto& x : s) CHECK_CUDA(cudaStreamCreate(&x));
  empty<<<1, 1>>>();  // load the kernel outside the measurement
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> raw(2 * launches);
  for (auto& e : raw) CHECK_CUDA(cudaEventCreate(&e));

  const auto busy_loop = [&](bool with_scopes) {
    for (auto& x : s) spin<<<1, 1, 0, x>>>(300'000'000);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) {
      cudaStream_t x = s[i % streams];
      if (with_scopes) {
        warmup::launch_scope k{"gpu.empty_1000", x};
        empty<<<1, 1, 0, x>>>();
      } else {
        cudaEventRecord(raw[2 * i], x);
        empty<<<1, 1, 0, x>>>();
        cudaEventRecord(raw[2 * i + 1], x);
      }
    }
    return std::chrono::steady_clock::now() - t0;
  };
  const auto all_busy = [&] {
    int n = 0;
    for (auto& x : s) n += cudaStreamQuery(x) == cudaErrorNotReady;
    return n == streams;
  };

  // The scenario must hold for raw events first (under compute-sanitizer, which slows every
  // launch, it does not: .ci/gpu-run leaves [timing] cases out there).
  warmup::set_device_sampling(warmup::device_sampling::every_call);  // all 1000 on the device
  const auto control = busy_loop(false);
  REQUIRE(all_busy());
  REQUIRE(control < std::chrono::milliseconds(300));
  CHECK_CUDA(cudaDeviceSynchronize());

  const auto timed = busy_loop(true);
  // Had any scope waited for its events, the loop would have waited for the 300 ms spins.
  CHECK(all_busy());
  CHECK(timed < std::chrono::milliseconds(300));

  // A polling snapshot does not wait either; the unfinished measurements are pending.
  const warmup::report early = warmup::snapshot();
  CHECK(all_busy());
  CHECK(early.device_pending >= launches);
  CHECK(cudaGetLastError() == cudaSuccess);  // polling left no error behind

  const warmup::report done = warmup::snapshot(warmup::device_wait::yes);
  CHECK(done.device_pending == 0);
  const auto* site = done.find(warmup::op_kind::launch, "gpu.empty_1000");
  REQUIRE(site != nullptr);
  CHECK(site->calls == launches);
  REQUIRE(site->device);
  CHECK(site->device->calls == launches);
  CHECK(site->device_untimed.dropped == 0);
  warmup::set_device_sampling(warmup::device_sampling::adaptive);
  for (auto& e : raw) CHECK_CUDA(cudaEventDestroy(e));
  for (auto& x : s) CHECK_CUDA(cudaStreamDestroy(x));
}

TEST_CASE("scopes inside a graph capture: host time only, the capture stays valid") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 3; ++i) {
    warmup::launch_scope k{"gpu.captured", s};
    empty<<<1, 1, 0, s>>>();
  }
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(cudaGetLastError() == cudaSuccess);
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 3);  // the kernels only: no event nodes from the library

  const warmup::report r = warmup::snapshot();
  const auto* site = r.find(warmup::op_kind::launch, "gpu.captured");
  REQUIRE(site != nullptr);
  CHECK(site->calls == 3);
  CHECK(site->device_untimed.captured == 3);
  CHECK_FALSE(site->device);
  CHECK(to_json(r).find("\"captured\":3") != std::string::npos);
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("copies on a stream report device time and bandwidth") {
  const std::size_t bytes = std::size_t{64} << 20;
  void *host = nullptr, *dev = nullptr;
  CHECK_CUDA(cudaMallocHost(&host, bytes));
  CHECK_CUDA(cudaMalloc(&dev, bytes));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  for (int i = 0; i < 10; ++i) {
    warmup::h2d_scope up{"gpu.upload_64MiB", bytes, s};
    CHECK_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
  }
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  const auto* site = r.find(warmup::op_kind::h2d, "gpu.upload_64MiB");
  REQUIRE(site != nullptr);
  REQUIRE(site->device);
  REQUIRE(site->bytes);
  REQUIRE(site->bytes->steady_gbps);
  INFO("pinned H2D " << *site->bytes->steady_gbps << " GB/s");
  // From the device clock, bytes per ns (GB/s): first, steady and mean, each exactly bytes over
  // the device time it came with; a factor of two or GiB for GB fails.
  CHECK(site->bytes->gbps_clock == warmup::clock_domain::device);
  const double b = double(bytes);
  REQUIRE(site->device->steady);
  CHECK(*site->bytes->steady_gbps == b / double(site->device->steady->p50.count()));
  REQUIRE(site->bytes->first_gbps);
  CHECK(*site->bytes->first_gbps == b / double(site->device->first.count()));
  REQUIRE(site->bytes->mean_gbps);
  CHECK(site->device->calls == 10);
  CHECK(*site->bytes->mean_gbps == 10 * b / double(site->device->total.count()));
  // And physically plausible: PCIe or better, below any link there is.
  CHECK(*site->bytes->steady_gbps > 5.0);
  CHECK(*site->bytes->steady_gbps < 1000.0);
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("a device-timed first call says the device memory it took; later calls read nothing") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));  // the context exists before the first call
  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<void*> kept;
  for (int i = 0; i < 3; ++i) {
    warmup::alloc_scope a{"gpu.memory_taken", bytes, s};
    void* p = nullptr;
    CHECK_CUDA(cudaMalloc(&p, bytes));
    kept.push_back(p);
  }
  { warmup::region_scope host_only{"gpu.memory_host_timed"}; }
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  const auto* site = r.find(warmup::op_kind::alloc, "gpu.memory_taken");
  REQUIRE((site && site->first_call_host && site->first_call_host->device_memory_taken));
  INFO("took " << *site->first_call_host->device_memory_taken << " bytes");
  // 256 MiB, give or take the driver's own pages; device-wide, so nothing smaller.
  CHECK(*site->first_call_host->device_memory_taken >= static_cast<std::int64_t>(bytes));
  CHECK(*site->first_call_host->device_memory_taken < static_cast<std::int64_t>(bytes + (std::size_t{64} << 20)));
  const auto* host_only = r.find(warmup::op_kind::region, "gpu.memory_host_timed");
  REQUIRE((host_only && host_only->first_call_host));
  CHECK_FALSE(host_only->first_call_host->device_memory_taken);  // no device, no reading
  std::ostringstream table;
  warmup::print(r, table);
  CHECK(table.str().find("MiB of device memory") != std::string::npos);
  for (void* p : kept) CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("adaptive device sampling keeps the steady p50 within 2% of timing every call", "[timing]") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  constexpr int calls = 3000;
  const auto run = [&](const char* name, warmup::device_sampling policy) {
    warmup::set_device_sampling(policy);
    for (int i = 0; i < calls; ++i) {
      {
        warmup::launch_scope k{name, s};
        spin<<<1, 1, 0, s>>>(20'000);
      }
      if (i % 256 == 255) CHECK_CUDA(cudaStreamSynchronize(s));
    }
    CHECK_CUDA(cudaStreamSynchronize(s));
  };
  // A GPU and a CPU idle a minute before start slow: launches get faster by 4x as their clocks
  // rise, which the sampler rightly takes for a change of the site (seen: 1787 and 2038 calls
  // device-timed). Launch, unmeasured, until they are up.
  for (int i = 0; i < 20'000; ++i) {
    spin<<<1, 1, 0, s>>>(2'000);
    if (i % 256 == 255) CHECK_CUDA(cudaStreamSynchronize(s));
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  run("gpu.every_call", warmup::device_sampling::every_call);
  run("gpu.adaptive", warmup::device_sampling::adaptive);
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  const auto* every = r.find(warmup::op_kind::launch, "gpu.every_call");
  const auto* sampled = r.find(warmup::op_kind::launch, "gpu.adaptive");
  REQUIRE(every != nullptr);
  REQUIRE(sampled != nullptr);
  REQUIRE(every->device);
  REQUIRE(sampled->device);
  CHECK(every->device->calls == calls);
  CAPTURE(sampled->device->calls);
  CHECK(sampled->device->calls < calls / 2);  // most calls were host-timed only (527 to 779 seen)
  CHECK(sampled->device->calls + sampled->device_untimed.sampled_out == calls);
  const double a = double(every->device->steady->p50.count()), b = double(sampled->device->steady->p50.count());
  INFO("every call: p50 " << a << " ns over " << every->device->calls << " calls; adaptive: p50 " << b << " ns over "
                          << sampled->device->calls << " calls");
  CHECK(b == Approx(a).epsilon(0.02));
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("prewarm on four threads while the main thread launches: every step succeeds, nothing is lost") {
  // What a program does when it prewarms during its own start-up: the steps race each other
  // and the program's work; the driver serialises what must be, the library records every call.
  constexpr int threads = 4;
  std::vector<warmup::prewarm_status> statuses(3 * threads);
  std::vector<warmup::steady_result> steady(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      statuses[3 * t] = warmup::prewarm_context(0);
      (void)cudaSetDevice(0);
      cudaStream_t s = nullptr;
      (void)cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      statuses[3 * t + 1] = warmup::prewarm_kernels(&prewarmed_only, &empty);
      statuses[3 * t + 2] = warmup::prewarm_pool(std::size_t{8} << 20, s);
      warmup::steady_limits l;
      l.max_calls = 200;
      l.tolerance = 0.5;  // the point is the concurrency, not the tightness
      steady[t] = warmup::warmup_until_steady("gpu.prewarm.until_steady", [&] { empty<<<1, 1, 0, s>>>(); }, s, l);
      (void)cudaStreamDestroy(s);
    });
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  for (int i = 0; i < 200; ++i) {
    warmup::launch_scope k{"gpu.prewarm.main", s};
    empty<<<1, 1, 0, s>>>();
  }
  for (auto& t : pool) t.join();
  for (const auto& st : statuses) {
    INFO(st.message);
    CHECK(st.ok());
  }
  std::size_t until_steady_calls = 0;
  for (const auto& r : steady) {
    INFO(r.status.message);
    CHECK(r.why != warmup::steady_stop::error);
    until_steady_calls += r.calls;
  }
  // The kernel only prewarm touched launches and runs correctly.
  int* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, sizeof(int)));
  prewarmed_only<<<1, 1, 0, s>>>(x);
  int host = 0;
  CHECK_CUDA(cudaMemcpyAsync(&host, x, sizeof host, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK(host == 7);
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaGetLastError());

  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  for (const auto& [name, op] : {std::pair{"warmup::prewarm_context", warmup::op_kind::context},
                                 std::pair{"warmup::prewarm_kernels", warmup::op_kind::region},
                                 std::pair{"warmup::prewarm_pool", warmup::op_kind::alloc}}) {
    const auto* site = r.find(op, name);
    REQUIRE(site != nullptr);
    CHECK(site->calls == threads);
  }
  const auto* main_site = r.find(warmup::op_kind::launch, "gpu.prewarm.main");
  REQUIRE(main_site != nullptr);
  CHECK(main_site->calls == 200);
  const auto* loop = r.find(warmup::op_kind::region, "gpu.prewarm.until_steady");
  REQUIRE(loop != nullptr);
  CHECK(loop->calls == until_steady_calls);
}

TEST_CASE("a launch error the program already had is its own: warmup_until_steady neither fails on it nor clears it") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  empty<<<1, 4096, 0, s>>>();  // more threads than a block holds: a launch error, left pending
  const cudaError_t had = cudaPeekAtLastError();
  INFO("the launch left " << cudaGetErrorName(had));
  REQUIRE(had != cudaSuccess);
  warmup::steady_limits l;
  l.max_calls = 50;
  l.tolerance = 0.5;
  const warmup::steady_result r =
      warmup::warmup_until_steady("gpu.until_steady.pending", [&] { empty<<<1, 1, 0, s>>>(); }, s, l);
  INFO(r.status.message);
  CHECK(r.why != warmup::steady_stop::error);
  CHECK(r.calls >= 2);
  CHECK(cudaGetLastError() == had);  // still the program's to read
  CHECK_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("prewarm_pool keeps the pool's memory across synchronisations") {
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  int dev = 0;
  CHECK_CUDA(cudaGetDevice(&dev));
  cudaMemPool_t pool;
  CHECK_CUDA(cudaDeviceGetMemPool(&pool, dev));
  CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
  constexpr std::size_t bytes = std::size_t{256} << 20;
  const warmup::prewarm_status st = warmup::prewarm_pool(bytes, s);
  INFO(st.message);
  REQUIRE(st.ok());
  std::uint64_t reserved = 0, threshold = 0;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(reserved >= bytes);
  CHECK(threshold >= bytes);
  // An allocation of that size after a synchronisation maps nothing: the pool did not shrink.
  void* p = nullptr;
  CHECK_CUDA(cudaMallocAsync(&p, bytes, s));
  CHECK_CUDA(cudaFreeAsync(p, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::uint64_t after = 0;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &after));
  CHECK(after == reserved);
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  const auto* site = r.find(warmup::op_kind::alloc, "warmup::prewarm_pool");
  REQUIRE(site != nullptr);
  REQUIRE(site->pool);
  CHECK(site->pool->grew_calls >= 1);  // the scope saw its own step grow the pool
  CHECK_CUDA(cudaStreamDestroy(s));
}

int warmup_test::before_tests() noexcept { return gpu_support::exit_unless_gpus(); }
