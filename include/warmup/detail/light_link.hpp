// A file built light (WARMUP_LIGHT) calls the runtime, which one file of the program compiles
// (<warmup/runtime.hpp>; the CMake target links it as warmup::runtime). Where no file does, the
// link fails, and the first undefined reference a linker prints must say what to add, not name one
// of the twenty-odd internals a light file calls: this puts a reference to the one whose name
// says it (start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file, record/site.hpp) at the
// start of the file's .text, ahead of every other (GNU ld, gold and lld report in that order). The
// call is never run. Once per file (config.hpp includes it, after the version and before any
// warmup code); x86-64 and AArch64 host code. The symbol is the function's mangled name in the
// version's inline namespace (`v` and WARMUP_ABI_VERSION, its length first). No label: under
// link-time optimisation every file's top-level assembly is joined into one, where a label each
// file defined would be defined twice.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"  // the version, where this file is read alone (config.hpp includes it)

#if defined(WARMUP_LIGHT) && !defined(WARMUP_DISABLE) && !defined(__CUDA_ARCH__) && defined(__ELF__) && \
    (defined(__GNUC__) || defined(__clang__))
#if WARMUP_ABI_VERSION < 10
#define WARMUP_DETAIL_LIGHT_LINK_NAMESPACE "2v" WARMUP_DETAIL_STRING(WARMUP_ABI_VERSION)
#elif WARMUP_ABI_VERSION < 100
#define WARMUP_DETAIL_LIGHT_LINK_NAMESPACE "3v" WARMUP_DETAIL_STRING(WARMUP_ABI_VERSION)
#else
#define WARMUP_DETAIL_LIGHT_LINK_NAMESPACE "4v" WARMUP_DETAIL_STRING(WARMUP_ABI_VERSION)
#endif
#define WARMUP_DETAIL_LIGHT_LINK_SYMBOL                                     \
  "_ZN11cuda_warmup" WARMUP_DETAIL_LIGHT_LINK_NAMESPACE                     \
  "6detail62start_runtime_light_builds_need_warmup_runtime_hpp_in_one_fileEv"
#if defined(__x86_64__)
__asm__(".pushsection .text\n"
        "\tcall " WARMUP_DETAIL_LIGHT_LINK_SYMBOL "@PLT\n"
        ".popsection\n");
#elif defined(__aarch64__)
__asm__(".pushsection .text\n"
        "\tbl " WARMUP_DETAIL_LIGHT_LINK_SYMBOL "\n"
        ".popsection\n");
#endif
#undef WARMUP_DETAIL_LIGHT_LINK_SYMBOL
#undef WARMUP_DETAIL_LIGHT_LINK_NAMESPACE
#endif

#include "warmup/detail/header_end.hpp"
