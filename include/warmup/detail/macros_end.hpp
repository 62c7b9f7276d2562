// The helper macros undefined at the end of the outermost warmup header (header_end.hpp at depth
// 1, after the runtime it includes there): a user's file keeps only the public macros. No include
// guard: every outermost header ends here. The list for the whole library: macros.hpp's helpers
// (every outermost header defines them again), and those a header defines for itself alone and
// does not undefine at its own end (read once, such a header needs its helper once). A macro that
// a public macro's expansion names (WARMUP_DETAIL_SCOPE, _CONCAT, _FIRST behind WARMUP_SCOPE)
// must stay. tests/flags' one_file fails on a WARMUP_* macro left behind.

// macros.hpp's
#undef WARMUP_HOT_INLINE
#undef WARMUP_DETAIL_RUNTIME
#undef WARMUP_DETAIL_ABI_NAME_
#undef WARMUP_DETAIL_ABI_NAME
#undef WARMUP_ABI_NAMESPACE
#undef WARMUP_BEGIN_NAMESPACE
#undef WARMUP_END_NAMESPACE
#undef WARMUP_TRY
#undef WARMUP_CATCH_ALL
#undef WARMUP_DETAIL_STRING_
#undef WARMUP_DETAIL_STRING
#undef WARMUP_DETAIL_FIELD

// Defined and used by one header each
#undef WARMUP_DETAIL_ANCHOR           // detail/process.hpp
#undef WARMUP_DETAIL_ANCHOR_VARIABLE  // detail/process.hpp
#undef WARMUP_DETAIL_APART_VARIABLE   // detail/process.hpp
#undef WARMUP_DETAIL_ITANIUM_EH       // detail/record/exception_depth.hpp
