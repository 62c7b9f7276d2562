// A program with its own global `warmup` (a function here; in global_name.cu, the common
// `__global__ void warmup()` kernel) opts out of the namespace alias and uses cuda_warmup::.
#define WARMUP_NO_NAMESPACE_ALIAS
#include <warmup/profile.hpp>

#include <cstdio>

int warmup() { return 3; }  // the program's own, declared after the include

int main() {
  int sum = 0;
  for (int i = 0; i < 4; ++i) {
    cuda_warmup::region_scope s{"global.named"};
    WARMUP_SCOPE("global.macro");
    sum += warmup();
  }
  const cuda_warmup::report r = cuda_warmup::snapshot();
  std::printf("%zu sites, sum %d\n", r.sites.size(), sum);
  return sum == 12 && r.sites.size() == (cuda_warmup::enabled_at_compile_time ? 2u : 0u) ? 0 : 1;
}
