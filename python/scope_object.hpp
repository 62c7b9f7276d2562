// The object Python's `with` enters (`warmup.region(...)` and each other kind): a type of
// CPython's own, not pybind11's, since what a Python scope costs is the calls at its two ends
// (BENCHMARKS.md, "Python scopes"): vectorcall functions and methods, no argument tuples.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
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

/// The operation of kind `K`, as a scope reads one: its kind alone (op.hpp's row says the rest),
/// so that every row of the kind table is a Python scope with no list of kinds here.
template <warmup::op_kind K>
struct op_of {
  static constexpr warmup::op_kind kind = K;
};

using opener = std::unique_ptr<open_call> (*)(const scope_object&, std::string_view);
template <std::size_t... I>
constexpr std::array<opener, sizeof...(I)> openers_of(std::index_sequence<I...>) {
  return {&open_scope<op_of<static_cast<warmup::op_kind>(I)>>...};
}
/// open_scope for each kind, by kind.
inline constexpr std::array<opener, warmup::op_kind_count> openers =
    openers_of(std::make_index_sequence<warmup::op_kind_count>{});

inline std::unique_ptr<open_call> open_scope(const scope_object& o, std::string_view name) {
  return openers[static_cast<std::size_t>(o.kind)](o, name);
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

/// The maker of kind `Kind`'s scopes, `warmup.<kind>(name[, bytes], stream=None)`, named and
/// described from its row of the kind table.
template <warmup::op_kind Kind>
PyMethodDef maker() {
  constexpr bool takes_bytes = warmup::detail::has_trait(Kind, warmup::detail::kind_trait::takes_bytes);
  static const std::string name(warmup::to_string(Kind));
  static const std::string doc = name + (takes_bytes ? "(name, bytes, stream=None)" : "(name, stream=None)") +
                                 ": a scope of kind " + name + " (warmup::op::" + name + " in C++).";
  return {name.c_str(), reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(make_scope<Kind>)),
          METH_FASTCALL | METH_KEYWORDS, doc.c_str()};
}

template <std::size_t... I>
std::array<PyMethodDef, sizeof...(I) + 1> makers_of(std::index_sequence<I...>) {
  return {{maker<static_cast<warmup::op_kind>(I)>()..., {nullptr, nullptr, 0, nullptr}}};
}
/// Every kind's maker, in the kind table's order, and the sentinel CPython's list ends with.
inline std::array<PyMethodDef, warmup::op_kind_count + 1> scope_makers =
    makers_of(std::make_index_sequence<warmup::op_kind_count>{});

/// Adds Scope and its makers to module `m`.
inline void add_scopes(pybind11::module_& m) {
  if (PyType_Ready(&scope_type) < 0) throw pybind11::error_already_set();
  Py_INCREF(&scope_type);
  if (PyModule_AddObject(m.ptr(), "Scope", reinterpret_cast<PyObject*>(&scope_type)) < 0 ||
      PyModule_AddFunctions(m.ptr(), scope_makers.data()) < 0)
    throw pybind11::error_already_set();
  // The kinds, in the table's order, each with whether its scopes take a byte count: the package
  // exports a maker for each (warmup/__init__.py), and @timed offers those that take none.
  pybind11::dict kinds;
  for (std::size_t i = 0; i < warmup::op_kind_count; ++i) {
    const auto k = static_cast<warmup::op_kind>(i);
    kinds[pybind11::str(std::string(warmup::to_string(k)))] = warmup::detail::has_trait(k, warmup::detail::kind_trait::takes_bytes);
  }
  m.attr("op_kinds") = kinds;
}

}  // namespace warmup_python
