// Site names, streams and byte counts as Python passes them, read as the C++ scopes take them.
#pragma once

#include <pybind11/pybind11.h>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <string>

namespace warmup_python {
namespace py = pybind11;

/// Refuses, with the object's repr, what cannot name a site: a site's name is a str.
inline void require_site_name(const py::handle& name) {
  if (!PyUnicode_Check(name.ptr()))
    throw py::type_error("warmup: a site's name is a str, not " + std::string(py::repr(name)));
}

/// The stream a Python object names: an integer handle (0 is the legacy default stream), an
/// object with the `__cuda_stream__` protocol ((version, handle)), a `torch.cuda.Stream`
/// (`cuda_stream`) or a CuPy stream (`ptr`).
inline cudaStream_t stream_of(const py::handle& s) {
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

/// A byte count as Python passes it, read as the C++ scopes take it.
struct python_bytes {
  std::uint64_t count = 0;  ///< from 0 to 2**64 - 1, as C++ takes it
  long long negative = 0;   ///< where negative, the count (the scope says it once and counts 0 bytes)
  bool beyond = false;      ///< beyond 2**64 - 1: counted as that, its site's total saturated
};

/// Any integer: a negative one is said once and counted as 0 bytes, as in C++ (the most negative
/// 64-bit integer stands for one beyond it); one beyond 2**64 - 1 counts as 2**64 - 1 and makes
/// its site's byte total saturated, which the report says, as when a sum passes 2**64 - 1.
///
///     warmup.h2d("upload", 2**64)   # bytes.first 2**64 - 1, bytes.total_saturated
inline python_bytes bytes_of(const py::handle& b) {
  if (!py::isinstance<py::int_>(b) || py::isinstance<py::bool_>(b))
    throw py::type_error("warmup: bytes= takes an integer, not " + std::string(py::repr(b)));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(b.ptr(), &overflow);
  if (overflow < 0) return {0, LLONG_MIN, false};
  if (overflow == 0) return v < 0 ? python_bytes{0, v, false} : python_bytes{static_cast<std::uint64_t>(v), 0, false};
  const unsigned long long u = PyLong_AsUnsignedLongLong(b.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return {UINT64_MAX, 0, true};
  }
  return {u, 0, false};
}

}  // namespace warmup_python
