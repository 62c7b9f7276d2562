// The object Python's `with` enters (`warmup.region(...)` and each other kind): a type of
// CPython's own, not pybind11's, since what a Python scope costs is the calls at its two ends
// (BENCHMARKS.md, "Python scopes"): vectorcall functions and methods, no argument tuples.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <new>
#include <string_view>
#include <thread>
#include <vector>

#include "streams.hpp"
#include "warmup/profile.hpp"

namespace warmup_python {

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

/// Ends `call` as its scope's destructor does; `raised`: Python left the `with` by an exception.
inline void end_call(std::unique_ptr<open_call> call, bool raised) noexcept {
  if (!raised) return;  // `call` ends as it goes out of scope
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

/// A scope object: its site (kind, name), byte count and stream, and the calls it has open. One
/// object may be entered again, nested or from other threads (the GIL orders the entries): each
/// entry is its own call, ended by the latest exit on the thread that began it.
struct scope_object {
  PyObject_HEAD
  warmup::op_kind kind;
  PyObject* name;  // a str, owned
  python_bytes bytes;
  bool on_stream;
  cudaStream_t stream;
  std::vector<std::unique_ptr<open_call>>* open;  // null until the first entry
};

template <class Op>
std::unique_ptr<open_call> open_scope(const scope_object& o, std::string_view name) {
  if constexpr (warmup::detail::takes_bytes<Op>) {
    if (o.bytes.negative != 0) {  // said once by the scope, as in C++
      if (o.on_stream) return std::make_unique<open_call_of<Op>>(name, o.bytes.negative, o.stream);
      return std::make_unique<open_call_of<Op>>(name, o.bytes.negative);
    }
    if (o.bytes.beyond && warmup::detail::measuring.load(std::memory_order_relaxed))
      if (warmup::detail::site* s = warmup::detail::find_site(Op::kind, name)) s->bytes_saturated();
    if (o.on_stream) return std::make_unique<open_call_of<Op>>(name, o.bytes.count, o.stream);
    return std::make_unique<open_call_of<Op>>(name, o.bytes.count);
  } else {
    if (o.on_stream) return std::make_unique<open_call_of<Op>>(name, o.stream);
    return std::make_unique<open_call_of<Op>>(name);
  }
}

inline std::unique_ptr<open_call> open_scope(const scope_object& o, std::string_view name) {
  using warmup::op_kind;
  namespace op = warmup::op;
  switch (o.kind) {
    case op_kind::context: return open_scope<op::context>(o, name);
    case op_kind::alloc: return open_scope<op::alloc>(o, name);
    case op_kind::h2d: return open_scope<op::h2d>(o, name);
    case op_kind::d2h: return open_scope<op::d2h>(o, name);
    case op_kind::d2d: return open_scope<op::d2d>(o, name);
    case op_kind::launch: return open_scope<op::launch>(o, name);
    case op_kind::region: return open_scope<op::region>(o, name);
  }
  return nullptr;
}

inline PyObject* scope_enter(PyObject* self, PyObject*) {
  auto* o = reinterpret_cast<scope_object*>(self);
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(o->name, &size);
  if (text == nullptr) return nullptr;
  try {
    if (o->open == nullptr) o->open = new std::vector<std::unique_ptr<open_call>>;
    o->open->push_back(open_scope(*o, std::string_view{text, static_cast<std::size_t>(size)}));
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  Py_INCREF(self);
  return self;
}

inline PyObject* scope_exit(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  auto* o = reinterpret_cast<scope_object*>(self);
  const bool raised = nargs > 0 && args[0] != Py_None;
  const auto me = std::this_thread::get_id();
  if (o->open != nullptr) {
    for (auto it = o->open->end(); it != o->open->begin();) {
      --it;
      if ((*it)->thread != me) continue;
      std::unique_ptr<open_call> call = std::move(*it);
      o->open->erase(it);
      end_call(std::move(call), raised);
      Py_RETURN_FALSE;  // an exception propagates unchanged
    }
  }
  PyErr_SetString(PyExc_ValueError, "warmup: __exit__ without __enter__ on this thread");
  return nullptr;
}

inline void scope_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<scope_object*>(self);
  delete o->open;  // calls still open end here (a `with` abandoned in a generator never closed)
  Py_XDECREF(o->name);
  Py_TYPE(self)->tp_free(self);
}

inline PyObject* scope_repr(PyObject* self) {
  auto* o = reinterpret_cast<scope_object*>(self);
  const std::string_view kind = warmup::to_string(o->kind);
  return PyUnicode_FromFormat("<warmup.%.*s %R%s>", static_cast<int>(kind.size()), kind.data(), o->name,
                              o->on_stream ? " on a stream" : "");
}

inline PyMethodDef scope_methods[] = {
    {"__enter__", reinterpret_cast<PyCFunction>(scope_enter), METH_NOARGS, "Begins a call of the site."},
    {"__exit__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(scope_exit)), METH_FASTCALL,
     "Ends this thread's latest call; an exception is counted and propagates."},
    {nullptr, nullptr, 0, nullptr}};

inline PyTypeObject scope_type = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "warmup.Scope";
  t.tp_basicsize = sizeof(scope_object);
  t.tp_dealloc = scope_dealloc;
  t.tp_repr = scope_repr;
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = "One site's calls: `with` begins a call and its end ends it.";
  t.tp_methods = scope_methods;
  return t;
}();

/// The argument named `key` of a vectorcall: positional `index`, or by keyword; nullptr if absent.
inline PyObject* argument(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Py_ssize_t index,
                          const char* key) {
  if (index < nargs) return args[index];
  if (kwnames != nullptr) {
    const Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), key) == 0) return args[nargs + i];
  }
  return nullptr;
}

