// How every Catch2 program of these tests ends: catch_main.cpp's main, and the GPU and no-GPU
// programs' own mains (which may skip first). Include after "catch.hpp" in the file that defines
// CATCH_CONFIG_RUNNER.
//
// Catch2 2 exits with the number of failed assertions (at most 255), and those programs run
// under CTest's SKIP_RETURN_CODE 77: exactly 77 failures would read as "skipped". A run's result
// of 77 becomes 1 here, so a skip is only ever a main's explicit `return warmup_test::skipped;`.
#pragma once

namespace warmup_test {

constexpr int skipped = 77;

/// The exit status for a Catch2 run's result: never the skip status.
constexpr int exit_status(int catch_result) noexcept { return catch_result == skipped ? 1 : catch_result; }

inline int run_catch(int argc, char** argv) { return exit_status(Catch::Session().run(argc, argv)); }

}  // namespace warmup_test
