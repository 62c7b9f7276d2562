// A C++ extension as a user would build one: the header, a scope, pybind11. Its calls land in
// the report that Python's `warmup.snapshot()` reads (one registry in the process).
#include <pybind11/pybind11.h>

#include "warmup/profile.hpp"

PYBIND11_MODULE(warmup_test_extension, m) {
  m.def("work", [](int calls) {
    for (int i = 0; i < calls; ++i) {
      WARMUP_SCOPE("extension.work");
    }
  });
  m.def("named", [](const std::string& name) { warmup::region_scope s{name}; });
}
