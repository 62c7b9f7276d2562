// The Python code a sampled first call ran (include/warmup/detail/analysis/code_samples.hpp):
// CPU samples in a Python process mostly fall in the interpreter, which names nothing, so while a
// thread is in a sampled first call (WARMUP_CPU_SAMPLING) a thread of this module's takes the
// interpreter's lock every `period` and notes every thread's innermost Python frame: its module
// and function. The join names a CPU sample in the interpreter's code by the note nearest in time,
// the caller's own and those of the threads it may wait on (PyTorch's autograd engine thread runs
// a compiled model's backward, and compiles it, in Python).
//
// Why a thread holding the lock, not the signal handler: the handler would have to walk the
// interpreter's private frame structures, whose layout changes with every Python minor version,
// from a signal that may land while one is half built; holding the lock, the public API
// (PyThreadState_GetFrame) reads whole frames on every version. Its cost: a thread running Python
// hands the lock over at its next switch interval (sys.getswitchinterval), and waits while the
// frame is read (BENCHMARKS.md, "Python names"); nothing runs between first calls, and no signal
// is sent.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <string_view>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/runtime/child_watch.hpp"

namespace warmup_python {

/// The executable code of the object that holds `address`, [lo, hi); {0, 0} if none does.
inline std::pair<std::uintptr_t, std::uintptr_t> code_of_object_holding(const void* address) {
  struct search {
    std::uintptr_t at, lo = 0, hi = 0;
  } s{reinterpret_cast<std::uintptr_t>(address)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<search*>(data);
        bool holds = false;
        std::uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD) continue;
          const std::uintptr_t a = info->dlpi_addr + p.p_vaddr, b = a + p.p_memsz;
          holds = holds || (s->at >= a && s->at < b);
          if ((p.p_flags & PF_X) != 0) lo = std::min(lo, a), hi = std::max(hi, b);
        }
        if (!holds || hi == 0) return 0;
        s->lo = lo, s->hi = hi;
        return 1;
      },
      &s);
  return {s.lo, s.hi};
}

/// The module's code sampler: one per process, never destroyed (its thread may run past the
/// module's static destructors), stopped at Python's exit, before the interpreter finalises.
class code_sampler {
 public:
  static code_sampler& get() {
    static code_sampler* s = new code_sampler;
    return *s;
  }

  /// At import: the interpreter's code goes to the cause store, and the CPU sampler tells this
  /// one when a thread's sampled first call begins and ends. Once per process.
  void install() {
#ifdef Py_GIL_DISABLED
    return;  // no lock keeps another thread's frames still: its Python code stays unnamed
#endif
    const auto [lo, hi] = code_of_object_holding(reinterpret_cast<const void*>(&PyEval_EvalCode));
    warmup::detail::cause_records().set_interpreter(lo, hi);
    static const bool forks_handled = pthread_atfork([] { get().m_.lock(); }, [] { get().m_.unlock(); },
                                                     [] { get().after_fork_in_child(); }) == 0;
    (void)forks_handled;
    warmup::detail::sampler_state().watcher.store(&on_sampled_call, std::memory_order_release);
  }

  /// Whether first calls' Python code is sampled (`warmup.set_python_names`); returns the new state.
  bool set_on(bool on) noexcept {
    on_.store(on, std::memory_order_relaxed);
    return on;
  }
  bool on() const noexcept { return on_.load(std::memory_order_relaxed); }

  /// At Python's exit (atexit, before finalisation): ends the thread, which must not wait for the
  /// interpreter's lock once it finalises. The caller has released the lock.
  void stop() noexcept {
    std::thread* t = nullptr;
    {
      std::lock_guard<std::mutex> lock(m_);
      stopped_ = true;
      tids_.clear();
      t = worker_;
    }
    cv_.notify_all();
    if (t != nullptr && t->joinable()) t->join();
  }

 private:
  code_sampler() = default;

  static void on_sampled_call(long tid, bool begins) noexcept { get().watch(tid, begins); }

