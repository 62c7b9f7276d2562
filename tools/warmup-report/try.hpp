// `warmup-report try -- PROGRAM ARGS...`: the program run cold, then with each remedy that needs
// no code change, enough times each to tell its effect from run-to-run noise (try.cpp;
// docs/try.md).
#pragma once

#include <string>
#include <vector>

/// Runs `args` (options, then "--" and the program with its arguments) as `try`; returns 0 when
/// done, 2 for bad usage or where no cold run succeeded, 126 and 127 where the program could not
/// be started (as a shell).
int try_command(const std::vector<std::string>& args, const char* usage);
