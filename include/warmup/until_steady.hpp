/// @file
/// @brief `warmup_until_steady`: call a function until warmup's own detector says it is warm,
/// instead of a warm-up count chosen by hand.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "warmup/config.hpp"
#include "warmup/detail/analysis/steady_rule.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/scope.hpp"
#include "warmup/steady_limits.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief What `warmup_until_steady` did: how many calls, how long, whether the site settled,
/// and at what speed.
/// \code
///   const warmup::steady_result r = warmup::warmup_until_steady("forward (prewarm)", forward, stream);
///   std::printf("%zu calls, %s, steady p50 %lld us\n", r.calls, warmup::to_string(r.why),
///               (long long)(r.p50.count() / 1000));
/// \endcode
struct steady_result {
  steady_stop why = steady_stop::error;  ///< why it stopped: steady, a budget spent, or an error
  std::size_t calls = 0;              ///< calls made, the failing one included
  std::chrono::nanoseconds took{0};   ///< from the first call's start to the last one's end
  std::size_t warmup_calls = 0;       ///< leading calls judged warm-up
  std::chrono::nanoseconds first{0};  ///< the first call (with its synchronisation)
  std::chrono::nanoseconds p50{0};    ///< median of the last window (0 before a window)
  ///@{
  /// The p50's 95% confidence interval, low and high ends.
  std::chrono::nanoseconds p50_low{0}, p50_high{0};
  ///@}
  prewarm_status status;              ///< why == error: what failed
  /// @brief Whether the site settled: `why == steady_stop::steady`.
  bool steady() const noexcept { return why == steady_stop::steady; }
};

namespace detail {

inline call_failure cuda_failure(const char* what, cudaError_t e) {
  return {static_cast<int>(e), std::string(what) + " " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e)};
}

template <class F>
call_failure call_user(F& fn) {
  using result = std::invoke_result_t<F&>;
  if constexpr (std::is_same_v<result, cudaError_t>) {
    if (const cudaError_t e = fn(); e != cudaSuccess) return cuda_failure("the function returned", e);
  } else {
    static_assert(std::is_void_v<result>, "warmup_until_steady: the function returns void or cudaError_t");
    fn();
  }
  return {};
}

template <class F>
steady_result until_steady(std::string_view name, F& fn, std::optional<cudaStream_t> stream,
                           const steady_limits& limits) {
  // A launch error the program already had is its own, not the loop's (host work: no CUDA call).
  const cudaError_t pending = stream ? cudaPeekAtLastError() : cudaSuccess;
  if (stream) {
    const prewarm_step step{"warmup_until_steady(\"" + std::string(name) + "\")"};
    if (auto refused = step.refuse_capturing(*stream)) {
      steady_result r;
      r.status = *refused;
      return r;
    }
  }
  const steady_run run = steady_loop(
      limits,
      [&]() -> call_failure {
        if (!stream) {
          const region_scope s{name};
          return call_user(fn);
        }
        {
          const region_scope s{name, *stream};
          if (call_failure f = call_user(fn); f.failed()) return f;
        }
        // The call's work is part of the call: the rule judges what a caller would wait for.
        if (const cudaError_t e = cudaStreamSynchronize(*stream); e != cudaSuccess)
          return cuda_failure("cudaStreamSynchronize failed:", e);
        if (const cudaError_t e = cudaPeekAtLastError(); e != cudaSuccess && pending == cudaSuccess)
          return cuda_failure("a launch in the function failed:", e);
        return {};
      },
      [] { return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()); });
  steady_result r;
  r.why = run.why;
  r.calls = run.calls;
  r.took = run.took;
  r.warmup_calls = run.verdict.warmup_calls;
  const auto ns = [](std::uint64_t v) { return std::chrono::nanoseconds{static_cast<std::chrono::nanoseconds::rep>(v)}; };
  r.first = ns(run.first_ns);
  r.p50 = ns(run.verdict.p50);
  r.p50_low = ns(run.verdict.p50_low);
  r.p50_high = ns(run.verdict.p50_high);
  r.status.took = run.took;
  if (run.why == steady_stop::error) {
    r.status.error = static_cast<cudaError_t>(run.failure.error);
    r.status.message = "warmup_until_steady(\"" + std::string(name) + "\"): " + run.failure.what;
  }
  return r;
}

}  // namespace detail

/// @brief Calls `fn` until the site `name` is steady by warmup's own rule, within a call and a
/// time budget: the answer to "how many warm-up passes?" that every serving stack fixes by hand.
///
/// Each call is a region scope `name` on `stream` (so the report shows the warm-up), followed by
/// `cudaStreamSynchronize(stream)`: the rule judges each call's host time including its work on
/// the stream. After every call the rule of `steady_limits` is applied: the last
/// `steady_calls` calls all after the warm-up (the report's band and Conway's rule), and the 95%
/// interval of their median within `tolerance`. When the site never settles, the loop stops at
/// the first budget spent and says which (`why`); the calls already made stay made, and the
/// report shows them. `fn` returns void or a cudaError_t (an error stops the loop, as does a
/// failed synchronisation: `status` says which); an exception from `fn` propagates. Give the
/// site a name of its own (not the real call's), so the report keeps prewarm and real calls apart.
/// \code
///   const auto r = warmup::warmup_until_steady("forward (prewarm)", [&] { model.forward(x, stream); }, stream);
///   if (!r.steady()) std::fprintf(stderr, "not steady after %zu calls: %s\n", r.calls, warmup::to_string(r.why));
/// \endcode
template <class F>
steady_result warmup_until_steady(std::string_view name, F&& fn, cudaStream_t stream,
                                  const steady_limits& limits = {}) {
  return detail::until_steady(name, fn, stream, limits);
}

/// @brief `warmup_until_steady` for host work: no stream, no synchronisation, no GPU needed.
/// \code
///   warmup::warmup_until_steady("tokenize (prewarm)", [&] { tokenize(sample); });
/// \endcode
template <class F>
steady_result warmup_until_steady(std::string_view name, F&& fn, const steady_limits& limits = {}) {
  return detail::until_steady(name, fn, std::nullopt, limits);
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
