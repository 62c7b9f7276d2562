// One Catch2 main shared by the host test executables (compiled once: Catch2's header is slow).
#if defined(WARMUP_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif
#include "catch_run.hpp"

int main(int argc, char* argv[]) { return warmup_test::run_catch(argc, argv); }
