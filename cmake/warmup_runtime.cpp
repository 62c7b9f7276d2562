// warmup's runtime, compiled once for each target that links warmup::warmup: the target's own
// files are built light (WARMUP_LIGHT, an INTERFACE definition of warmup::warmup) and compile
// only what their scopes run. See include/warmup/runtime.hpp.
#include <warmup/runtime.hpp>
