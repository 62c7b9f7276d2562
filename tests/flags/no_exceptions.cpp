// Built with -fno-exceptions -fno-rtti, measuring and with WARMUP_DISABLE: code of that kind (CUDA,
// games) includes the whole library and uses it (check_flags.py no_exceptions).
#include <warmup/profile.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  for (int i = 0; i < 10; ++i) {
    warmup::h2d_scope copy{"noexc.copy", 1 << 20};
    WARMUP_SCOPE("noexc.macro");
  }
  const int v = warmup::timed("noexc.timed", [] { return 7; });
  const warmup::report r = warmup::snapshot();
  const std::string target = argc > 1 ? argv[1] : "stdout";
  if (!warmup::write_report(r, target)) return 2;
  std::uint64_t copies = 0;
  for (const auto& s : r.sites)
    if (s.name == "noexc.copy") copies = s.calls;
  // Compiled out, the report says so: not enabled, and why there is no device.
  const bool ok = v == 7 && (warmup::enabled_at_compile_time
                                 ? copies == 10 && r.sites.size() == 3 && r.enabled
                                 : r.sites.empty() && !r.enabled &&
                                       r.device_status == "warmup was compiled with WARMUP_DISABLE");
  std::printf("%s: %zu sites, %llu copies\n", ok ? "ok" : "wrong", r.sites.size(),
              static_cast<unsigned long long>(copies));
  return ok ? 0 : 1;
}
