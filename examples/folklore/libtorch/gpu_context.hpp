// The opening the libtorch examples share: a GPU that PyTorch can use, and the context made on
// it in a site of its own, so that nothing measured after it pays for it.
#pragma once

#include <torch/torch.h>

#include <cstdio>

#include <warmup/profile.hpp>

namespace folklore {

// True where PyTorch sees a GPU; otherwise says "PROGRAM: no usable GPU" on stderr, and the
// program exits 77 (skipped).
inline bool gpu_usable(const char* program) {
  if (torch::cuda::is_available()) return true;
  std::fprintf(stderr, "%s: no usable GPU\n", program);
  return false;
}

// PyTorch creates the context lazily, at the first tensor on the GPU: that tensor, alone in the
// site "first CUDA tensor (context)".
inline void make_context(const torch::Device& gpu) {
  warmup::context_scope init{"first CUDA tensor (context)"};
  (void)torch::zeros({1}, gpu);
}

}  // namespace folklore
