// `warmup-report advise REPORT.json`: the remedies for each slow first call of a report already
// written (advise.cpp).
#pragma once

#include <string>

#include <warmup/report.hpp>

/// Prints, for each site of `r` (read from `path`, which its messages name) whose first call (or
/// calls cold again) has causes, the remedies they support, largest saving first, at length: what
/// each moves, how to apply it, what it did on warmup's examples.
void advise(const warmup::report& r, const std::string& path);
