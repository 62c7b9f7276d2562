// A program with no warmup of its own that loads instrumented plugins, one after the other,
// unloads them, and loads them again: every plugin's calls of both rounds are in the one report
// written at exit, none at dlclose (check_flags.py shared_libs, no_export).
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  for (int round = 0; round < 2; ++round) {
    for (int plugin = 1; plugin < argc; ++plugin) {
      void* h = dlopen(argv[plugin], RTLD_NOW | RTLD_LOCAL);
      if (h == nullptr) return std::fprintf(stderr, "%s\n", dlerror()), 3;
      auto* b_calls = reinterpret_cast<void (*)(int)>(dlsym(h, "b_calls"));
      if (b_calls == nullptr) return 4;
      b_calls(10);
      dlclose(h);
    }
    std::fprintf(stderr, "round %d done\n", round);
  }
  return 0;
}
