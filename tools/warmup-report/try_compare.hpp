// `warmup-report try`'s verdicts (try_compare.cpp): each figure of a remedy's runs against the
// cold runs', by the rule of try_verdict.hpp.
#pragma once

#include "try_model.hpp"

namespace try_tool {

/// Fills `t.verdicts`: per site (matched by kind and name across runs, in the order the cold runs
/// first show them, then the remedy's own), the first call and the time to the first result;
/// then the program's wall time. Only runs that succeeded count.
void compare_with_cold(const trial& cold, trial& t, const verdict_rule& rule = {});

}  // namespace try_tool
