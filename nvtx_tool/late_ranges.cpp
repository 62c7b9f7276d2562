// Ranges ended after the report at exit (late_ranges.hpp).
#include "late_ranges.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include <warmup/detail/runtime/cuda_runtime.hpp>

#include "run_status.hpp"

namespace warmup_nvtx::late {
namespace {

std::atomic<std::uint64_t> after_report{0};

/// Called by the copy of the library that wrote the report at exit, right after it.
void report_was_written() {
  counting.store(true, std::memory_order_relaxed);
  run_status::report_written();
}

/// The last word: run after every exit handler and static destructor, and only where the
/// program ran them (exit, or a return from main).
__attribute__((destructor)) void say_how_many_came_late() {
  const std::uint64_t n = after_report.load(std::memory_order_relaxed);
  if (n == 0) return;
  char text[200];
  const int len = std::snprintf(text, sizeof text,
                                "warmup: %llu NVTX range%s ended after the report was written (in exit handlers or "
                                "static destructors) and %s not in it\n",
                                static_cast<unsigned long long>(n), n == 1 ? "" : "s", n == 1 ? "is" : "are");
  if (len > 0) (void)!::write(STDERR_FILENO, text, std::min(static_cast<std::size_t>(len), sizeof text - 1));
}

}  // namespace

void watch_the_report() noexcept {
  cuda_warmup::detail::cuda().after_exit_report.store(&report_was_written, std::memory_order_release);
}

void ended() noexcept { after_report.fetch_add(1, std::memory_order_relaxed); }

void after_fork_in_child() noexcept {
  counting.store(false, std::memory_order_relaxed);
  after_report.store(0, std::memory_order_relaxed);
}

}  // namespace warmup_nvtx::late
