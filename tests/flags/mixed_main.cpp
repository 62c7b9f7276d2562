// A program of files built with and without WARMUP_DISABLE: the measuring files' sites are all
// there, exactly, and the disabled file's are not (check_flags.py mixed).
#include <warmup/profile.hpp>

#include <cstdio>
#include <string_view>

void enabled_calls(int n);
void disabled_calls(int n);

static std::uint64_t calls_of(const warmup::report& r, std::string_view name) {
  const warmup::site_report* s = r.find(warmup::op_kind::region, name);
  return s != nullptr ? s->calls : 0;
}

int main() {
  enabled_calls(5);
  disabled_calls(7);
  enabled_calls(5);
  const warmup::report r = warmup::snapshot();
  const auto on = calls_of(r, "mixed.enabled"), on_macro = calls_of(r, "mixed.enabled_macro");
  const auto off = calls_of(r, "mixed.disabled"), off_macro = calls_of(r, "mixed.disabled_macro");
  std::printf("enabled %llu, enabled macro %llu, disabled %llu, disabled macro %llu, sites %zu\n",
              static_cast<unsigned long long>(on), static_cast<unsigned long long>(on_macro),
              static_cast<unsigned long long>(off), static_cast<unsigned long long>(off_macro), r.sites.size());
  return on == 10 && on_macro == 10 && off == 0 && off_macro == 0 && r.sites.size() == 2 ? 0 : 1;
}
