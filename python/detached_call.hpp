// A call of a site whose two ends need not nest in the thread's other calls: an async function's
// run across its awaits, a generator's iteration across its yields (warmup/_timed.py), between
// which other calls of the thread begin and end, and which may end on another thread. A scope
// cannot stand for it: its NVTX range is pushed on the thread's stack and popped from the top,
// and its shard is the thread's own. This is the NVTX tool's start/end range (host_call begun
// with no shard): host time only, no NVTX range, an exception that ended it counted.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

#include "streams.hpp"
#include "warmup/detail/record/host_call.hpp"
#include "warmup/profile.hpp"

namespace warmup_python {

/// One open call, begun where it is made; `end` ends it, once. One never ended (a generator left
/// unfinished when the interpreter ends) ends as it is freed, as a scope object's open calls do.
///
///     call = _warmup._begin_detached("region", "fetch")
///     ...                       # awaits, yields: other calls begin and end
///     call.end(False)           # True: an exception ended it
class detached_call {
 public:
  detached_call(warmup::op_kind kind, std::string_view name) noexcept {
    if (warmup::detail::measuring.load(std::memory_order_relaxed))
      call_.begin(warmup::detail::find_site(kind, name), nullptr);
  }
  ~detached_call() { call_.end(); }
  detached_call(const detached_call&) = delete;
  detached_call& operator=(const detached_call&) = delete;

  void end(bool raised) noexcept {
    using ending = warmup::detail::host_call::ending;
    call_.end(raised ? ending::raised : ending::returned);
  }

 private:
  warmup::detail::host_call call_;
};

/// The operation kind named `kind` ("region", "launch", ...), or a ValueError naming them.
inline warmup::op_kind kind_named(const std::string& kind) {
  std::string names;
  for (std::size_t i = 0; i < warmup::op_kind_count; ++i) {
    const auto k = static_cast<warmup::op_kind>(i);
    if (warmup::to_string(k) == kind) return k;
    names += (names.empty() ? "" : ", ") + std::string(warmup::to_string(k));
  }
  throw pybind11::value_error("warmup: no operation kind is named '" + kind + "' (" + names + ")");
}

/// Adds `_begin_detached(kind, name)` and the call it returns to module `m`.
inline void add_detached_calls(pybind11::module_& m) {
  namespace py = pybind11;
  py::class_<detached_call>(m, "_DetachedCall")
      .def("end", &detached_call::end, py::arg("raised"), "Ends the call, once; `raised`: an exception ended it.");
  m.def(
      "_begin_detached",
      [](const std::string& kind, const py::object& name) {
        require_site_name(name);
        return new detached_call(kind_named(kind), name.cast<std::string>());
      },
      py::arg("kind"), py::arg("name"), "A call of a site begun now, which any thread may end later.");
}

}  // namespace warmup_python
