// Compiled with scopes on: see check_flags.py mixed.
#include <warmup/scope.hpp>

void enabled_calls(int n) {
  for (int i = 0; i < n; ++i) {
    warmup::region_scope s{"mixed.enabled"};
    WARMUP_SCOPE("mixed.enabled_macro");
  }
}
