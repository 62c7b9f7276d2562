// Compiled with -DWARMUP_DISABLE, linked into a program whose other files measure: the same
// scope constructors, another configuration (check_flags.py mixed).
#include <warmup/scope.hpp>

void disabled_calls(int n) {
  for (int i = 0; i < n; ++i) {
    warmup::region_scope s{"mixed.disabled"};
    WARMUP_SCOPE("mixed.disabled_macro");
  }
}
