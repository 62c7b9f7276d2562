// Ranks' summaries made by hand, for the tests of merges, comparisons and the MPI wire format.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "warmup/merge.hpp"

namespace summaries {

/// A rank's summary: its number (none: not launched as a job), host "h", and its sites.
inline warmup::rank_summary rank_of(std::optional<int> rank, std::vector<warmup::site_summary> sites,
                                    std::string version = "0.1.0") {
  warmup::rank_summary r;
  r.rank = rank;
  r.host = "h";
  r.library_version = std::move(version);
  r.sites = std::move(sites);
  return r;
}

/// A region site with its first call, steady p50 (or none) and calls.
inline warmup::site_summary site(std::string name, std::chrono::nanoseconds first,
                                 std::optional<std::chrono::nanoseconds> p50, std::uint64_t calls = 10) {
  warmup::site_summary s;
  s.name = std::move(name);
  s.first = first;
  s.p50 = p50;
  s.calls = calls;
  return s;
}

}  // namespace summaries
