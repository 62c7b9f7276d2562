// fork() after CUDA is initialised: the child cannot use CUDA, so the library makes no CUDA call
// there (no hang, no crash), says so once, times the child's calls on the host and starts its
// report clean; the parent goes on timing on the device. Exits 77 (skipped) without a GPU.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "gpu_support.cuh"
#include "warmup/profile.hpp"

namespace {
using gpu_support::expect;
}  // namespace

int main() {
  if (const int status = gpu_support::exit_unless_gpus(); status >= 0) return status;
  cudaStream_t s{};
  cudaStreamCreate(&s);
  for (int i = 0; i < 10; ++i) {
    warmup::launch_scope k{"fork.launch", s};
    gpu_support::spin<<<1, 1, 0, s>>>(50'000);
  }
  cudaStreamSynchronize(s);
  const auto before = warmup::snapshot();
  expect(before.find(warmup::op_kind::launch, "fork.launch") && before.find(warmup::op_kind::launch, "fork.launch")->device, "the parent times on the device");

  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    int bad = 0;
    for (int i = 0; i < 5; ++i) warmup::launch_scope k{"fork.launch", s};  // no CUDA work in the child
    const auto r = warmup::snapshot(warmup::device_wait::yes);              // must not touch CUDA
    const auto* site = r.find(warmup::op_kind::launch, "fork.launch");
    if (site == nullptr || site->calls != 5 || site->host.calls != 5) bad |= 1;  // clean, and host-timed
    if (site == nullptr || site->device || site->device_untimed.unavailable != 5) bad |= 2;
    int said = 0;
    for (const auto& t : r.notices) said += t.find("forked") != std::string::npos;
    if (said != 1) bad |= 4;
    _exit(bad);
  }
  // A hung child would hang the test: give it 30 s.
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 300 && !exited; ++i) {
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  expect(exited, "the child finished (no hang)");
  expect(exited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
         ("the child's checks: status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)).c_str());

  for (int i = 0; i < 10; ++i) {
    warmup::launch_scope k{"fork.launch", s};
    gpu_support::spin<<<1, 1, 0, s>>>(50'000);
  }
  const auto after = warmup::snapshot(warmup::device_wait::yes);
  const auto* site = after.find(warmup::op_kind::launch, "fork.launch");
  expect(site && site->calls == 20 && site->device && site->device->calls == 20,
         "the parent keeps its calls and goes on timing on the device");
  expect(cudaGetLastError() == cudaSuccess, "no error left in the parent");
  std::printf("%s\n", gpu_support::failures() == 0 ? "all fork checks passed" : "fork checks FAILED");
  return gpu_support::failures() == 0 ? 0 : 1;
}
