// Long runs: 10^8 calls on one site and 10^5 distinct sites stay within the documented memory
// bound, and no count or sum overflows. Its own executable (a few seconds here), left out of the
// sanitizer builds, which would take minutes over it.
#include "catch.hpp"

#include <cstdio>
#include <string>

#include <unistd.h>

#include "warmup/detail/record/series.hpp"
#include "warmup/detail/analysis/statistics.hpp"
#include "warmup/profile.hpp"
#include "warmup/detail/runtime/registry.hpp"

namespace {
// README: a site holds at most 3.25 KiB plus 512 bytes per power of two of its durations; a
// duration has at most 58 powers of two, so no site used by one thread can pass 3.25 + 29 KiB.
constexpr std::size_t fixed_bound = 3328, block = 512, absolute_bound = fixed_bound + 58 * block;

void step() { WARMUP_SCOPE("long.one_site"); }

std::size_t resident_bytes() {
  long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int n = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}
}  // namespace

TEST_CASE("10^8 calls on one site: counts exact, memory within the bound, sums consistent") {
  constexpr std::uint64_t calls = 100'000'000;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) step();
  const std::size_t early = warmup::snapshot().library.site_bytes;
  for (std::uint64_t i = 1'000'000; i < calls; ++i) step();
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(warmup::op_kind::region, "long.one_site");
  REQUIRE(s != nullptr);
  CHECK(s->calls == calls);
  CHECK(s->host.calls == calls);
  REQUIRE(s->host.steady);
  CHECK(s->host.steady->calls + s->host.warmup_calls + s->host.cold_recurrences == calls);
  CHECK(r.library.site_bytes <= absolute_bound);
  // Growth after the first million calls is bounded by the powers of two the rare slow calls
  // (preemptions) reached: one block each.
  const auto octave = [](std::int64_t ns) { return 63 - __builtin_clzll(static_cast<std::uint64_t>(ns) | 1); };
  const int span = octave(s->host.steady->max.count()) - octave(s->host.steady->min.count()) + 1;
  CHECK(r.library.site_bytes - early <= static_cast<std::size_t>(span) * block);
  // The total is the exact sum: between calls x min and calls x max, and equal to calls x mean.
  const double total = double(s->host.total.count());
  CHECK(total >= double(calls) * double(s->host.steady->min.count()));
  // The mean is reported in whole ns (a scope here is some 15 to 30 ns): within 1 ns of total / calls.
  const double mean = double(s->host.steady->mean.count());
  CHECK(total >= (mean - 1) * double(calls));
  CHECK(total <= (mean + 1) * double(calls));
}

TEST_CASE("99,990 distinct sites, just under the cap: every one counted, memory within the bound") {
  constexpr int sites = static_cast<int>(warmup::detail::max_sites) - 10;
  const std::size_t rss_before = resident_bytes();
  const std::size_t bytes_before = warmup::snapshot().library.site_bytes;
  for (int i = 0; i < sites; ++i) {
    const std::string name = "long.site." + std::to_string(i);
    for (int c = 0; c < 3; ++c) warmup::launch_scope s{name};
  }
  const warmup::report r = warmup::snapshot();
  std::size_t found = 0;
  for (const auto& s : r.sites)
    if (s.name.rfind("long.site.", 0) == 0) found += s.op == warmup::op_kind::launch && s.calls == 3 && s.host.calls == 3;
  CHECK(found == sites);
  const std::size_t bytes = r.library.site_bytes - bytes_before;
  CHECK(bytes <= std::size_t{sites} * (fixed_bound + 32));  // 3 calls: exact window only, names inside
  // The process grew by what the sites say they hold, give or take the registry's indexes.
  const std::size_t rss_after = resident_bytes();
  if (rss_before != 0 && rss_after != 0) CHECK(rss_after - rss_before <= 2 * bytes + (64u << 20));
}

TEST_CASE("names beyond the site cap are counted together in one site per kind, said once") {
  for (int i = 0; i < 40; ++i) {
    warmup::launch_scope s{"long.beyond." + std::to_string(i)};
    warmup::h2d_scope c{"long.beyond." + std::to_string(i), 1};
  }
  const warmup::report r = warmup::snapshot();
  CHECK(r.sites.size() <= warmup::detail::max_sites + warmup::op_kind_count);
  std::uint64_t over_launch = 0, over_copy = 0;
  for (const auto& s : r.sites)
    if (s.name == warmup::detail::over_cap_name) (s.op == warmup::op_kind::launch ? over_launch : over_copy) = s.calls;
  CHECK(over_launch >= 30);
  CHECK(over_copy >= 30);
  int said = 0;
  for (const auto& n : r.notices) said += n.find("distinct site names") != std::string::npos;
  CHECK(said == 1);
}

TEST_CASE("long durations and many calls: sums stay exact, no overflow") {
  // 10^6 calls of about 18 minutes each: 1.1e18 ns in all, within 64 bits; the mean is exact.
  warmup::detail::series s;
  constexpr std::uint64_t n = 1'000'000, base = std::uint64_t{1} << 40;
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t v = base + (i % 1000) * 1'000'000;
    sum += v;
    s.record(i, v);
  }
  const auto t = warmup::detail::summarize(s.read());
  CHECK(t.calls == n);
  CHECK(static_cast<std::uint64_t>(t.total.count()) == sum);
}
