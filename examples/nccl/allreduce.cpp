// What a distributed job's first steps cost, per rank: CUDA context, NCCL communicator, the
// first all-reduce, and steady all-reduces of 256 KiB and 64 MiB. One process per GPU:
//   mpirun -np 2 allreduce [OUT]                 (built with MPI: gathered over MPI to rank 0)
//   torchrun --nproc-per-node 2 --no-python allreduce [OUT]
// Under mpirun (and built with MPI), rank 0 writes OUT (merged.json by default), gathered over
// MPI; otherwise (torchrun) each rank writes OUT's name with its rank (merged.rank0.json, ...)
// for `warmup-report merge`. NCCL's id reaches the ranks by MPI_Bcast, or under torchrun
// through a file beside OUT (the ranks share a host). Keep NCCL_NVLS_ENABLE=0 where NVLink
// multicast is not set up.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "warmup/profile.hpp"
#ifdef WARMUP_EXAMPLE_MPI
#include "warmup/mpi.hpp"
#endif

namespace {

int env_int(const char* a, const char* b, int fallback) {
  for (const char* name : {a, b})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return fallback;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "allreduce: %s\n", what.c_str());
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) die(std::string(what) + ": " + ncclGetErrorString(r));
}

/// Where rank 0 leaves the NCCL id without MPI: named after the job (torchrun's run id, else
/// its port), so that a file a crashed run left behind is never read as this run's.
std::string id_file(const std::string& out) {
  const char* job = std::getenv("TORCHELASTIC_RUN_ID") ? std::getenv("TORCHELASTIC_RUN_ID") : std::getenv("MASTER_PORT");
  return out + ".nccl-id." + (job ? job : "local");
}

/// Launched by mpirun (Open MPI's or a PMI launcher's variables), with the example built
/// with MPI: then MPI carries the NCCL id and the reports.
bool use_mpi() {
#ifdef WARMUP_EXAMPLE_MPI
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
#else
  return false;
#endif
}

/// Rank 0's NCCL id, to every rank: by MPI where the example uses it, else through a file.
ncclUniqueId share_id(int rank, const std::string& out) {
  ncclUniqueId id{};
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
#ifdef WARMUP_EXAMPLE_MPI
  if (use_mpi()) {
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    return id;
  }
#endif
  const std::string path = id_file(out), tmp = path + ".tmp";
  if (rank == 0) {
    std::ofstream(tmp, std::ios::binary).write(id.internal, sizeof id.internal);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) die("cannot write " + path);
  } else {
    for (int waited = 0;; ++waited) {  // rank 0 renames it into place whole
      std::ifstream in(path, std::ios::binary);
      if (in.read(id.internal, sizeof id.internal)) break;
      if (waited > 60000) die("no NCCL id from rank 0 in " + path + " after 60 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return id;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef WARMUP_EXAMPLE_MPI
  if (use_mpi()) MPI_Init(&argc, &argv);
#endif
  const std::string out = argc > 1 ? argv[1] : "merged.json";
  const int rank = env_int("OMPI_COMM_WORLD_RANK", "RANK", 0);
  const int ranks = env_int("OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", 1);
  const int local = env_int("OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK", 0);

  int devices = 0;
  {
    warmup::context_scope init{"cuda init"};
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    check(cudaSetDevice(local % devices), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(0)");
  }
  if (devices < ranks && rank == 0)
    std::fprintf(stderr, "allreduce: %d ranks on %d GPUs: NCCL needs a GPU per rank of a communicator\n", ranks, devices);
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  const ncclUniqueId id = share_id(rank, out);
  ncclComm_t comm = nullptr;
  {
    warmup::region_scope init{"ncclCommInitRank"};
    check(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
  }
  if (rank == 0 && !use_mpi()) std::remove(id_file(out).c_str());  // every rank has joined: all have read it
  if (rank == 0) {
    int v = 0;
    ncclGetVersion(&v);
    std::fprintf(stderr, "allreduce: %d ranks, NCCL %d.%d.%d, %s\n", ranks, v / 10000, v / 100 % 100, v % 100,
                 use_mpi() ? "reports gathered over MPI" : "a report per rank");
  }

  const std::size_t small = std::size_t{256} << 10, large = std::size_t{64} << 20;
  float* buf = nullptr;
  {
    warmup::alloc_scope a{"cudaMalloc 64 MiB", large};
    check(cudaMalloc(&buf, large), "cudaMalloc");
  }
  check(cudaMemsetAsync(buf, 0, large, stream), "cudaMemset");
  // The first all-reduce of each size is its site's first call; the rest are its steady state.
  for (int i = 0; i < 50; ++i) {
    {
      warmup::region_scope r{"allreduce 64 MiB", stream};
      check(ncclAllReduce(buf, buf, large / sizeof(float), ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
    }
    {
      warmup::region_scope r{"allreduce 256 KiB", stream};
      check(ncclAllReduce(buf, buf, small / sizeof(float), ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
    }
    if (i == 0) {  // the first steps, waited for: what a step costs end to end
      warmup::region_scope s{"first step synchronised"};
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

#ifdef WARMUP_EXAMPLE_MPI
  if (use_mpi()) warmup::mpi::write_merged(out + ",stdout");
#endif
  if (!use_mpi()) {
    const std::string::size_type dot = out.rfind('.');
    warmup::write_report(warmup::snapshot(), (dot == std::string::npos ? out : out.substr(0, dot)) + ".rank%r.json");
  }
  ncclCommDestroy(comm);
  cudaFree(buf);
  cudaStreamDestroy(stream);
#ifdef WARMUP_EXAMPLE_MPI
  if (use_mpi()) MPI_Finalize();
#endif
  return 0;
}
