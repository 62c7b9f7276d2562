// Ranges that end after the report at exit was written, which no report holds: counted, and
// said at the very end.
//
// They are those of exit handlers the program registered before its first NVTX call (the
// report's handler is registered at that call, and exit handlers run last registered first) and
// those of static destructors. The tool says how many from an ELF destructor (run by the dynamic
// linker's _dl_fini after every exit handler and static destructor):
//
//   warmup: 2 NVTX ranges ended after the report was written (in exit handlers or static
//   destructors) and are not in it
//
// The report is not moved later instead: the report's handler must run while the program's
// libraries (CUDA's runtime among them) are still alive, and that order is the C library's.
#pragma once

#include <atomic>

namespace warmup_nvtx::late {

/// Set once the report at exit was written: what a range's end reads.
inline std::atomic<bool> counting{false};

/// At the first NVTX call: asks the library to call back once its report at exit is written.
void watch_the_report() noexcept;
/// A measured range ended after the report (`counting` was set).
[[gnu::cold, gnu::noinline]] void ended() noexcept;
/// In a forked child: its report is its own, still to be written.
void after_fork_in_child() noexcept;

}  // namespace warmup_nvtx::late
