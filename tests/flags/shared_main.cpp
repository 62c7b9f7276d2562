// A program with scopes, a linked library with scopes (lib_a) and a plugin with scopes (lib_b),
// loaded, used, unloaded and loaded again: one registry, one report at exit, every call in it
// (check_flags.py shared_libs).
#include <dlfcn.h>

#include <cstdio>
#include <string_view>

#include <warmup/profile.hpp>

#if !defined(NO_LINKED_LIBRARY)
extern "C" void a_calls(int n);
#else
static void a_calls(int) {}  // built without lib_a: the program and the plugin alone
#endif

namespace {
bool plugin_round(const char* path, int calls) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return std::fprintf(stderr, "%s\n", dlerror()), false;
  auto* b_calls = reinterpret_cast<void (*)(int)>(dlsym(h, "b_calls"));
  if (b_calls == nullptr) return false;
  b_calls(calls);
  return dlclose(h) == 0;
}

std::uint64_t calls_of(const warmup::report& r, std::string_view name) {
  const warmup::site_report* s = r.find(warmup::op_kind::region, name);
  return s != nullptr ? s->calls : 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  for (int i = 0; i < 20; ++i) warmup::region_scope s{"libs.shared"};
  a_calls(1);
  if (!plugin_round(argv[1], 10) || !plugin_round(argv[1], 10)) return 3;
  const warmup::report r = warmup::snapshot();
  std::printf("shared %llu, a %llu, b %llu\n", static_cast<unsigned long long>(calls_of(r, "libs.shared")),
              static_cast<unsigned long long>(calls_of(r, "libs.a")), static_cast<unsigned long long>(calls_of(r, "libs.b")));
#if !defined(NO_LINKED_LIBRARY)
  return calls_of(r, "libs.shared") == 41 && calls_of(r, "libs.a") == 1 && calls_of(r, "libs.b") == 20 ? 0 : 1;
#else
  return calls_of(r, "libs.shared") == 40 && calls_of(r, "libs.b") == 20 ? 0 : 1;
#endif
}
