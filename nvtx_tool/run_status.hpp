// The records a launcher reads once its program has ended (`warmup-report run`, `python -m warmup
// run`: docs/nvtx-tool.md, "What the launcher says"): each process's first range, its report.
//
// The launcher names a private folder in WARMUP_NVTX_STATUS; each process the tool is loaded
// into writes one small file there at its first NVTX range, and one when its report at exit is
// written. A process with the first and not the second ended without its exit handlers (an exec,
// _exit, a signal): its ranges are in no report, and the launcher names it. An empty folder: no
// process made a range under the tool.
//
//   began.4242.9f86d081884c7d65    pid 4242\nprogram python train.py --epochs 3\n
//   report.4242.9f86d081884c7d65   pid 4242\n
//
// The last part names the program image (the kernel's random bytes for it: new at each exec, the
// same in a forked child, whose pid differs). Written with open(O_EXCL) and write(2), never on a
// range's path beyond the one flag `armed`.
#pragma once

#include <atomic>

namespace warmup_nvtx::run_status {

/// Set while this process's first range is still to be recorded: what a range's begin reads.
inline std::atomic<bool> armed{false};

/// At the first NVTX call: reads WARMUP_NVTX_STATUS; where it names a folder, arms the record.
void start() noexcept;
/// The first range of this process: writes its "began" record (once; later calls do nothing).
[[gnu::cold, gnu::noinline]] void range_began() noexcept;
/// The report at exit was written: writes this process's "report" record.
void report_written() noexcept;
/// In a forked child: a process of its own, whose first range is recorded again.
void after_fork_in_child() noexcept;

}  // namespace warmup_nvtx::run_status
