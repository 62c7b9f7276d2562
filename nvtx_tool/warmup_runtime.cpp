// The one file of the tool that compiles warmup's runtime (the others are built light): the
// tool's sites join the program's, if it measures too, in one report.
#include <warmup/runtime.hpp>
