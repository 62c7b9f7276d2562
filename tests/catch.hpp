// Catch2 2 (Debian's 2.13) or 3 (Ubuntu's): every test includes this instead of either's header.
// tests/CMakeLists.txt defines WARMUP_CATCH2_V3 when it found version 3.
#pragma once

#if defined(WARMUP_CATCH2_V3)
#include <catch2/catch_all.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
