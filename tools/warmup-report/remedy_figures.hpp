// What each remedy did on warmup's own examples, as warmup-report quotes it (remedy_figures.cpp),
// and a remedy at length for advise and try.
#pragma once

#include <warmup/remedy.hpp>
#include <warmup/report.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

/// The figures remedy `r` gave on our examples, or empty where they were not measured. Their
/// home is the row its `source` names (docs/folklore.md, BENCHMARKS.md); the test
/// `docs.readme_remedies` holds every figure here to that row, so a figure measured again there
/// fails the test until it is quoted again here.
std::string_view measured_on_our_examples(warmup::remedy r) noexcept;

/// One remedy at length: its line, then what it moves, how to apply it, and what it did on our
/// examples (never on the user's program: `try` measures that).
///     module_loading_eager: up to 55.0 ms: load every module when the context is made
///         moves: first launches load nothing; ...
///         set:   CUDA_MODULE_LOADING=EAGER  (warmup-report try measures it on your program)
///         on our examples: four first launches ... (docs/folklore.md: Kernels are loaded lazily)
std::vector<std::string> advice_lines(const warmup::detail::remedy_row& row, std::chrono::nanoseconds could_save);
