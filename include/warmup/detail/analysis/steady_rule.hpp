/// @file
/// @brief The stopping rule of `warmup_until_steady`: when a series of calls has settled, judged
/// by the same warm-up rule as the report, and the loop that applies it within budgets.
/// Pure functions of the durations (and of an injected clock), so tests drive them with
/// synthetic series.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "warmup/steady_limits.hpp"

WARMUP_BEGIN_NAMESPACE

namespace detail {

/// What the rule says of the calls so far.
struct steady_verdict {
  bool steady = false;
  std::size_t warmup_calls = 0;  ///< leading calls judged warm-up, as the report would
  std::uint64_t p50 = 0, p50_low = 0, p50_high = 0;  ///< of the last window (ns); 0 before one
};

/// Empty if the limits can be used; otherwise why not.
std::string invalid_limits(const steady_limits& l);

/// The rule, applied to every call so far (ns, in call order).
steady_verdict judge_steady(const std::vector<std::uint64_t>& calls, std::size_t window, double tolerance);

/// One call's outcome, as the loop sees it: a CUDA error (cudaErrorUnknown where none applies)
/// and what failed; `error == cudaSuccess` when the call succeeded.
struct call_failure {
  int error = 0;  ///< a cudaError_t; int here, so the rule needs no CUDA header
  std::string what;
  bool failed() const noexcept { return error != 0; }
};

/// What the loop did.
struct steady_run {
  steady_stop why = steady_stop::error;
  std::size_t calls = 0;
  std::chrono::nanoseconds took{0};  ///< from the first call's start to the last call's end
  steady_verdict verdict;
  std::uint64_t first_ns = 0;
  call_failure failure;  ///< why == error: what failed
};

/// Whether the rule is judged after the n-th call: after every call up to 512, then 64 times
/// between one power of two and the next (every p/64-th call, p the power of two at or below n),
/// so that a loop of 2^20 short calls judges 1,216 times in all (512, then 63 up to 1024 and 64 in
/// each doubling after, 2^20 one more), not a million, and stops at most 1.6% of its calls later
/// than it could have.
constexpr bool judged_after(std::size_t n) noexcept {
  if (n <= 512) return true;
  std::size_t p = 512;
  while (p <= n / 2) p *= 2;
  return n % (p / 64) == 0;
}

/// Calls `call_once()` (returning a call_failure) until the rule holds or a budget is spent,
/// timing each call with `now()` (returning std::chrono::nanoseconds). The rule costs a few
/// microseconds a call at first: nothing against the calls it exists to wait out.
template <class CallOnce, class Now>
steady_run steady_loop(const steady_limits& limits, CallOnce&& call_once, Now&& now) {
  steady_run run;
  if (std::string bad = invalid_limits(limits); !bad.empty()) {
    run.failure = {1 /* cudaErrorInvalidValue */, "invalid limits: " + bad};
    return run;
  }
  std::vector<std::uint64_t> calls;
  calls.reserve(std::min<std::size_t>(limits.max_calls, 4096));
  const std::chrono::nanoseconds begin = now();
  for (;;) {
    const std::chrono::nanoseconds start = now();
    call_failure failed = call_once();
    const std::chrono::nanoseconds end = now();
    ++run.calls;
    run.took = end - begin;
    if (failed.failed()) {
      run.why = steady_stop::error;
      run.failure = std::move(failed);
      return run;
    }
    calls.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(0, (end - start).count())));
    if (calls.size() == 1) run.first_ns = calls.front();
    if (judged_after(calls.size())) run.verdict = judge_steady(calls, limits.steady_calls, limits.tolerance);
    if (run.verdict.steady) {
      run.why = steady_stop::steady;
      return run;
    }
    if (run.calls >= limits.max_calls) {
      run.why = steady_stop::call_budget;
      return run;
    }
    if (run.took >= limits.max_time) {
      run.why = steady_stop::time_budget;
      return run;
    }
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
