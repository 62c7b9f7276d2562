// `warmup-report advise REPORT.json`: the remedies for each slow first call of a report already
// written (advise.cpp).
#pragma once

#include <string>
#include <vector>

/// Prints, for each site whose first call (or calls cold again) has causes, the remedies they
/// support, largest saving first, at length: what each moves, how to apply it, what it did on
/// warmup's examples. Returns 0, or 2 for bad usage or an unreadable report.
int advise_command(const std::vector<std::string>& args, const char* usage);
