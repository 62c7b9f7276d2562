// Included first by every warmup header (no include guard: it runs each time). With
// header_end.hpp it finds the outermost warmup header of a file, and only it defines the helper
// macros the headers are written with (macros.hpp) and, at its end, compiles the runtime
// (compiled_once.hpp) and undefines them: the runtime then sees every header complete, and the
// user's file keeps no helper macro. WARMUP_DETAIL_OUTER is defined inside the outermost header
// alone; push_macro keeps each header's value across the headers it includes.
#pragma push_macro("WARMUP_DETAIL_OUTER")
#ifdef WARMUP_DETAIL_INSIDE
#undef WARMUP_DETAIL_OUTER
#else
#define WARMUP_DETAIL_INSIDE
#define WARMUP_DETAIL_OUTER
#include "warmup/detail/macros.hpp"
#endif
