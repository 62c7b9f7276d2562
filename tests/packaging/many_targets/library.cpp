// A shared library that measures, linked by two of the consumer's programs.
#include <warmup/profile.hpp>

void library_step() { WARMUP_SCOPE("library"); }
