// libwarmup_nvtx_thread.so: one pointer per thread in static TLS, for the NVTX tool beside it.
//
// The tool is loaded with dlopen, so its own thread_local variables are dynamic TLS: each read
// is a call to __tls_get_addr, two per range. This library holds one initial-exec variable, so
// glibc places it in the static TLS block it keeps for such libraries (the library is marked
// STATIC_TLS), at one offset from every thread's pointer; the tool loads it, asks that offset
// once, and then reads its thread's ranges with one load. Where this library cannot be loaded
// (missing, or the static TLS block full) the tool keeps its thread_local: slower, the same
// report. (docs/nvtx-tool.md, "Cost".)
namespace {
__attribute__((tls_model("initial-exec"))) __thread void* ranges_here = nullptr;
}

/// The slot's offset from the calling thread's pointer: the same for every thread; 0 (no slot:
/// the tool keeps its thread_local) where the compiler cannot name the thread pointer.
extern "C" __attribute__((visibility("default"))) long warmup_nvtx_thread_offset() {
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
  return static_cast<char*>(static_cast<void*>(&ranges_here)) - static_cast<char*>(__builtin_thread_pointer());
#endif
#endif
  return 0;
}
