// Several GPUs: a scope on a stream of device 1 while device 0 is current and the reverse, a
// thread switching devices between scopes, one site fed by streams of both devices, and two
// threads each on its own device. Events must be made and recorded on the stream's device: a
// wrong one fails to record, which the report would count. Exits 77 (skipped) below two GPUs.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "gpu_support.cuh"
#include "warmup/profile.hpp"

namespace {
using gpu_support::expect;


// Every call device-timed, none lost, and the device p50 that of the kernel it ran.
void expect_timed(const warmup::report& r, const char* name, std::uint64_t calls, double spin_us) {
  const auto* s = r.find(warmup::op_kind::launch, name);
  expect(s != nullptr, std::string(name) + ": site present");
  if (s == nullptr) return;
  const bool timed = s->device && s->device->calls == calls && s->device_untimed.unavailable == 0 &&
                     s->device_untimed.dropped == 0 && s->device_untimed.captured == 0;
  expect(s->calls == calls && timed, std::string(name) + ": every call device-timed (" +
                                         std::to_string(s->device ? s->device->calls : 0) + " of " +
                                         std::to_string(s->calls) + ")");
  if (!timed || !s->device->steady) return;
  const double p50_us = double(s->device->steady->p50.count()) / 1e3;
  expect(std::fabs(p50_us - spin_us) < 0.1 * spin_us,
         std::string(name) + ": device p50 " + std::to_string(p50_us) + " us for a " + std::to_string(spin_us) + " us kernel");
}
}  // namespace

int main() {
  if (const int status = gpu_support::exit_unless_gpus(2); status >= 0) return status;
  cudaStream_t s0{}, s1{};
  cudaSetDevice(0);
  cudaStreamCreate(&s0);
  gpu_support::spin<<<1, 1, 0, s0>>>(1000);
  cudaSetDevice(1);
  cudaStreamCreate(&s1);
  gpu_support::spin<<<1, 1, 0, s1>>>(1000);
  cudaDeviceSynchronize();
  cudaSetDevice(0);
  cudaDeviceSynchronize();

  // Device 0 current, work on device 1's stream; then the reverse.
  int current = -1;
  for (int i = 0; i < 20; ++i) {
    warmup::launch_scope k{"mgpu.stream_of_1_while_0_current", s1};
    gpu_support::spin<<<1, 1, 0, s1>>>(200'000);
  }
  cudaGetDevice(&current);
  expect(current == 0, "the library left device 0 current");
  cudaSetDevice(1);
  for (int i = 0; i < 20; ++i) {
    warmup::launch_scope k{"mgpu.stream_of_0_while_1_current", s0};
    gpu_support::spin<<<1, 1, 0, s0>>>(400'000);
  }
  cudaGetDevice(&current);
  expect(current == 1, "the library left device 1 current");

  // A thread switching devices between scopes, on the null stream of each.
  for (int i = 0; i < 40; ++i) {
    const int d = i % 2;
    cudaSetDevice(d);
    warmup::launch_scope k{d == 0 ? "mgpu.null_stream_0" : "mgpu.null_stream_1", nullptr};
    gpu_support::spin<<<1, 1>>>(d == 0 ? 100'000 : 300'000);
  }

  // One site, fed by streams of both devices in turn.
  for (int i = 0; i < 40; ++i) {
    cudaStream_t s = i % 2 == 0 ? s0 : s1;
    warmup::launch_scope k{"mgpu.one_site_both_devices", s};
    gpu_support::spin<<<1, 1, 0, s>>>(150'000);
  }

  // Two threads at once, each on its own device.
  std::thread t0([&] {
    cudaSetDevice(0);
    for (int i = 0; i < 30; ++i) {
      warmup::launch_scope k{"mgpu.thread_on_0", s0};
      gpu_support::spin<<<1, 1, 0, s0>>>(250'000);
    }
  });
  std::thread t1([&] {
    cudaSetDevice(1);
    for (int i = 0; i < 30; ++i) {
      warmup::launch_scope k{"mgpu.thread_on_1", s1};
      gpu_support::spin<<<1, 1, 0, s1>>>(350'000);
    }
  });
  t0.join();
  t1.join();

  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  expect(r.device_pending == 0, "nothing left pending after waiting");
  expect_timed(r, "mgpu.stream_of_1_while_0_current", 20, 200);
  expect_timed(r, "mgpu.stream_of_0_while_1_current", 20, 400);
  expect_timed(r, "mgpu.null_stream_0", 20, 100);
  expect_timed(r, "mgpu.null_stream_1", 20, 300);
  expect_timed(r, "mgpu.one_site_both_devices", 40, 150);
  expect_timed(r, "mgpu.thread_on_0", 30, 250);
  expect_timed(r, "mgpu.thread_on_1", 30, 350);
  expect(cudaGetLastError() == cudaSuccess, "no error left behind");
  expect(r.notices.empty(), "no notice (" + std::to_string(r.notices.size()) + ")");
  for (const auto& t : r.notices) std::printf("  notice: %s\n", t.c_str());
  std::printf("%s\n", gpu_support::failures() == 0 ? "all multi-GPU checks passed" : "multi-GPU checks FAILED");
  return gpu_support::failures() == 0 ? 0 : 1;
}
