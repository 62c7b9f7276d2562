// Uninstrumented twin of with_scopes.cpp: the same includes and the same work, no scope.
#include <warmup/profile.hpp>

extern "C" int work(const int* v, int n, cudaStream_t s) {
  (void)s;
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += v[i] * (i + 1);
  }
  return sum;
}