  void watch(long tid, bool begins) noexcept {
    try {
      std::lock_guard<std::mutex> lock(m_);
      const auto it = std::find(tids_.begin(), tids_.end(), tid);
      if (!begins) {
        if (it != tids_.end()) tids_.erase(it);
        return;
      }
      if (stopped_ || !on() || it != tids_.end()) return;
      if (worker_ == nullptr) {  // blocking every signal: the program's go to its own threads, as before
        sigset_t all, was;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &was);
        try {
          worker_ = new std::thread([this] { run(); });
        } catch (...) {
          pthread_sigmask(SIG_SETMASK, &was, nullptr);
          throw;
        }
        pthread_sigmask(SIG_SETMASK, &was, nullptr);
      }
      tids_.push_back(tid);
    } catch (...) {  // no thread, no memory: this call's Python code stays unnamed
      return;
    }
    cv_.notify_all();
  }

  void run() noexcept {
    pthread_setname_np(pthread_self(), "warmup-names");  // as `top -H` and /proc show it
    std::unique_lock<std::mutex> lock(m_);
    std::chrono::steady_clock::time_point polled{};
    for (;;) {
      cv_.wait(lock, [&] { return stopped_ || !tids_.empty(); });
      if (stopped_) return;
      lock.unlock();  // never held while waiting for the interpreter's lock
      sample();
      // The threads made since a sampled call began (PyTorch's autograd engine threads, made at
      // the first backward) get a CPU tick too, and the child processes (compilers, Inductor's
      // workers) are read, so that one gone before the call's end is named by its command: a
      // call may wait on either.
      if (const auto now = std::chrono::steady_clock::now(); now - polled >= poll_period) {
        polled = now;
        (void)warmup::detail::sample_new_threads();
        warmup::detail::note_children();
      }
      lock.lock();
      cv_.wait_for(lock, period, [&] { return stopped_; });
    }
  }

  /// Notes the innermost Python frame of each thread while a first call is sampled, holding the
  /// interpreter's lock: the calls are read once it is held, as one may have ended while this
  /// thread waited for it (the order is always the interpreter's lock, then `m_`).
  void sample() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
    if (!Py_IsInitialized() || Py_IsFinalizing()) return;
#else
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
#endif
    const PyGILState_STATE held = PyGILState_Ensure();
    const std::uint64_t now = warmup::detail::clock_ns(CLOCK_MONOTONIC);
    bool sampled = false;
    try {
      std::lock_guard<std::mutex> lock(m_);
      sampled = !tids_.empty();
    } catch (...) {
    }
    for (PyThreadState* t = PyInterpreterState_ThreadHead(PyInterpreterState_Main()); sampled && t != nullptr;
         t = PyThreadState_Next(t)) {
      const long tid = static_cast<long>(t->native_thread_id);
      PyFrameObject* frame = PyThreadState_GetFrame(t);  // this thread's own: none
      if (frame == nullptr) continue;  // in C code called from no Python frame
      note(tid, now, frame);
      Py_DECREF(frame);
    }
    PyGILState_Release(held);
  }

  static void note(long tid, std::uint64_t now, PyFrameObject* frame) noexcept {
    PyCodeObject* code = PyFrame_GetCode(frame);
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* globals = PyFrame_GetGlobals(frame);
    PyObject* function = code->co_qualname;
#else
    PyObject* globals = PyObject_GetAttrString(reinterpret_cast<PyObject*>(frame), "f_globals");
    if (globals == nullptr) PyErr_Clear();
    PyObject* function = code->co_name;
#endif
    PyObject* module = globals != nullptr && PyDict_Check(globals) ? PyDict_GetItemString(globals, "__name__") : nullptr;
    const std::string_view m = text_of(module != nullptr && PyUnicode_Check(module) ? module : code->co_filename);
    warmup::detail::cause_records().add_code_sample(static_cast<std::uint64_t>(tid), now, m, text_of(function));
    Py_XDECREF(globals);
    Py_DECREF(code);
  }

  /// A str's UTF-8, or "?" for what has none (a lone surrogate): a name, never an error raised
  /// in the program's thread state.
  static std::string_view text_of(PyObject* s) noexcept {
    Py_ssize_t n = 0;
    const char* t = s != nullptr && PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &n) : nullptr;
    if (t == nullptr) PyErr_Clear();
    return t != nullptr ? std::string_view{t, static_cast<std::size_t>(n)} : std::string_view{"?"};
  }

  /// In a forked child: the parent's thread is not the child's (its object is left, not joined),
  /// nor are the calls it sampled; the lock taken before the fork is released.
  void after_fork_in_child() noexcept {
    worker_ = nullptr;
    tids_.clear();
    new (&cv_) std::condition_variable;  // the parent's thread may have waited on it: a fresh one
    m_.unlock();
  }

  static constexpr std::chrono::milliseconds period{2};
  static constexpr std::chrono::milliseconds poll_period{50};  ///< new threads and child processes looked for
  std::atomic<bool> on_{true};
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<long> tids_;  // threads in a sampled first call (gettid)
  bool stopped_ = false;
  std::thread* worker_ = nullptr;
};

}  // namespace warmup_python
