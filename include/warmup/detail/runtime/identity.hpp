/// @file
/// @brief Who wrote a report: the rank as the job's launcher tells it, the host, the process.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "warmup/detail/io/text.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The rank, local rank and world size one launcher sets, by the names it sets them under.
struct rank_variables {
  const char* launcher;
  const char* rank;
  const char* local_rank;
  const char* world_size;
};

/// In the order they are believed: a launcher's own variables before torchrun's generic ones,
/// which a program may also set for itself (mpirun of a torch program sets both).
inline constexpr rank_variables launchers[] = {
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"Slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
};

/// What the environment says of this process's place in a job.
struct rank_reading {
  std::optional<int> rank, local_rank, world_size;
  std::string launcher;               ///< whose variables gave the rank; empty: none set
  std::vector<std::string> problems;  ///< one per variable set but not understood
};

/// A rank, local rank or size: a whole decimal number from 0 to 2^31 - 1, nothing around it.
inline std::optional<int> parse_rank_number(std::string_view v) noexcept {
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || end != v.data() + v.size() || x < 0 || x > 2147483647) return std::nullopt;
  return static_cast<int>(x);
}

/// Reads the first launcher whose rank variable is set, through `get` (std::getenv; tests
/// pass their own). A value that is not a number, or a rank not below the world size, is said
/// in `problems` and left empty: a report never claims a rank it was not given.
template <class Get>
rank_reading read_rank(Get&& get) {
  rank_reading out;
  for (const rank_variables& l : launchers) {
    const char* r = get(l.rank);
    if (r == nullptr) continue;
    out.launcher = l.launcher;
    const auto read = [&](const char* name, std::optional<int>& field) {
      const char* v = get(name);
      if (v == nullptr) return;
      field = parse_rank_number(v);
      if (!field) out.problems.push_back(std::string(name) + "='" + printable(v, 40) + "' is not a whole number from 0 to 2147483647; left out");
    };
    read(l.rank, out.rank);
    read(l.local_rank, out.local_rank);
    read(l.world_size, out.world_size);
    if (out.rank && out.world_size && *out.rank >= *out.world_size) {
      out.problems.push_back(std::string(l.rank) + "=" + std::to_string(*out.rank) + " is not below " + l.world_size +
                             "=" + std::to_string(*out.world_size) + "; both left out");
      out.rank.reset();
      out.world_size.reset();
    }
    return out;
  }
  return out;
}

/// This machine's name, printable, or "unknown".
inline std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown";
  return printable(buf, 255);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