/// `warmup.region(name, stream=None)`, `warmup.h2d(name, bytes, stream=None)`, ...: a new scope.
template <warmup::op_kind Kind>
PyObject* make_scope(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  constexpr bool takes_bytes = warmup::detail::has_trait(Kind, warmup::detail::kind_trait::takes_bytes);
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t allowed = takes_bytes ? 3 : 2;
  const Py_ssize_t given = nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  PyObject* name = argument(args, nargs, kwnames, 0, "name");
  PyObject* bytes = takes_bytes ? argument(args, nargs, kwnames, 1, "bytes") : nullptr;
  PyObject* stream = argument(args, nargs, kwnames, takes_bytes ? 2 : 1, "stream");
  const std::string_view kind = warmup::to_string(Kind);
  if (given > allowed || name == nullptr || (takes_bytes && bytes == nullptr) ||
      given != (name != nullptr) + (bytes != nullptr) + (stream != nullptr)) {
    PyErr_Format(PyExc_TypeError, "warmup.%.*s takes (name%s, stream=None)", static_cast<int>(kind.size()),
                 kind.data(), takes_bytes ? ", bytes" : "");
    return nullptr;
  }
  python_bytes count;
  cudaStream_t handle = nullptr;
  const bool on_stream = stream != nullptr && stream != Py_None;
  try {
    require_site_name(name);
    if (bytes != nullptr) count = bytes_of(bytes);
    if (on_stream) handle = stream_of(stream);
  } catch (pybind11::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (const pybind11::builtin_exception& e) {
    e.set_error();
    return nullptr;
  }
  auto* o = PyObject_New(scope_object, &scope_type);
  if (o == nullptr) return nullptr;
  o->kind = Kind;
  Py_INCREF(name);
  o->name = name;
  o->bytes = count;
  o->on_stream = on_stream;
  o->stream = handle;
  o->open = nullptr;
  return reinterpret_cast<PyObject*>(o);
}

template <warmup::op_kind Kind>
constexpr PyMethodDef maker(const char* name, const char* doc) {
  return {name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(make_scope<Kind>)),
          METH_FASTCALL | METH_KEYWORDS, doc};
}

inline PyMethodDef scope_makers[] = {
    maker<warmup::op_kind::context>("context", "context(name, stream=None): times context and device set-up."),
    maker<warmup::op_kind::alloc>("alloc", "alloc(name, bytes, stream=None): times an allocation."),
    maker<warmup::op_kind::h2d>("h2d", "h2d(name, bytes, stream=None): times a host-to-device copy."),
    maker<warmup::op_kind::d2h>("d2h", "d2h(name, bytes, stream=None): times a device-to-host copy."),
    maker<warmup::op_kind::d2d>("d2d", "d2d(name, bytes, stream=None): times a device-to-device copy."),
    maker<warmup::op_kind::launch>("launch", "launch(name, stream=None): times a kernel launch."),
    maker<warmup::op_kind::region>("region", "region(name, stream=None): times any block of work."),
    {nullptr, nullptr, 0, nullptr}};

/// Adds Scope and its makers to module `m`.
inline void add_scopes(pybind11::module_& m) {
  if (PyType_Ready(&scope_type) < 0) throw pybind11::error_already_set();
  Py_INCREF(&scope_type);
  if (PyModule_AddObject(m.ptr(), "Scope", reinterpret_cast<PyObject*>(&scope_type)) < 0 ||
      PyModule_AddFunctions(m.ptr(), scope_makers) < 0)
    throw pybind11::error_already_set();
}

}  // namespace warmup_python
