// What device timing costs the host, against raw CUDA events measured in the same run.
// Needs a GPU: without one every benchmark reports an error and the program exits 0.
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <vector>

#include "warmup/profile.hpp"

namespace {

__global__ void empty() {}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct gpu {
  cudaStream_t stream{};
  std::vector<cudaEvent_t> events;
  explicit gpu(std::size_t pairs) : events(2 * pairs) {
    cudaStreamCreate(&stream);
    for (auto& e : events) cudaEventCreate(&e);
    empty<<<1, 1, 0, stream>>>();
    cudaStreamSynchronize(stream);
  }
  ~gpu() {
    for (auto& e : events) cudaEventDestroy(e);
    cudaStreamDestroy(stream);
  }
};

// The queue of one stream holds about a thousand operations: every 256 iterations the GPU is
// let to catch up, outside the timed region.
constexpr int batch = 256;
template <class F>
void batched(benchmark::State& state, gpu& g, F&& body) {
  int i = 0;
  for (auto _ : state) {
    body(i);
    if (++i == batch) {
      state.PauseTiming();
      cudaStreamSynchronize(g.stream);
      (void)warmup::snapshot();
      i = 0;
      state.ResumeTiming();
    }
  }
  cudaStreamSynchronize(g.stream);
}

// One launch, bracketed by a raw pair of timing events: the baseline.
void raw_events_launch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(batch);
  batched(state, g, [&](int i) {
    cudaEventRecord(g.events[2 * i], g.stream);
    empty<<<1, 1, 0, g.stream>>>();
    cudaEventRecord(g.events[2 * i + 1], g.stream);
  });
}
BENCHMARK(raw_events_launch);

// The same pair through the driver's cuEventRecord, as the library records on explicit streams:
// shows how much of the runtime call is wrapper.
void driver_events_launch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(batch);
  const auto s = reinterpret_cast<CUstream>(g.stream);
  batched(state, g, [&](int i) {
    cuEventRecord(reinterpret_cast<CUevent>(g.events[2 * i]), s);
    empty<<<1, 1, 0, g.stream>>>();
    cuEventRecord(reinterpret_cast<CUevent>(g.events[2 * i + 1]), s);
  });
}
BENCHMARK(driver_events_launch);

// The raw pair plus the two driver queries a device-timed scope makes before recording: the
// stream's context and whether the stream is being captured.
void queries_events_launch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(batch);
  const auto s = reinterpret_cast<CUstream>(g.stream);
  batched(state, g, [&](int i) {
    CUcontext ctx;
    CUstreamCaptureStatus capture;
    cuStreamGetCtx(s, &ctx);
    cuStreamIsCapturing(s, &capture);
    benchmark::DoNotOptimize(ctx);
    benchmark::DoNotOptimize(capture);
    cuEventRecord(reinterpret_cast<CUevent>(g.events[2 * i]), s);
    empty<<<1, 1, 0, g.stream>>>();
    cuEventRecord(reinterpret_cast<CUevent>(g.events[2 * i + 1]), s);
  });
}
BENCHMARK(queries_events_launch);

// A host-timed scope around the launch: the part of a device-timed scope that is not CUDA.
void host_scope_launch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(1);
  batched(state, g, [&](int) {
    WARMUP_SCOPE("bench.host_only");
    empty<<<1, 1, 0, g.stream>>>();
  });
}
BENCHMARK(host_scope_launch);

void launch_only(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(1);
  batched(state, g, [&](int) { empty<<<1, 1, 0, g.stream>>>(); });
}
BENCHMARK(launch_only);

void scope_launch_every_call(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(1);
  warmup::set_device_sampling(warmup::device_sampling::every_call);
  batched(state, g, [&](int) {
    WARMUP_SCOPE("bench.every_call", g.stream);
    empty<<<1, 1, 0, g.stream>>>();
  });
  warmup::set_device_sampling(warmup::device_sampling::adaptive);
}
BENCHMARK(scope_launch_every_call);

// Amortised over a warm, steady site: device-timed on a sample (the default policy).
void scope_launch_adaptive(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  gpu g(1);
  batched(state, g, [&](int) {
    WARMUP_SCOPE("bench.adaptive", g.stream);
    empty<<<1, 1, 0, g.stream>>>();
  });
}
BENCHMARK(scope_launch_adaptive);

// A loop of 10^4 empty kernels, timed whole (wall clock, the final synchronisation included).
constexpr int loop = 10000;
enum class timing_kind { untimed, raw_read_later, raw_sync_each, scope_every_call, scope_adaptive };
void kernel_loop(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no GPU");
  const auto kind = static_cast<timing_kind>(state.range(0));
  gpu g(loop);
  warmup::set_device_sampling(kind == timing_kind::scope_every_call ? warmup::device_sampling::every_call
                                                                    : warmup::device_sampling::adaptive);
  for (auto _ : state) {
    for (int i = 0; i < loop; ++i) {
      switch (kind) {
        case timing_kind::untimed: empty<<<1, 1, 0, g.stream>>>(); break;
        case timing_kind::raw_read_later:
        case timing_kind::raw_sync_each: {
          cudaEventRecord(g.events[2 * i], g.stream);
          empty<<<1, 1, 0, g.stream>>>();
          cudaEventRecord(g.events[2 * i + 1], g.stream);
          if (kind == timing_kind::raw_sync_each) {
            float ms;
            cudaEventSynchronize(g.events[2 * i + 1]);
            cudaEventElapsedTime(&ms, g.events[2 * i], g.events[2 * i + 1]);
            benchmark::DoNotOptimize(ms);
          }
          break;
        }
        case timing_kind::scope_every_call:
        case timing_kind::scope_adaptive: {
          warmup::launch_scope k{"bench.loop", g.stream};
          empty<<<1, 1, 0, g.stream>>>();
          break;
        }
      }
    }
    cudaStreamSynchronize(g.stream);
    if (kind == timing_kind::raw_read_later)
      for (int i = 0; i < loop; ++i) {
        float ms;
        cudaEventElapsedTime(&ms, g.events[2 * i], g.events[2 * i + 1]);
        benchmark::DoNotOptimize(ms);
      }
    if (kind == timing_kind::scope_every_call || kind == timing_kind::scope_adaptive) (void)warmup::snapshot();
  }
  warmup::set_device_sampling(warmup::device_sampling::adaptive);
  state.counters["us_per_kernel"] =
      benchmark::Counter(double(loop) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["us_per_kernel"] = benchmark::Counter(state.counters["us_per_kernel"].value * 1e6);
}
BENCHMARK(kernel_loop)
    ->ArgName("kind")
    ->DenseRange(0, 4)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
