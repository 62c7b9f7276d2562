// The one file of a light program that compiles warmup's runtime (check_flags.py light).
#include <warmup/runtime.hpp>
