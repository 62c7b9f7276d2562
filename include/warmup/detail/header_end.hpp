// Included last by every warmup header: see header_begin.hpp. A file built light (WARMUP_LIGHT)
// compiles no runtime: the one file that includes <warmup/runtime.hpp> compiles it for the
// program or library. A file built with WARMUP_DISABLE compiles the public functions' inline
// no-ops whatever it is built as. The runtime is read at depth 1, inside this header, so that
// the helper macros hold for all of it; they go last.
#if WARMUP_DETAIL_DEPTH == 1
#if !defined(WARMUP_LIGHT) || defined(WARMUP_DISABLE)
#include "warmup/detail/runtime/compiled_once.hpp"
#endif
#undef WARMUP_DETAIL_DEPTH
#include "warmup/detail/macros_end.hpp"
#elif WARMUP_DETAIL_DEPTH == 2
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 1
#elif WARMUP_DETAIL_DEPTH == 3
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 2
#elif WARMUP_DETAIL_DEPTH == 4
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 3
#elif WARMUP_DETAIL_DEPTH == 5
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 4
#elif WARMUP_DETAIL_DEPTH == 6
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 5
#elif WARMUP_DETAIL_DEPTH == 7
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 6
#elif WARMUP_DETAIL_DEPTH == 8
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 7
#elif WARMUP_DETAIL_DEPTH == 9
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 8
#elif WARMUP_DETAIL_DEPTH == 10
#undef WARMUP_DETAIL_DEPTH
#define WARMUP_DETAIL_DEPTH 9
#endif
