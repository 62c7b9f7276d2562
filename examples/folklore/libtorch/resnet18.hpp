// A ResNet-18-shaped network (conv-bn-relu stem, four stages of two basic residual blocks,
// pooling, a linear head), built in C++ with random weights: resnet.cpp times its first
// inference, precision.cpp the same network in FP32, FP16 and BF16.
#pragma once

#include <torch/torch.h>

namespace folklore {

namespace nn = torch::nn;

inline nn::Conv2dOptions conv(int in, int out, int k, int stride) {
  return nn::Conv2dOptions(in, out, k).stride(stride).padding(k / 2).bias(false);
}

// Two 3x3 convolutions with a shortcut; a 1x1 projection when the shape changes.
struct BasicBlockImpl : nn::Module {
  nn::Conv2d c1{nullptr}, c2{nullptr}, proj{nullptr};
  nn::BatchNorm2d b1{nullptr}, b2{nullptr}, bproj{nullptr};
  BasicBlockImpl(int in, int out, int stride) {
    c1 = register_module("c1", nn::Conv2d(conv(in, out, 3, stride)));
    b1 = register_module("b1", nn::BatchNorm2d(out));
    c2 = register_module("c2", nn::Conv2d(conv(out, out, 3, 1)));
    b2 = register_module("b2", nn::BatchNorm2d(out));
    if (stride != 1 || in != out) {
      proj = register_module("proj", nn::Conv2d(conv(in, out, 1, stride)));
      bproj = register_module("bproj", nn::BatchNorm2d(out));
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    auto y = torch::relu(b1(c1(x)));
    y = b2(c2(y));
    return torch::relu(y + (proj ? bproj(proj(x)) : x));
  }
};
TORCH_MODULE(BasicBlock);

struct ResNet18Impl : nn::Module {
  nn::Sequential body;
  nn::Linear head{nullptr};
  ResNet18Impl() {
    body->push_back(nn::Conv2d(conv(3, 64, 7, 2)));
    body->push_back(nn::BatchNorm2d(64));
    body->push_back(nn::Functional(torch::relu));
    body->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
    int in = 64;
    for (int out : {64, 128, 256, 512}) {
      body->push_back(BasicBlock(in, out, out == 64 ? 1 : 2));
      body->push_back(BasicBlock(out, out, 1));
      in = out;
    }
    body->push_back(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions(1)));
    register_module("body", body);
    head = register_module("head", nn::Linear(512, 1000));
  }
  torch::Tensor forward(torch::Tensor x) { return head(body->forward(x).flatten(1)); }
};
TORCH_MODULE(ResNet18);

}  // namespace folklore
