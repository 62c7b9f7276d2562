/// @file
/// @brief `warmup::mpi`: every rank's report gathered to one rank and merged there (target
/// `warmup::mpi`, which links MPI; the core never does).
///
/// Each rank sends a fixed-size summary: 256 bytes, and 160 bytes per site (200 sites: 32.25
/// KiB; detail/io/rank_wire.hpp), in one `MPI_Gather` of sizes and one `MPI_Gatherv`, on a duplicate of the caller's
/// communicator whose errors return instead of aborting the job.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <mpi.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/io/rank_wire.hpp"
#include "warmup/detail/io/report_destinations.hpp"
#include "warmup/merge.hpp"
#include "warmup/merge_formats.hpp"
#include "warmup/report_file.hpp"
#include "warmup/snapshot.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// MPI's words for an error code, for a message.
inline std::string mpi_error(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(code, text, &n) != MPI_SUCCESS) n = 0;
  return std::string(call) + " failed: " + (n > 0 ? std::string(text, std::size_t(n)) : "error " + std::to_string(code));
}

/// Whether MPI can be called now; if not, why. Every rank of a job sees the same answer, so a
/// refusal never leaves one rank waiting in a collective the others skipped.
inline bool mpi_usable(std::string& error) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (finalised) return error = "MPI is already finalised: gather before MPI_Finalize", false;
  if (!initialised) return error = "MPI is not initialised: gather after MPI_Init (or MPI_Init_thread)", false;
  return true;
}

