// `warmup-report run`: a program started under warmup's NVTX tool (run.cpp).
#pragma once

#include <string>
#include <vector>

/// Runs `args` (options, then "--" and the program with its arguments) under the tool; returns
/// only where the program could not be started (2: bad usage or no tool; 126, 127: as a shell).
int run_command(const std::vector<std::string>& args, const char* usage);
