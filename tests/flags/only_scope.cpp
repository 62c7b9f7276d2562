// Includes <warmup/scope.hpp> and nothing else of warmup: WARMUP_REPORT must still be written at
// exit (check_flags.py only_scope).
#include <warmup/scope.hpp>

int main() {
  for (int i = 0; i < 3; ++i) warmup::region_scope s{"only_scope.site"};
  return 0;
}
