// Ranks under mpirun: each times "step" 10 + rank times and "rank only" on odd ranks, then
// every rank's report is gathered over MPI and merged on rank 0 (warmup::mpi::write_merged).
// Also checks the guards: a gather before MPI_Init and after MPI_Finalize says why and returns.
// usage: mpirun -np N mpi_ranks OUT_DIR
#include <mpi.h>

#include <chrono>
#include <iostream>
#include <string>

#include "warmup/mpi.hpp"
#include "warmup/profile.hpp"

namespace {
void spin(std::chrono::microseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}
int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) ++failures, std::cerr << "FAIL " << what << '\n';
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::cerr << "usage: mpi_ranks OUT_DIR\n", 2;
  const std::string dir = argv[1];
  std::string error;
  expect(!warmup::mpi::gather(warmup::snapshot(), MPI_COMM_WORLD, 0, error) && error.find("not initialised") != std::string::npos,
         "a gather before MPI_Init says MPI is not initialised (" + error + ")");

  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 10 + rank; ++i) {
    warmup::region_scope step{"step"};
    spin(std::chrono::microseconds(i == 0 ? 2000 * (rank + 1) : 100));
  }
  if (rank % 2 == 1) {
    warmup::region_scope only{"rank only"};
    spin(std::chrono::microseconds(50));
  }
  expect(!warmup::mpi::gather(warmup::snapshot(), MPI_COMM_NULL, 0, error) && error.find("MPI_COMM_NULL") != std::string::npos,
         "MPI_COMM_NULL is refused (" + error + ")");
  // A root outside the communicator is refused on every rank, and nothing hangs.
  expect(!warmup::mpi::gather(warmup::snapshot(), MPI_COMM_WORLD, size, error) && error.find("no rank") != std::string::npos,
         "a root outside the communicator is refused (" + error + ")");
  // Destinations as WARMUP_REPORT takes them: spaces around an entry, a format after a colon.
  const bool written = warmup::mpi::write_merged(dir + "/merged.json," + dir + "/merged.txt , " + dir + "/merged.out:csv");
  expect(written, "write_merged succeeds on rank " + std::to_string(rank));
  // A merge has no trace: refused on the root, said, the table on stderr instead.
  const bool trace = warmup::mpi::write_merged(dir + "/merged.trace.json");
  expect(trace == (rank != 0), "write_merged refuses a trace on the root only (rank " + std::to_string(rank) + ")");
  // The user's communicator keeps its own error handler.
  MPI_Errhandler h;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
  expect(h == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD's error handler is left as it was");
  MPI_Errhandler_free(&h);
  MPI_Finalize();

  expect(!warmup::mpi::gather(warmup::snapshot(), MPI_COMM_WORLD, 0, error) && error.find("finalised") != std::string::npos,
         "a gather after MPI_Finalize says MPI is finalised (" + error + ")");
  return failures == 0 ? 0 : 1;
}
