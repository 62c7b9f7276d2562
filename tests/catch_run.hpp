// How every Catch2 program of these tests starts and ends: catch_main.cpp's main, the one main
// (Catch2's runner is slow to compile: once a build).
//
// Catch2 2 exits with the number of failed assertions (at most 255), and those programs run
// under CTest's SKIP_RETURN_CODE 77: exactly 77 failures would read as "skipped". A run's result
// of 77 becomes 1 here, so a skip is only ever before_tests() returning `warmup_test::skipped`.
#pragma once

namespace warmup_test {

constexpr int skipped = 77;

/// Called by catch_main.cpp's main before the tests: a status to exit with at once (a program
/// that needs a GPU, or its absence, returns `skipped`), or -1 to run them. The default, a weak
/// definition in catch_main.cpp, runs them; a program that may skip defines its own.
int before_tests() noexcept;

/// The exit status for a Catch2 run's result: never the skip status.
constexpr int exit_status(int catch_result) noexcept { return catch_result == skipped ? 1 : catch_result; }

}  // namespace warmup_test
