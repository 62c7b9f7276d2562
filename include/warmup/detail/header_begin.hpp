// Included first by every warmup header (no include guard: it counts). With header_end.hpp it
// tracks how deep the preprocessor is inside warmup's headers, so that the outermost one, and
// only it, defines the helper macros the headers are written with (macros.hpp) and ends by
// including compiled_once.hpp, then undefining them: the process's start-up and exit hooks then exist
// in every program that includes any warmup header, compiled_once.hpp sees every header complete, and
// the user's file keeps no helper macro. Files built light (WARMUP_LIGHT) leave compiled_once.hpp out:
// <warmup/runtime.hpp> compiles it in one file (config.hpp's light_link.hpp names the fix where
// no file does).
#if !defined(WARMUP_DETAIL_DEPTH)
#define WARMUP_DETAIL_DEPTH 1
#include "warmup/detail/macros.hpp"
#elif WARMUP_DETAIL_DEPTH == 1
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 2
#elif WARMUP_DETAIL_DEPTH == 2
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 3
#elif WARMUP_DETAIL_DEPTH == 3
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 4
#elif WARMUP_DETAIL_DEPTH == 4
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 5
#elif WARMUP_DETAIL_DEPTH == 5
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 6
#elif WARMUP_DETAIL_DEPTH == 6
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 7
#elif WARMUP_DETAIL_DEPTH == 7
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 8
#elif WARMUP_DETAIL_DEPTH == 8
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 9
#elif WARMUP_DETAIL_DEPTH == 9
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 10
#else
#error "warmup: headers nested deeper than header_begin.hpp counts"
#endif
