// One Catch2 main shared by the Catch2 test programs (compiled once: Catch2's header is slow).
#if defined(WARMUP_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif
#include "catch_run.hpp"

// The default: run the tests. A program that may skip (tests/gpu, tests/no_gpu) defines its own.
__attribute__((weak)) int warmup_test::before_tests() noexcept { return -1; }

int main(int argc, char* argv[]) {
  if (const int status = warmup_test::before_tests(); status >= 0) return status;
  return warmup_test::exit_status(Catch::Session().run(argc, argv));
}
