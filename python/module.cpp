// The native half of `import warmup` (warmup._warmup): the C++ scopes opened by Python's `with`
// and closed by its exit, the report and its writers, reading a report back, and prewarm.
//
// Built light, as any file that links warmup::warmup: the runtime is the build's one
// warmup::runtime, so this module holds a copy of it like any shared library, and every copy in
// the process (a C++ extension built with the header, a libtorch operator) joins the first
// through the process anchor (include/warmup/detail/process.hpp): one registry, one report.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "warmup/json.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/profile.hpp"
#include "warmup/read.hpp"
#include "warmup/until_steady.hpp"

namespace py = pybind11;

namespace {

/// The stream a Python object names: an integer handle (0 is the legacy default stream), an
/// object with the `__cuda_stream__` protocol ((version, handle)), a `torch.cuda.Stream`
/// (`cuda_stream`) or a CuPy stream (`ptr`).
cudaStream_t stream_of(const py::handle& s) {
  py::object handle = py::reinterpret_borrow<py::object>(s);
  if (py::hasattr(s, "__cuda_stream__")) {
    const py::object pair = s.attr("__cuda_stream__")();
    if (!py::isinstance<py::tuple>(pair) || py::len(pair) != 2)
      throw py::type_error("warmup: __cuda_stream__() must return (version, handle)");
    handle = pair.cast<py::tuple>()[1];
  } else if (py::hasattr(s, "cuda_stream")) {
    handle = s.attr("cuda_stream");
  } else if (py::hasattr(s, "ptr") && !py::isinstance<py::int_>(s)) {
    handle = s.attr("ptr");
  }
  if (!py::isinstance<py::int_>(handle) || py::isinstance<py::bool_>(handle))
    throw py::type_error("warmup: stream= takes None (host timing only), an integer handle, a torch.cuda.Stream, "
                         "a CuPy stream or an object with __cuda_stream__; got " +
                         std::string(py::str(py::type::of(s).attr("__name__"))));
  const unsigned long long v = PyLong_AsUnsignedLongLong(handle.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("warmup: a stream handle is an address: an integer from 0 to 2**64 - 1, not " +
                          std::string(py::repr(handle)));
  }
  return reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(v));
}

/// A byte count as the C++ scopes take it: any integer (a negative one is said once and counted
/// as 0 bytes, as in C++); one beyond 64 bits is refused.
long long bytes_of(const py::handle& b) {
  if (!py::isinstance<py::int_>(b) || py::isinstance<py::bool_>(b))
    throw py::type_error("warmup: bytes= takes an integer, not " + std::string(py::repr(b)));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(b.ptr(), &overflow);
  if (overflow > 0) return static_cast<long long>(UINT64_MAX >> 1);
  if (overflow < 0) return -1;
  return v;
}

/// One open call: the C++ scope of its kind, alive from __enter__ to __exit__.
struct open_call {
  virtual ~open_call() = default;
  std::thread::id thread = std::this_thread::get_id();
};

template <class Op>
struct open_call_of final : open_call {
  template <class... A>
  explicit open_call_of(A&&... a) : s(std::forward<A>(a)...) {}
  warmup::scope<Op> s;
};

/// Thrown, and caught at once, so that a call Python ended with an exception ends while a C++
/// one unwinds: the scope counts it as it counts one that C++ code threw through.
struct raised_in_python {};

/// `with warmup.region("forward", stream=s):`, and each other kind. The scope opens at
/// __enter__ and ends at __exit__, on the thread that entered it; one object may be entered again
/// (nested or from other threads): each entry is its own call.
class py_scope {
 public:
  py_scope(warmup::op_kind kind, py::str name, std::optional<long long> bytes, std::optional<cudaStream_t> stream)
      : kind_(kind), name_(std::move(name)), bytes_(bytes), stream_(stream) {}
  py_scope(py_scope&&) = default;
  py_scope(const py_scope&) = delete;
  py_scope& operator=(const py_scope&) = delete;

  py_scope& enter() {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(name_.ptr(), &size);
    if (text == nullptr) throw py::error_already_set();
    const std::string_view name{text, static_cast<std::size_t>(size)};
    open_.push_back(open(name));
    return *this;
  }

  bool exit(const py::handle& type) {
    const auto me = std::this_thread::get_id();
    for (auto it = open_.end(); it != open_.begin();) {
      --it;
      if ((*it)->thread != me) continue;
      std::unique_ptr<open_call> call = std::move(*it);
      open_.erase(it);
      if (type.is_none()) {
        call.reset();
      } else {
        struct ender {
          std::unique_ptr<open_call>& c;
          ~ender() { c.reset(); }
        };
        try {
          ender e{call};
          throw raised_in_python{};
        } catch (const raised_in_python&) {
        }
      }
      return false;  // an exception propagates unchanged
    }
    throw py::value_error("warmup: __exit__ without __enter__ on this thread");
  }

