// Included last by every warmup header: see header_begin.hpp. The outermost header ends by
// compiling the runtime, where the file is built whole (a file built light compiles none: the one
// file that includes <warmup/runtime.hpp> compiles it; a WARMUP_DISABLE file compiles the public
// functions' inline no-ops whatever it is built as), with the helper macros defined for all of it;
// they go last.
#ifdef WARMUP_DETAIL_OUTER
#if !defined(WARMUP_LIGHT) || defined(WARMUP_DISABLE)
#include "warmup/detail/runtime/compiled_once.hpp"
#endif
#undef WARMUP_DETAIL_INSIDE
#include "warmup/detail/macros_end.hpp"
#endif
#pragma pop_macro("WARMUP_DETAIL_OUTER")
