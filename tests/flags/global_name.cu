// The common CUDA idiom: a kernel named `warmup`, declared before the library is included.
__global__ void warmup() {}

#define WARMUP_NO_NAMESPACE_ALIAS
#include <warmup/profile.hpp>

#include <cstdio>

int main() {
  {
    cuda_warmup::launch_scope s{"global.kernel", cudaStream_t{}};
    warmup<<<1, 1>>>();  // fails without a GPU; the scope measures it anyway
  }
  (void)cudaGetLastError();
  const cuda_warmup::report r = cuda_warmup::snapshot();
  std::printf("%zu sites\n", r.sites.size());
  return r.sites.size() == 1 ? 0 : 1;
}