 private:
  std::unique_ptr<open_call> open(std::string_view name) const {
    using warmup::op_kind;
    switch (kind_) {
      case op_kind::context: return make<warmup::op::context>(name);
      case op_kind::launch: return make<warmup::op::launch>(name);
      case op_kind::region: return make<warmup::op::region>(name);
      case op_kind::alloc: return make_bytes<warmup::op::alloc>(name);
      case op_kind::h2d: return make_bytes<warmup::op::h2d>(name);
      case op_kind::d2h: return make_bytes<warmup::op::d2h>(name);
      case op_kind::d2d: return make_bytes<warmup::op::d2d>(name);
    }
    throw py::value_error("warmup: unknown operation kind");
  }
  template <class Op>
  std::unique_ptr<open_call> make(std::string_view name) const {
    if (stream_) return std::make_unique<open_call_of<Op>>(name, *stream_);
    return std::make_unique<open_call_of<Op>>(name);
  }
  template <class Op>
  std::unique_ptr<open_call> make_bytes(std::string_view name) const {
    const long long b = bytes_.value_or(0);
    if (stream_) return std::make_unique<open_call_of<Op>>(name, b, *stream_);
    return std::make_unique<open_call_of<Op>>(name, b);
  }

  warmup::op_kind kind_;
  py::str name_;
  std::optional<long long> bytes_;
  std::optional<cudaStream_t> stream_;
  std::vector<std::unique_ptr<open_call>> open_;
};

std::optional<cudaStream_t> optional_stream(const py::object& s) {
  if (s.is_none()) return std::nullopt;
  return stream_of(s);
}

/// Python's str, refused where it cannot name a site (not text).
py::str site_name(const py::object& name) {
  if (!py::isinstance<py::str>(name))
    throw py::type_error("warmup: a site's name is a str, not " + std::string(py::repr(name)));
  return name.cast<py::str>();
}

/// Seconds as the C++ limits take them: NaN and negative times as 0 (refused there, with a
/// sentence), times past 292 years as the longest.
std::chrono::nanoseconds seconds_to_ns(double s) {
  if (!(s > 0)) return std::chrono::nanoseconds{0};
  if (s >= 9.2e9) return std::chrono::nanoseconds::max();
  return std::chrono::nanoseconds{static_cast<long long>(s * 1e9)};
}

std::string table_of(const warmup::report& r) {
  std::ostringstream os;
  warmup::print(r, os);
  return os.str();
}

}  // namespace

