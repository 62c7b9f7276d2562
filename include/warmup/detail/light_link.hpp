// A file built light (WARMUP_LIGHT) calls the runtime, which one file of the program compiles
// (<warmup/runtime.hpp>; the CMake target links it as warmup::runtime). Where no file does, the
// link fails, and the first undefined reference a linker prints must say what to add, not name one
// of the twenty-odd internals a light file calls: this puts a reference to the one whose name
// says it (start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file, record/site.hpp) at the
// start of the file's .text, ahead of every other (GNU ld, gold and lld report in that order). The
// call is never run. Once per file, before any other warmup code; x86-64 and AArch64 host code.
#if !defined(WARMUP_DETAIL_LIGHT_LINK) && defined(WARMUP_LIGHT) && !defined(WARMUP_DISABLE) && \
    !defined(__CUDA_ARCH__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define WARMUP_DETAIL_LIGHT_LINK
#define WARMUP_DETAIL_LIGHT_LINK_SYMBOL \
  "_ZN11cuda_warmup2v16detail62start_runtime_light_builds_need_warmup_runtime_hpp_in_one_fileEv"
#if defined(__x86_64__)
__asm__(".pushsection .text\n"
        ".type cuda_warmup_light_file_needs_the_runtime, @function\n"
        "cuda_warmup_light_file_needs_the_runtime:\n"
        "\tcall " WARMUP_DETAIL_LIGHT_LINK_SYMBOL "@PLT\n"
        ".popsection\n");
#elif defined(__aarch64__)
__asm__(".pushsection .text\n"
        ".type cuda_warmup_light_file_needs_the_runtime, %function\n"
        "cuda_warmup_light_file_needs_the_runtime:\n"
        "\tbl " WARMUP_DETAIL_LIGHT_LINK_SYMBOL "\n"
        ".popsection\n");
#endif
#undef WARMUP_DETAIL_LIGHT_LINK_SYMBOL
#endif
