// The native half of `import warmup` (warmup._warmup): the C++ scopes opened by Python's `with`
// and closed by its exit, the report and its writers, reading a report back, and prewarm.
//
// Built light, as any file that links warmup::warmup: the runtime is the build's one
// warmup::runtime, so this module holds a copy of it like any shared library, and every copy in
// the process (a C++ extension built with the header, a libtorch operator) joins the first
// through the process anchor (include/warmup/detail/process.hpp): one registry, one report.
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "warmup/detail/runtime/child_reports.hpp"
#include "warmup/detail/runtime/environment.hpp"
#include "warmup/json.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/profile.hpp"
#include "warmup/read.hpp"
#include "warmup/report_file.hpp"
#include "warmup/until_steady.hpp"
#include "code_sampler.hpp"
#include "detached_call.hpp"
#include "scope_object.hpp"
#include "streams.hpp"
#include "terminate_report.hpp"

namespace py = pybind11;
using warmup_python::stream_of;

namespace {

std::optional<cudaStream_t> optional_stream(const py::object& s) {
  if (s.is_none()) return std::nullopt;
  return stream_of(s);
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

  warmup_python::add_scopes(m);
  warmup_python::add_detached_calls(m);
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
      "_destinations_error",
      [](const std::string& spec) {
        std::vector<warmup::report_destination> dests;
        std::string error;
        (void)warmup::parse_destinations(spec, dests, error);
        return error;
      },
      "What is wrong with a destination list (as WARMUP_REPORT takes it), or ''.");

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
        warmup_python::require_site_name(name);
        warmup::steady_limits limits;
        limits.max_calls = max_calls;
        limits.max_time = seconds_to_ns(max_time_s);
        limits.steady_calls = steady_calls;
        limits.tolerance = tolerance;
        const auto call = [&fn] { fn(); };  // a Python exception propagates as error_already_set
        const std::string text = name.cast<std::string>();
        if (stream.is_none()) return warmup::warmup_until_steady(text, call, limits);
        return warmup::warmup_until_steady(text, call, stream_of(stream), limits);
      },
      py::arg("fn"), py::arg("name"), py::arg("stream") = py::none(), py::arg("max_calls") = 1000,
      py::arg("max_time") = 30.0, py::arg("steady_calls") = 20, py::arg("tolerance") = 0.05);

  m.def("write_report_at_exit_now", &warmup::write_report_at_exit_now,
        "WARMUP_REPORT's report now, as at exit, and not again at exit; whether it wrote one.");
  // Python's multiprocessing children (warmup/_child_processes.py).
  m.def("_report_beside_parent", &warmup::detail::report_beside_parent,
        "This process's reports go beside its parent's, tagged with its pid, never over them.");
  m.def("_report_on_sigterm", &warmup_python::arm_terminate_report,
        "Where SIGTERM's action is the default: the report at exit is written before it ends the process.");
  m.def(
      "_write_child_report",
      [] {
        const py::gil_scoped_release unlocked;  // SIGTERM's thread may be writing it: waited for
        return warmup_python::write_child_report();
      },
      "The report at exit now, once, never cut short by SIGTERM; whether this call wrote it.");
  m.def(
      "settings",
      [] {
        namespace wd = warmup::detail;
        py::list out;
        for (const wd::setting_row& r : wd::setting_table) {  // every row, walked as the library reads them
          const wd::setting_value v = wd::read_setting(r, [](const char* n) { return std::getenv(n); });
          py::dict d;
          d["variable"] = std::string(r.variable);
          d["takes"] = wd::accepted_values(r);
          d["default"] = r.kind == wd::value_kind::text ? py::object(py::none()) : py::str(wd::value_words(r, r.fallback));
          d["read_by"] = r.reader == wd::read_by::library ? "library" : "NVTX tool";
          d["function"] = r.function.empty() ? py::object(py::none()) : py::str(std::string(r.function));
          d["value"] = v.text == nullptr ? py::object(py::none()) : py::str(std::string(v.text));
          d["refused"] = v.message.empty() ? py::object(py::none()) : py::str(v.message);
          out.append(std::move(d));
        }
        return out;
      },
      "Every WARMUP_* variable (settings.hpp's table): what it takes, its default, who reads it, the C++ function that "
      "sets it, its value in this process's environment now, and why that value is refused, where it is.");
  m.def("enable", &warmup::enable, "Measure again after disable().");
  m.def("disable", &warmup::disable, "Stop measuring: scopes cost a load and a branch.");
  m.def("set_attribution", &warmup::set_attribution, py::arg("on"),
        "Record why first calls were slow (CUPTI and CPU samples); returns whether it is on.");

  warmup_python::code_sampler::get().install();
  m.def(
      "set_python_names", [](bool on) { return warmup_python::code_sampler::get().set_on(on); }, py::arg("on"),
      "Name CPU samples in the interpreter by the Python code they ran (on by default); returns the state.");
  m.def("_stop_code_sampler", [] {
    const py::gil_scoped_release unlocked;  // its thread may be waiting for the lock
    warmup_python::code_sampler::get().stop();
  });
}