/// A duplicate of `comm` whose errors come back as codes: the library's failures must not
/// abort the user's job, nor may it change the handler of the user's communicator.
class mpi_own_comm {
 public:
  mpi_own_comm(MPI_Comm comm, std::string& error) {
    const int rc = MPI_Comm_dup(comm, &comm_);
    if (rc != MPI_SUCCESS) {
      comm_ = MPI_COMM_NULL;
      error = mpi_error("MPI_Comm_dup", rc);
      return;
    }
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~mpi_own_comm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  mpi_own_comm(const mpi_own_comm&) = delete;
  mpi_own_comm& operator=(const mpi_own_comm&) = delete;
  MPI_Comm get() const noexcept { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace detail

namespace mpi {

/// @brief Gathers every rank's summary of `mine` to `root` and merges them there. Collective:
/// every rank of `comm` calls it. Returns the merged report on `root`, and an empty optional
/// on the other ranks, or everywhere with `error` set where MPI is not initialised, already
/// finalised, or failed. Ranks are numbered by their rank in `comm`.
/// \code
///   std::string error;
///   const auto merged = warmup::mpi::gather(warmup::snapshot(), MPI_COMM_WORLD, 0, error);
///   if (merged) warmup::print(*merged, std::cout);
/// \endcode
inline std::optional<merged_report> gather(const report& mine, MPI_Comm comm, int root, std::string& error) {
  error.clear();
  if (!detail::mpi_usable(error)) return std::nullopt;
  // MPI_COMM_NULL's errors go to MPI_COMM_WORLD's handler, fatal by default: refuse it first.
  if (comm == MPI_COMM_NULL) return error = "the communicator is MPI_COMM_NULL", std::nullopt;
  const detail::mpi_own_comm own(comm, error);
  if (own.get() == MPI_COMM_NULL) return std::nullopt;
  int rank = 0, ranks = 0;
  MPI_Comm_rank(own.get(), &rank);
  MPI_Comm_size(own.get(), &ranks);
  if (root < 0 || root >= ranks) return error = "root " + std::to_string(root) + " is no rank of the communicator", std::nullopt;

  // Everything travels in 32-byte units (the header and a site are multiples of it), so that
  // counts stay within an int up to 64 GiB at the root.
  constexpr int unit = 32;
  static_assert(sizeof(detail::wire_rank) % unit == 0 && detail::wire_site::size % unit == 0,
                "warmup: the wire records must be whole units");
  std::vector<unsigned char> bytes;
  detail::encode(summarize(mine), rank, bytes);
  MPI_Datatype unit_type = MPI_DATATYPE_NULL;
  int rc = MPI_Type_contiguous(unit, MPI_BYTE, &unit_type);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&unit_type);
  if (rc != MPI_SUCCESS) return error = detail::mpi_error("MPI_Type_commit", rc), std::nullopt;
  const int mine_units = static_cast<int>(bytes.size() / unit);
  std::vector<int> counts(rank == root ? std::size_t(ranks) : 0), offsets;
  rc = MPI_Gather(&mine_units, 1, MPI_INT, counts.data(), 1, MPI_INT, root, own.get());
  std::vector<unsigned char> all;
  if (rc == MPI_SUCCESS && rank == root) {
    offsets.resize(counts.size());
    std::int64_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) offsets[i] = static_cast<int>(total), total += counts[i];
    if (total > INT32_MAX) rc = MPI_ERR_COUNT;  // cannot happen below 64 GiB; checked all the same
    else all.resize(std::size_t(total) * unit);
  }
  if (rc == MPI_SUCCESS)
    rc = MPI_Gatherv(bytes.data(), mine_units, unit_type, all.data(), counts.data(), offsets.data(), unit_type, root, own.get());
  MPI_Type_free(&unit_type);
  if (rc != MPI_SUCCESS) return error = detail::mpi_error("gathering the reports", rc), std::nullopt;
  if (rank != root) return std::nullopt;

  std::vector<rank_summary> summaries(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const unsigned char* at = all.data() + std::size_t(offsets[std::size_t(r)]) * unit;
    if (!detail::decode(at, std::size_t(counts[std::size_t(r)]) * unit, summaries[std::size_t(r)]))
      return error = "rank " + std::to_string(r) + " sent a summary this build cannot read (another warmup version?)",
             std::nullopt;
    summaries[std::size_t(r)].rank = r;
  }
  all.clear();
  all.shrink_to_fit();
  return merge(std::move(summaries));
}

/// @brief Gathers this process's report (`warmup::snapshot()`) from every rank and writes the
/// merge on `root` to each destination of `spec`, as `WARMUP_REPORT` takes them
/// (`parse_destinations`): `stdout`, `stderr`, files whose extension names the format (`.txt`,
/// `.json`, `.csv`, `.svg`) or a path with the format after a colon (`/dev/fd/3:json`), comma
/// separated; a merge has no trace. Collective. Errors are said on stderr, never thrown, and
/// what could not be written goes there as the merged table; returns whether this rank did its
/// part (and on `root`, whether every destination was written).
/// \code
///   MPI_Init(&argc, &argv);
///   ... // scopes
///   warmup::mpi::write_merged("merged.json,merged.svg");
///   MPI_Finalize();
/// \endcode
inline bool write_merged(std::string_view spec, MPI_Comm comm = MPI_COMM_WORLD, int root = 0) noexcept {
  WARMUP_TRY {
    std::string error;
    const std::optional<merged_report> m = gather(snapshot(), comm, root, error);
    if (!error.empty()) {
      std::cerr << "warmup: merging the ranks' reports: " << error << '\n';
      return false;
    }
    if (!m) return true;  // not the root
    std::vector<report_destination> dests;
    bool ok = parse_destinations(spec, dests, error);
    if (!ok) std::cerr << "warmup: write_merged: " << error << "; the merged table follows instead\n";
    bool table_said = false;
    for (const report_destination& d : dests) {
      const std::optional<std::string> text = detail::format_document(*m, d.format);
      if (!text) {
        std::cerr << "warmup: write_merged: " << d.target << ": " << detail::format_refusal(document_kind::merged, info(d.format))
                  << "; the merged table follows instead\n";
        ok = false;
        continue;
      }
      if (d.target == "stdout" || d.target == "stderr") {
        (d.target == "stdout" ? std::cout : std::cerr) << *text << std::flush;
        table_said = table_said || (d.target == "stderr" && d.format == report_format::table);
        continue;
      }
      const std::string why = write_file_atomically(d.target, *text);
      if (!why.empty()) {
        std::cerr << "warmup: " << why << "; the merged table follows instead\n";
        ok = false;
      }
    }
    if (!ok && !table_said) print(*m, std::cerr);  // once, whatever failed: nothing measured is lost
    return ok;
  }
  WARMUP_CATCH_ALL { return false; }
}

}  // namespace mpi
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
