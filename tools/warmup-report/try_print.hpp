// `warmup-report try`'s output (try_print.cpp): the tables, the remedies that need code, what
// was made cold, as text; and the same as a "warmup.try/1" JSON document.
#pragma once

#include <string>

#include "try_model.hpp"

namespace try_tool {

/// The readable result: per remedy tried, a table (site, figure, cold median [min-max], with the
/// remedy median [min-max], change, verdict) with the program's wall time; the remedies that need
/// code with their snippets and the figures of warmup's examples, labelled as such; and what was
/// made cold and what was not.
std::string as_text(const try_outcome& o);

/// The same as JSON (schema "warmup.try/1"): the runs (environment differences, status, per-site
/// figures in nanoseconds), the remedies tried and their verdicts, for tests and CI.
std::string as_json(const try_outcome& o);

}  // namespace try_tool
