// One Catch2 main shared by the host test executables (compiled once: Catch2's header is slow).
#if defined(WARMUP_CATCH2_V3)
#include <catch2/catch_session.hpp>
int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
