// Instrumented twin of without_scopes.cpp. Compiled with WARMUP_DISABLE, both must give the same
// machine code (compare_disassembly.cmake): a disabled scope or macro costs nothing at all.
#include <warmup/profile.hpp>

extern "C" int work(const int* v, int n, cudaStream_t s) {
  WARMUP_FUNC_SCOPE();
  warmup::region_scope whole{"work"};
  warmup::h2d_scope upload{"upload", static_cast<std::size_t>(n) * sizeof(int), s};
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    WARMUP_SCOPE("element", s);
    warmup::launch_scope step{"step", s};
    sum += v[i] * (i + 1);
  }
  return sum;
}
