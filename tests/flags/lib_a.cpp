// A shared library linked into shared_main (check_flags.py shared_libs), instrumented like any.
#include <warmup/scope.hpp>

extern "C" __attribute__((visibility("default"))) void a_calls(int n) {
  for (int i = 0; i < n; ++i) {
    warmup::region_scope shared{"libs.shared"};
    warmup::region_scope own{"libs.a"};
  }
}
