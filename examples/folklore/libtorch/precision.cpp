// precision: a whole model in half precision, and two inferences at once on two streams, through
// libtorch (issue 28, item 8).
//
// The ResNet-18 of resnet.cpp (resnet18.hpp), random weights, eval mode, a batch of
// 32 x 3 x 224 x 224 (--batch N), under torch::NoGradGuard. Three copies of it, in FP32, FP16
// and BF16 (Module::to(device, dtype): every weight converted, not autocast), each called 30
// times in that order, each a device-timed site ("forward fp32", ...). The FP32 copy runs
// first, so its first call also pays for what any first forward pays (cuDNN's start, the first
// kernels); each later precision's first call pays only for what is new to it. FP32
// convolutions may run on TF32 tensor cores (PyTorch's default for cuDNN).
//
// Then two inputs through the FP32 copy, 30 times each way, as one region on PyTorch's current
// stream: one after the other on that stream, and at once on two streams of PyTorch's pool
// (c10::cuda::getStreamFromPool, c10::cuda::CUDAStreamGuard), forked from and joined back to the
// current stream with events, so that the region's device time covers both. One host thread
// launches both: the two run at once only as far as the second launches while the first runs.
//
//   precision [--batch N] [--json FILE]
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <warmup/profile.hpp>

#include "../folklore.hpp"  // args, finish; fmt, first_vs_steady: the formats check_folklore.py rebuilds
#include "gpu_context.hpp"
#include "resnet18.hpp"

namespace {

constexpr int calls = 30;
constexpr const char* precisions[] = {"fp32", "fp16", "bf16"};

std::string speedup(std::chrono::nanoseconds slower, std::chrono::nanoseconds faster) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", double(slower.count()) / double(std::max<long long>(1, faster.count())));
  return buf;
}

const warmup::site_report* device_site(const warmup::report& r, const std::string& name) {
  const warmup::site_report* s = r.find(warmup::op_kind::region, name);
  if (s != nullptr && s->host.steady && s->device && s->device->steady) return s;
  std::fprintf(stderr, "precision: the site \"%s\" lacks steady figures\n", name.c_str());
  return nullptr;
}

// One finding line per claim, from the report's figures; 1 where a site lacks them.
int print_findings(const warmup::report& r, long batch) {
  const warmup::site_report* forward[3];
  for (int m = 0; m < 3; ++m)
    if ((forward[m] = device_site(r, std::string("forward ") + precisions[m])) == nullptr) return 1;
  const warmup::site_report* serial = device_site(r, "2 forwards, one after the other");
  const warmup::site_report* overlapped = device_site(r, "2 forwards, two streams at once");
  if (serial == nullptr || overlapped == nullptr) return 1;
  using folklore::first_vs_steady;
  for (int m = 0; m < 3; ++m)
    std::printf("finding: the whole model in %s (ResNet-18, batch %ld%s): host %s; device %s\n", precisions[m], batch,
                m == 0 ? ", the process's first forward" : "", first_vs_steady(forward[m]->host).c_str(),
                first_vs_steady(*forward[m]->device).c_str());
  const auto p50 = [&](int m) { return forward[m]->device->steady->p50; };
  std::printf("finding: half precision against FP32, steady on the device (batch %ld): fp32 %s, fp16 %s, bf16 %s; FP32's "
              "time over fp16's %s, over bf16's %s\n",
              batch, folklore::fmt(p50(0)).c_str(), folklore::fmt(p50(1)).c_str(), folklore::fmt(p50(2)).c_str(),
              speedup(p50(0), p50(1)).c_str(), speedup(p50(0), p50(2)).c_str());
  const auto one = serial->device->steady->p50, two = overlapped->device->steady->p50;
  std::printf("finding: two inferences on two streams at once against one after the other, steady on the device (batch "
              "%ld): %s one after the other vs %s at once (%s speed-up); first calls %s vs %s\n",
              batch, folklore::fmt(one).c_str(), folklore::fmt(two).c_str(), speedup(one, two).c_str(),
              folklore::fmt(serial->device->first).c_str(), folklore::fmt(overlapped->device->first).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  folklore::program_name = "precision";
  long batch = 32;
  if (!folklore::args{}.option("--batch", batch).option("--json", folklore::json_path).read(argc, argv) || batch <= 0)
    return std::fprintf(stderr, "usage: precision [--batch N] [--json FILE]\n"), 2;
  if (!folklore::gpu_usable("precision")) return 77;
  torch::manual_seed(1);
  const torch::Device gpu(torch::kCUDA, 0);
  folklore::make_context(gpu);
  torch::NoGradGuard no_grad;
  const torch::Dtype dtypes[] = {torch::kFloat, torch::kHalf, torch::kBFloat16};
  folklore::ResNet18 models[3];
  const torch::Tensor input = torch::randn({batch, 3, 224, 224}, gpu);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  bool shaped = true;
  for (int m = 0; m < 3; ++m) {
    models[m]->eval();
    models[m]->to(gpu, dtypes[m]);
    const torch::Tensor x = input.to(dtypes[m]);
    const std::string site = std::string("forward ") + precisions[m];
    torch::Tensor out;
    for (int i = 0; i < calls; ++i) {
      warmup::region_scope f{site, stream};
      out = models[m]->forward(x);
    }
    shaped = shaped && out.sizes() == torch::IntArrayRef({batch, 1000});
  }

  // Two inferences: one after the other, then at once on two streams of PyTorch's pool.
  folklore::ResNet18& model = models[0];
  const torch::Tensor second_input = torch::randn({batch, 3, 224, 224}, gpu);
  const c10::cuda::CUDAStream side[2] = {c10::cuda::getStreamFromPool(), c10::cuda::getStreamFromPool()};
  cudaEvent_t forked = nullptr, joined[2] = {nullptr, nullptr};
  bool ok = folklore::check(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  for (cudaEvent_t& e : joined)
    ok = ok && folklore::check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  torch::Tensor outs[2];
  for (int i = 0; i < calls && ok; ++i) {
    warmup::region_scope s{"2 forwards, one after the other", stream};
    outs[0] = model->forward(input);
    outs[1] = model->forward(second_input);
  }
  for (int i = 0; i < calls && ok; ++i) {
    warmup::region_scope s{"2 forwards, two streams at once", stream};
    ok = folklore::check(cudaEventRecord(forked, stream), "cudaEventRecord");
    for (int k = 0; k < 2 && ok; ++k) {
      ok = folklore::check(cudaStreamWaitEvent(side[k].stream(), forked, 0), "cudaStreamWaitEvent");
      {
        const c10::cuda::CUDAStreamGuard on_side(side[k]);
        outs[k] = model->forward(k == 0 ? input : second_input);
      }
      ok = ok && folklore::check(cudaEventRecord(joined[k], side[k].stream()), "cudaEventRecord") &&
           folklore::check(cudaStreamWaitEvent(stream, joined[k], 0), "cudaStreamWaitEvent");
    }
  }
  torch::cuda::synchronize();
  for (cudaEvent_t e : {forked, joined[0], joined[1]})
    if (e != nullptr) cudaEventDestroy(e);

  int found = 0;
  const int status = folklore::finish(ok ? 0 : 1, [&](const warmup::report& r) { found = print_findings(r, batch); });
  if (status != 0 || found != 0) return 1;
  const bool all_shaped = shaped && outs[0].sizes() == torch::IntArrayRef({batch, 1000}) &&
                          outs[1].sizes() == torch::IntArrayRef({batch, 1000});
  std::printf("output: %s\n", all_shaped ? "logits of the right shape" : "WRONG SHAPE");
  return all_shaped ? 0 : 1;
}
