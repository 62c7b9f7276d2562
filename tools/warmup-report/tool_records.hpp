// The NVTX tool's records of a run (nvtx_tool/run_status.hpp): the private folder the launcher
// names in WARMUP_NVTX_STATUS, and what the launcher says from it once the program has ended
// (tool_records.cpp; docs/nvtx-tool.md, "What the launcher says").
#pragma once

#include <sys/types.h>

#include <string>

/// A new folder of this user's alone for the records ($TMPDIR, else /tmp); empty where none
/// could be made (the run then goes on without records, and nothing is said of them).
std::string make_records_folder();

/// Says, on stderr after `prefix`, each process that made NVTX ranges under the tool and ended
/// without writing its report (naming it, and the signal that ended it where it was the child
/// `child`, which ended with wait status `status`); where no process made a range under the tool,
/// that the program made no NVTX call or set NVTX_INJECTION64_PATH itself. Then removes the folder.
/// \code
///   say_what_the_tool_recorded(folder, "warmup-report: run: ", "./app", pid, status);
/// \endcode
void say_what_the_tool_recorded(const std::string& folder, const char* prefix, const std::string& program,
                                pid_t child, int status);
