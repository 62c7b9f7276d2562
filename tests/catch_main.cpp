// One Catch2 main shared by the host test executables (compiled once: Catch2's header is slow).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
