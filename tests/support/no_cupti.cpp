// Preloaded (LD_PRELOAD) by the test host_without_cupti: every dlopen of a libcupti fails, as on
// a machine without CUPTI, so that the library's path without it is what runs.
#include <dlfcn.h>

#include <cstring>

extern "C" void* dlopen(const char* file, int mode) {
  using open_fn = void* (*)(const char*, int);
  static open_fn real = nullptr;
  if (file != nullptr && std::strstr(file, "libcupti") != nullptr) return nullptr;
  if (real == nullptr) real = reinterpret_cast<open_fn>(dlsym(RTLD_NEXT, "dlopen"));
  return real(file, mode);
}
