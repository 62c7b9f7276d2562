// A plugin that shared_main and plugin_host dlopen and dlclose (check_flags.py shared_libs).
#include <warmup/scope.hpp>

extern "C" __attribute__((visibility("default"))) void b_calls(int n) {
  for (int i = 0; i < n; ++i) {
    warmup::region_scope shared{"libs.shared"};
    WARMUP_SCOPE("libs.b");
  }
}
