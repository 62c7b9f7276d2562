/// @file
/// @brief Samples of the Python code a thread ran, by which a CPU sample that fell in the
/// interpreter is named by that code rather than by the interpreter's shared object.
///
/// The CPU sampler (cpu_sampler.hpp) keeps the interrupted instruction only: in a Python process
/// most of a first call's CPU time then lies in the interpreter ("libpython3.12.so", or the
/// `python3` executable itself), which tells nobody what ran. The Python module
/// (python/code_sampler.hpp) samples the innermost Python frame of each thread in a sampled first
/// call, from a thread of its own holding the interpreter's lock, and hands each sample here with
/// its thread and time. The join (attribution.hpp) names a CPU sample in the interpreter's code
/// by a code sample of its thread near it in time (`code_view::at`), and a sample in another
/// object, or time the thread spent waiting, by the Python code that called it.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// What a code sample found running: the module it is reported under and the rest.
struct code_name {
  std::string module;    ///< the module's name to its second dotted part: "torch._dynamo"
  std::string function;  ///< the rest of the module's name, and the function's qualified name
};

/// The module a Python module is reported under, and the rest of its name: a package's first two
/// names ("torch._dynamo.symbolic_convert" is "torch._dynamo", "symbolic_convert"), so that a
/// library's parts stay apart (Dynamo from Inductor) while its files do not scatter the report.
inline code_name split_module(std::string_view module, std::string_view function) {
  std::size_t cut = module.find('.');
  if (cut != std::string_view::npos) cut = module.find('.', cut + 1);
  code_name n;
  if (cut == std::string_view::npos) {
    n.module.assign(module.empty() ? std::string_view{"[unknown module]"} : module);
    n.function.assign(function);
  } else {
    n.module.assign(module.substr(0, cut));
    n.function.assign(module.substr(cut + 1)).append(".").append(function);
  }
  return n;
}

/// One code sample: when (steady-clock ns, as CPU samples'), which thread (gettid) and what it
/// ran (an index into the store's names). An interval of one instant, for the store's
/// `interval_set`.
struct code_sample {
  std::uint64_t start_ns = 0, end_ns = 0;  ///< end = start + 1
  std::uint64_t thread = 0;
  std::uint32_t name = 0;
};

/// The code samples of one cold window's thread near the window, and where the interpreter's
/// code lies: what the join needs to name the window's CPU samples.
///
/// Which code sample names a CPU sample: the next one, where it comes within `reach_after_ns`.
/// The sampler asks for the interpreter's lock and gets it where the thread next lets it go: at
/// once where it waits, within a switch interval (5 ms) where it runs Python code, and only once
/// a long call into C code (compiling, hashing, importing an extension) returns, in the frame that
/// made the call. So the next sample names what ran before it; past a long gap, still the frame
/// whose call held the lock. Where none comes (the call ended), the one before, within `reach_ns`.
struct code_view {
  static constexpr std::uint64_t reach_ns = 20'000'000;          ///< the one before
  static constexpr std::uint64_t reach_after_ns = 1'000'000'000;  ///< the next one
  std::uintptr_t lo = 0, hi = 0;   ///< the interpreter's executable code, [lo, hi); empty: none
  std::vector<code_sample> samples;  ///< by time
  std::vector<code_name> names;      ///< by code_sample::name

  bool runs_python(std::uintptr_t pc) const noexcept { return pc >= lo && pc < hi; }

  /// What the thread ran at `ns`, or nullptr where no code sample lies within reach.
  const code_name* at(std::uint64_t ns) const noexcept {
    const auto after = std::lower_bound(samples.begin(), samples.end(), ns,
                                        [](const code_sample& s, std::uint64_t v) { return s.start_ns < v; });
    const code_sample* best = nullptr;
    if (after != samples.end() && after->start_ns - ns <= reach_after_ns) best = &*after;
    else if (after != samples.begin() && ns - std::prev(after)->start_ns <= reach_ns) best = &*std::prev(after);
    return best != nullptr && best->name < names.size() ? &names[best->name] : nullptr;
  }

  /// The code samples taken in [a, b).
  template <class F>
  void each_in(std::uint64_t a, std::uint64_t b, F&& f) const {
    auto it = std::lower_bound(samples.begin(), samples.end(), a,
                               [](const code_sample& s, std::uint64_t v) { return s.start_ns < v; });
    for (; it != samples.end() && it->start_ns < b; ++it)
      if (it->name < names.size()) f(names[it->name]);
  }
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
