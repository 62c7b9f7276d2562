// The one file of the program that compiles warmup's runtime (the others are built light).
#include <warmup/runtime.hpp>
