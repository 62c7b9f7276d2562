// `warmup-report run`: a program started under warmup's NVTX tool (run.cpp).
#pragma once

#include <string>
#include <vector>

/// Runs `args` (options, then "--" and the program with its arguments) under the tool, as a
/// child; returns its exit status (a signal that ended it is raised on this process), or 2 for
/// bad usage or no tool, 126 and 127 where it could not be started (as a shell).
int run_command(const std::vector<std::string>& args, const char* usage);
