// Exactly 77 failed assertions: Catch2 2 would exit 77, which CTest reads as "skipped" on the
// programs that may skip. Run by the test catch_77_is_a_failure, which wants a failure.
#include "catch.hpp"

TEST_CASE("seventy-seven failed assertions") {
  for (int i = 0; i < 77; ++i) CHECK(i < 0);
}
