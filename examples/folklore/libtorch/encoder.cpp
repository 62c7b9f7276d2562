// encoder: a first inference that is neither ResNet nor convolutions only, through libtorch, as
// attribution meets it on a fresh machine (the page cache cold, issue 27).
//
// A convolution stem (two strided convolutions with batch norm), a 4-layer TransformerEncoder
// (d_model 128, 8 heads) over the 64 tokens the stem makes of a 64 x 64 image, an LSTM (cuDNN's
// RNN) over those tokens, and a linear head on the last step; random weights, eval mode, batch
// 8, 30 forwards timed on the host and on the device through the current PyTorch stream. Its
// first forward loads cuDNN's convolution and RNN engines, cuBLAS(Lt) for the attention's matrix
// products and the kernels of each: run under WARMUP_ATTRIBUTION=1 WARMUP_CPU_SAMPLING=on, the
// report says what that time was, and with a cold page cache how much of it was reading from
// disk (tests/folklore/check_folklore.py encoder drops the libraries from the cache first).
//
//   encoder                 print the report
//   encoder --json FILE     also write the JSON report to FILE
#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include <warmup/profile.hpp>

#include "../args.hpp"
#include "gpu_context.hpp"

namespace nn = torch::nn;

namespace {

constexpr int calls = 30;
constexpr int width = 128;  // the tokens' size through the encoder

struct EncoderNetImpl : nn::Module {
  nn::Sequential stem;
  nn::TransformerEncoder encoder{nullptr};
  nn::LSTM lstm{nullptr};
  nn::Linear head{nullptr};
  EncoderNetImpl() {
    // 3 x 64 x 64 -> 64 x 16 x 16 -> 128 x 8 x 8: 64 tokens of 128.
    stem->push_back(nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(4).padding(3).bias(false)));
    stem->push_back(nn::BatchNorm2d(64));
    stem->push_back(nn::Functional(torch::relu));
    stem->push_back(nn::Conv2d(nn::Conv2dOptions(64, width, 3).stride(2).padding(1).bias(false)));
    stem->push_back(nn::BatchNorm2d(width));
    stem->push_back(nn::Functional(torch::relu));
    register_module("stem", stem);
    encoder = register_module(
        "encoder", nn::TransformerEncoder(nn::TransformerEncoderOptions(
                                              nn::TransformerEncoderLayerOptions(width, 8).dim_feedforward(512).dropout(0.0),
                                              4)));
    lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions(width, 256).batch_first(true)));
    head = register_module("head", nn::Linear(256, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto tokens = stem->forward(x).flatten(2).permute({2, 0, 1});  // (sequence, batch, width)
    tokens = encoder->forward(tokens).permute({1, 0, 2});          // (batch, sequence, width)
    const auto steps = std::get<0>(lstm->forward(tokens));
    return head(steps.select(1, steps.size(1) - 1));
  }
};
TORCH_MODULE(EncoderNet);

}  // namespace

int main(int argc, char** argv) {
  const char* json_path = nullptr;
  if (!folklore::args{}.option("--json", json_path).read(argc, argv))
    return std::fprintf(stderr, "usage: encoder [--json FILE]\n"), 2;
  if (!folklore::gpu_usable("encoder")) return 77;
  torch::manual_seed(1);
  const torch::Device gpu(torch::kCUDA, 0);
  folklore::make_context(gpu);
  EncoderNet model;
  model->eval();
  {
    warmup::region_scope s{"model->to(cuda)"};
    model->to(gpu);
  }
  const torch::Tensor input = torch::randn({8, 3, 64, 64}, gpu);
  torch::NoGradGuard no_grad;
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  torch::Tensor out;
  for (int i = 0; i < calls; ++i) {
    warmup::region_scope f{"forward", stream};
    out = model->forward(input);
  }
  torch::cuda::synchronize();
  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  warmup::print(r, std::cout);
  if (json_path != nullptr) std::ofstream(json_path) << warmup::to_json(r) << '\n';
  const bool shaped = out.sizes() == torch::IntArrayRef({8, 10});
  std::printf("output: %s\n", shaped ? "8 x 10 logits" : "WRONG SHAPE");
  return shaped ? 0 : 1;
}