PYBIND11_MODULE(_warmup, m) {
  m.doc() = "The native half of `import warmup`: use the `warmup` package.";

  py::class_<py_scope>(m, "Scope", "One site's calls: `with` opens a call and its end closes it.")
      .def("__enter__", &py_scope::enter, py::return_value_policy::reference_internal)
      .def("__exit__", [](py_scope& s, const py::handle& type, const py::handle&, const py::handle&) {
        return s.exit(type);
      });

  const auto plain = [&m](const char* py_name, warmup::op_kind kind) {
    m.def(
        py_name,
        [kind](const py::object& name, const py::object& stream) {
          return py_scope(kind, site_name(name), std::nullopt, optional_stream(stream));
        },
        py::arg("name"), py::arg("stream") = py::none());
  };
  const auto with_bytes = [&m](const char* py_name, warmup::op_kind kind) {
    m.def(
        py_name,
        [kind](const py::object& name, const py::object& bytes, const py::object& stream) {
          return py_scope(kind, site_name(name), bytes_of(bytes), optional_stream(stream));
        },
        py::arg("name"), py::arg("bytes"), py::arg("stream") = py::none());
  };
  plain("context", warmup::op_kind::context);
  plain("launch", warmup::op_kind::launch);
  plain("region", warmup::op_kind::region);
  with_bytes("alloc", warmup::op_kind::alloc);
  with_bytes("h2d", warmup::op_kind::h2d);
  with_bytes("d2h", warmup::op_kind::d2h);
  with_bytes("d2d", warmup::op_kind::d2d);
  m.def("stream_handle", [](const py::object& s) { return reinterpret_cast<std::uintptr_t>(stream_of(s)); },
        "The integer handle a stream= argument names.");

  py::class_<warmup::report>(m, "NativeReport")
      .def("to_json", [](const warmup::report& r) { return warmup::to_json(r); })
      .def("to_csv", [](const warmup::report& r) { return warmup::to_csv(r); })
      .def("to_trace", [](const warmup::report& r) { return warmup::to_trace(r); })
      .def("to_svg", [](const warmup::report& r) { return warmup::to_svg(r); })
      .def("table", &table_of)
      .def("write", [](const warmup::report& r, const std::string& spec) { return warmup::write_report(r, spec); });

  m.def(
      "snapshot",
      [](bool wait) {
        const py::gil_scoped_release unlocked;  // waiting on the device holds no Python thread up
        return warmup::snapshot(wait ? warmup::device_wait::yes : warmup::device_wait::no);
      },
      py::arg("wait") = false);
  m.def("read", [](const std::string& path) {
    std::string error;
    const std::optional<std::string> text = warmup::read_text_file(path, error);
    if (!text) throw py::value_error("warmup.read: " + error);
    std::optional<warmup::report> r = warmup::read_report(*text, error);
    if (!r) throw py::value_error("warmup.read: " + path + ": " + error);
    return std::move(*r);
  });

  py::class_<warmup::prewarm_status>(m, "PrewarmStatus")
      .def_property_readonly("ok", &warmup::prewarm_status::ok)
      .def_property_readonly("error", [](const warmup::prewarm_status& s) { return std::string(cudaGetErrorName(s.error)); })
      .def_readonly("message", &warmup::prewarm_status::message)
      .def_property_readonly("took_ns", [](const warmup::prewarm_status& s) { return s.took.count(); })
      .def("__bool__", &warmup::prewarm_status::ok)
      .def("__repr__", [](const warmup::prewarm_status& s) {
        return s.ok() ? "<PrewarmStatus ok, " + std::to_string(s.took.count()) + " ns>"
                      : "<PrewarmStatus " + std::string(cudaGetErrorName(s.error)) + ": " + s.message + ">";
      });
  m.def("prewarm_context", [](int device) { return warmup::prewarm_context(device); },
        py::arg("device") = warmup::current_device);
  m.def(
      "prewarm_pool",
      [](std::size_t bytes, const py::object& stream) {
        return warmup::prewarm_pool(bytes, optional_stream(stream).value_or(nullptr));
      },
      py::arg("bytes"), py::arg("stream") = py::none());

  py::class_<warmup::steady_result>(m, "SteadyResult")
      .def_property_readonly("why", [](const warmup::steady_result& r) { return warmup::to_string(r.why); })
      .def_readonly("calls", &warmup::steady_result::calls)
      .def_readonly("warmup_calls", &warmup::steady_result::warmup_calls)
      .def_property_readonly("took_ns", [](const warmup::steady_result& r) { return r.took.count(); })
      .def_property_readonly("first_ns", [](const warmup::steady_result& r) { return r.first.count(); })
      .def_property_readonly("p50_ns", [](const warmup::steady_result& r) { return r.p50.count(); })
      .def_property_readonly("p50_low_ns", [](const warmup::steady_result& r) { return r.p50_low.count(); })
      .def_property_readonly("p50_high_ns", [](const warmup::steady_result& r) { return r.p50_high.count(); })
      .def_readonly("status", &warmup::steady_result::status)
      .def_property_readonly("steady", &warmup::steady_result::steady)
      .def("__bool__", &warmup::steady_result::steady);
  m.def(
      "until_steady",
      [](const py::object& fn, const py::object& name, const py::object& stream, std::size_t max_calls,
         double max_time_s, std::size_t steady_calls, double tolerance) {
        const py::str site = site_name(name);
        warmup::steady_limits limits;
        limits.max_calls = max_calls;
        limits.max_time = seconds_to_ns(max_time_s);
        limits.steady_calls = steady_calls;
        limits.tolerance = tolerance;
        const auto call = [&fn] { fn(); };  // a Python exception propagates as error_already_set
        const std::string text = site;
        if (stream.is_none()) return warmup::warmup_until_steady(text, call, limits);
        return warmup::warmup_until_steady(text, call, stream_of(stream), limits);
      },
      py::arg("fn"), py::arg("name"), py::arg("stream") = py::none(), py::arg("max_calls") = 1000,
      py::arg("max_time") = 30.0, py::arg("steady_calls") = 20, py::arg("tolerance") = 0.05);

  m.def("enable", &warmup::enable, "Measure again after disable().");
  m.def("disable", &warmup::disable, "Stop measuring: scopes cost a load and a branch.");
  m.def("set_attribution", &warmup::set_attribution, py::arg("on"),
        "Record why first calls were slow (CUPTI and CPU samples); returns whether it is on.");
}
