// What went wrong with the program's ranges (pops with no push, ends of no open range, starts
// and pushes past their bounds), counted for the notice at exit (exit_and_fork.cpp).
#pragma once

#include <atomic>
#include <cstdint>

namespace warmup_nvtx {

/// The counts, rare: atomics.
struct tool_errors {
  std::atomic<std::uint64_t> bad_pops{0}, bad_ends{0}, dropped_starts{0}, deep_pushes{0};
  std::atomic<bool> measured{false};  ///< a range was given a site (set where a message is first looked up)
};
/// The process's counts (exit_and_fork.cpp).
tool_errors& error_counts();

}  // namespace warmup_nvtx
