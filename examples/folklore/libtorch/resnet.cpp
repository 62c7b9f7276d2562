// resnet: a real model's first inference, through PyTorch's C++ library (libtorch).
//
// A ResNet-18-shaped network (conv-bn-relu stem, four stages of two basic residual blocks,
// pooling, a linear head) built in C++ with random weights, in eval mode, fed a batch of
// 8 x 3 x 224 x 224 on the GPU, 50 times. warmup times each step a user would wrap (creating
// the context, moving the weights, every forward) on the host and, for forward, on the device
// through the current PyTorch stream. Beside it, the same forwards are timed the way PyTorch
// users do: a pair of PyTorch's own CUDA events (at::cuda::CUDAEvent) around each call, read
// after the loop, and a host clock. The findings compare the two.
//
//   resnet                 print the report and the comparison
//   resnet --json FILE     also write the JSON report to FILE
//   resnet --prewarm auto  before the measured calls, warmup::warmup_until_steady calls forward
//                          (site "forward (prewarm)", each call synchronised) until warmup's
//                          rule says it is steady
//   resnet --prewarm N     the same with a fixed count of N calls, as serving stacks configure it
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <iostream>
#include <vector>

#include <warmup/profile.hpp>

#include "../args.hpp"
#include "gpu_context.hpp"
#include "resnet18.hpp"

namespace {

constexpr int calls = 50;

double ms(double ns) { return ns / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  const char* json_path = nullptr;
  std::string prewarm;  // empty, "auto" or a count
  if (!folklore::args{}.option("--json", json_path).option("--prewarm", prewarm).read(argc, argv))
    return std::fprintf(stderr, "usage: resnet [--json FILE] [--prewarm auto|N]\n"), 2;
  const long fixed_count = prewarm.empty() || prewarm == "auto" ? 0 : std::strtol(prewarm.c_str(), nullptr, 10);
  if (!prewarm.empty() && prewarm != "auto" && fixed_count <= 0)
    return std::fprintf(stderr, "resnet: --prewarm takes auto or a positive count\n"), 2;
  if (!folklore::gpu_usable("resnet")) return 77;
  torch::manual_seed(1);
  const torch::Device gpu(torch::kCUDA, 0);
  folklore::make_context(gpu);
  folklore::ResNet18 model;
  model->eval();
  {
    warmup::region_scope s{"model->to(cuda)"};
    model->to(gpu);
  }
  const torch::Tensor input = torch::randn({8, 3, 224, 224}, gpu);
  torch::NoGradGuard no_grad;
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();

  // Prewarm: the forward called ahead of the measured calls, each call synchronised, until
  // warmup's rule says it is steady (auto) or a fixed number of times.
  if (prewarm == "auto") {
    const warmup::steady_result w =
        warmup::warmup_until_steady("forward (prewarm)", [&] { (void)model->forward(input); }, stream);
    if (w.why == warmup::steady_stop::error) return std::fprintf(stderr, "resnet: %s\n", w.status.message.c_str()), 1;
    std::printf("prewarm: warmup_until_steady: %zu calls in %.1f ms (%s; %zu warm-up calls), steady p50 %.3f ms "
                "[%.3f, %.3f]\n",
                w.calls, ms(double(w.took.count())), warmup::to_string(w.why), w.warmup_calls, ms(double(w.p50.count())),
                ms(double(w.p50_low.count())), ms(double(w.p50_high.count())));
  } else if (fixed_count > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < fixed_count; ++i) {
      {
        warmup::region_scope s{"forward (prewarm)", stream};
        (void)model->forward(input);
      }
      torch::cuda::synchronize();
    }
    std::printf("prewarm: a fixed %ld calls in %.1f ms\n", fixed_count,
                ms(double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count())));
  }

  // PyTorch's own measurement of the same calls: its CUDA events, read after the loop.
  std::vector<at::cuda::CUDAEvent> starts, ends;
  for (int i = 0; i < calls; ++i) {
    starts.emplace_back(cudaEventDefault);  // PyTorch's events do not time unless asked to
    ends.emplace_back(cudaEventDefault);
  }
  std::vector<double> host_ns(calls);
  torch::Tensor out;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    starts[i].record();
    {
      warmup::region_scope f{"forward", stream};
      out = model->forward(input);
    }
    ends[i].record();
    host_ns[i] = double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  torch::cuda::synchronize();
  std::vector<double> device_ms(calls);
  for (int i = 0; i < calls; ++i) device_ms[i] = starts[i].elapsed_time(ends[i]);

  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  warmup::print(r, std::cout);
  if (json_path != nullptr) std::ofstream(json_path) << warmup::to_json(r) << '\n';

  // The comparison: first call, and the median of the calls after the warm-up warmup found.
  const auto* f = r.find(warmup::op_kind::region, "forward");
  if (f == nullptr || !f->device || !f->host.steady || !f->device->steady) {
    std::fprintf(stderr, "resnet: the forward site lacks steady figures\n");
    return 1;
  }
  const auto median_after = [](std::vector<double> v, std::size_t skip) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(skip, v.size() - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2), v.end());
    return v[(v.size() - 1) / 2];
  };
  const std::size_t warm = std::max<std::uint64_t>(f->device->warmup_calls, 1);
  std::printf("finding: first forward on the device: warmup %.2f ms, PyTorch's CUDA events %.2f ms\n",
              ms(double(f->device->first.count())), device_ms[0]);
  std::printf("finding: steady forward on the device: warmup p50 %.3f ms, PyTorch's CUDA events median %.3f ms\n",
              ms(double(f->device->steady->p50.count())), median_after(device_ms, warm));
  std::printf("finding: first forward on the host: warmup %.2f ms, a host clock %.2f ms; steady p50 %.3f ms vs %.3f ms\n",
              ms(double(f->host.first.count())), ms(host_ns[0]), ms(double(f->host.steady->p50.count())),
              ms(median_after(host_ns, std::max<std::uint64_t>(f->host.warmup_calls, 1))));
  std::printf("finding: the first forward costs %.0fx a steady one on the host (%llu warm-up calls)\n",
              double(f->host.first.count()) / double(f->host.steady->p50.count()),
              static_cast<unsigned long long>(f->host.warmup_calls));
  std::printf("output: %s\n", out.sizes() == torch::IntArrayRef({8, 1000}) ? "8 x 1000 logits" : "WRONG SHAPE");
  return out.sizes() == torch::IntArrayRef({8, 1000}) ? 0 : 1;
}
