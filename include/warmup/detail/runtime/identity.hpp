/// @file
/// @brief Who wrote a report: the rank as the job's launcher tells it, the host, the process, when
/// it started.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "warmup/detail/io/text.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/report.hpp"

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

/// `ms` since 1970 as ISO 8601 UTC, to the millisecond: "2026-11-26T23:59:59.123Z".
inline std::string iso_utc(std::int64_t ms) {
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm t{};
  if (ms < 0 || ::gmtime_r(&s, &t) == nullptr) return "unknown";
  char text[96];  // room for any int the format could be given, so no compiler warns of truncation
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

/// Who is writing the report, read now: the launcher's variables (a value that cannot be
/// trusted is said once, in the notices), the host's name, the pid.
inline run_identity read_identity() {
  run_identity id;
  const rank_reading rr = read_rank([](const char* n) { return std::getenv(n); });
  id.rank = rr.rank;
  id.local_rank = rr.local_rank;
  id.world_size = rr.world_size;
  id.launcher = rr.launcher;
  if (!rr.problems.empty() && !notice_board().raised(notice_kind::rank)) {
    std::string text = "the job's rank variables:";
    for (const std::string& p : rr.problems) text += " " + p + ";";
    text.pop_back();
    notice_board().raise(notice_kind::rank, text);
  }
  id.host = host_name();
  id.pid = static_cast<int>(::getpid());
  id.started = iso_utc(once().start_wall_ms.load(std::memory_order_relaxed));
  return id;
}

/// read_identity(), once per process: the host's name and the launcher's variables do not change
/// while it runs. A forked child has a pid of its own, so it reads its identity again (its notices
/// were cleared at the fork: a rank variable it cannot trust is said again, in its own report).
/// No lock, so a fork can never leave one held: an identity once published is never freed (one a
/// process, and one more in each forked child that takes a snapshot).
inline run_identity identity_now() {
  static std::atomic<const run_identity*> kept{nullptr};
  const int pid = static_cast<int>(::getpid());
  const run_identity* k = kept.load(std::memory_order_acquire);
  if (k != nullptr && k->pid == pid) return *k;
  const run_identity* fresh = new (std::nothrow) run_identity(read_identity());
  if (fresh == nullptr) return read_identity();  // out of memory: read now, keep nothing
  if (kept.compare_exchange_strong(k, fresh, std::memory_order_acq_rel)) return *fresh;
  run_identity id = k->pid == pid ? *k : *fresh;  // another thread published first
  delete fresh;
  return id;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
