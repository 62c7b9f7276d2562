// Run-time settings a test case changes, restored however the case ends (a failed REQUIRE
// included), so that the next case starts from the defaults.
#pragma once
#include <chrono>

#include "warmup/settings.hpp"

namespace warmup_test {

struct idle_threshold_kept {
  std::chrono::nanoseconds was = warmup::idle_threshold();
  ~idle_threshold_kept() { warmup::set_idle_threshold(was); }
};

}  // namespace warmup_test
