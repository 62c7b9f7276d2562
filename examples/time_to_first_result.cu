// time_to_first_result: how long a program takes from its start to its first answer when it
// must also read its weights from disk, with the GPU's first-call costs prewarmed on a thread
// while it reads (overlap), prewarmed after the read (after), or not prewarmed (none).
//
// The model: 1 GiB of FP32 weights (16 layers of 4096 x 4096), each layer an SGEMM on a batch
// of 64 and a ReLU. Prewarm is what the first inference would otherwise pay for: the context
// (warmup::prewarm_context), cuBLAS's handle and its SGEMM variant (warmup/cublas.hpp), the
// ReLU kernel (prewarm_kernels) and a stream-ordered pool that holds the weights and the
// activations (prewarm_pool). Everything else is the same in the three modes: the read, the
// upload from pageable memory, the forward pass.
//
//   time_to_first_result --make-weights FILE [--mib N]    write N MiB of weights (default 1024)
//   time_to_first_result --has-gpu                        exit 0 where a GPU is usable, else 77
//   time_to_first_result --weights FILE --prewarm overlap|after|none [--json FILE]
//
// The weights are dropped from the page cache before they are read (posix_fadvise), so the read
// is a read from disk. The last line says, for the check script and for people:
//   time_to_first_result mode=overlap total_ms=... load_ms=... prewarm_ms=... infer_ms=... checksum=...
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <warmup/cublas.hpp>
#include <warmup/profile.hpp>

namespace {

constexpr int width = 4096;
constexpr int batch = 64;
constexpr std::size_t layer_elements = std::size_t(width) * width;
constexpr std::size_t layer_bytes = layer_elements * sizeof(float);

__global__ void relu(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(0.0f, x[i]);
}

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "time_to_first_result: %s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Weights uniform in +-sqrt(6 / width) (activations keep their scale through 16 ReLU layers),
// from a counter hash: the same file everywhere, fast to make.
float weight(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double u = double(z >> 11) / double(1ull << 53);  // [0, 1)
  return float((2.0 * u - 1.0) * std::sqrt(6.0 / width));
}

int make_weights(const char* path, std::size_t mib) {
  if (mib == 0 || mib % (layer_bytes >> 20) != 0) {
    std::fprintf(stderr, "time_to_first_result: --mib must be a positive multiple of %zu\n", layer_bytes >> 20);
    return 2;
  }
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return std::perror(path), 1;
  std::vector<float> chunk(layer_elements);
  for (std::size_t layer = 0; layer < (mib << 20) / layer_bytes; ++layer) {
    for (std::size_t i = 0; i < layer_elements; ++i) chunk[i] = weight(layer * layer_elements + i);
    const char* p = reinterpret_cast<const char*>(chunk.data());
    for (std::size_t left = layer_bytes; left > 0;) {
      const ssize_t n = ::write(fd, p, left);
      if (n <= 0) return std::perror(path), ::close(fd), 1;
      p += n;
      left -= std::size_t(n);
    }
  }
  // On disk, then out of the page cache: the next read comes from the disk.
  if (::fsync(fd) != 0) return std::perror(path), ::close(fd), 1;
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  std::printf("wrote %zu MiB of weights to %s\n", mib, path);
  return 0;
}

// Reads the whole file into (pageable) host memory, after dropping it from the page cache.
std::unique_ptr<float[]> load_weights(const char* path, std::size_t& bytes) {
  warmup::region_scope s{"load weights from disk"};
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) return std::perror(path), nullptr;
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  ::lseek(fd, 0, SEEK_SET);
  if (size <= 0 || std::size_t(size) % layer_bytes != 0) {
    std::fprintf(stderr, "time_to_first_result: %s is not a whole number of %zu MiB layers\n", path, layer_bytes >> 20);
    ::close(fd);
    return nullptr;
  }
  bytes = std::size_t(size);
  std::unique_ptr<float[]> w(new float[bytes / sizeof(float)]);
  char* p = reinterpret_cast<char*>(w.get());
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = ::read(fd, p + done, std::min<std::size_t>(bytes - done, std::size_t{64} << 20));
    if (n <= 0) return std::perror(path), ::close(fd), nullptr;
    done += std::size_t(n);
  }
  ::close(fd);
  return w;
}

// What the GPU side holds: made by the prewarm (on its thread or after the load) or, with no
// prewarm, at the first inference.
struct gpu_state {
  cudaStream_t stream = nullptr;
  std::optional<warmup::cublas::handle> blas;
  std::string error;
};

bool set_up(gpu_state& g) {
  if (!check(cudaSetDevice(0), "cudaSetDevice") || !check(cudaStreamCreate(&g.stream), "cudaStreamCreate")) return false;
  g.blas.emplace(g.stream);
  if (!*g.blas) return g.error = g.blas->status().message, false;
  return true;
}

// Every first-call cost of the inference, paid now: on any thread.
bool prewarm(gpu_state& g, std::size_t weight_bytes) {
  const warmup::prewarm_status ctx = warmup::prewarm_context(0);
  if (!ctx) return g.error = ctx.message, false;
  if (!set_up(g)) return false;
  const std::size_t activations = 2 * std::size_t(width) * batch * sizeof(float);
  for (const warmup::prewarm_status& s :
       {warmup::cublas::prewarm(g.blas->get(), {warmup::cublas::gemm::fp32(width, batch, width)}),
        warmup::prewarm_kernels(&relu), warmup::prewarm_pool(weight_bytes + activations, g.stream)})
    if (!s) return g.error = s.message, false;
  return true;
}

// Upload, forward, download: the first result. Returns the output's checksum, or NaN.
double infer(gpu_state& g, const float* weights, std::size_t weight_bytes) {
  warmup::region_scope s{"first inference"};
  if (g.stream == nullptr && !set_up(g)) return NAN;
  const int layers = int(weight_bytes / layer_bytes);
  float *dw = nullptr, *act[2] = {nullptr, nullptr};
  const std::size_t act_bytes = std::size_t(width) * batch * sizeof(float);
  if (!check(cudaMallocAsync(&dw, weight_bytes, g.stream), "cudaMallocAsync") ||
      !check(cudaMallocAsync(&act[0], act_bytes, g.stream), "cudaMallocAsync") ||
      !check(cudaMallocAsync(&act[1], act_bytes, g.stream), "cudaMallocAsync"))
    return NAN;
  {
    warmup::h2d_scope up{"upload weights", weight_bytes, g.stream, weights};
    if (!check(cudaMemcpyAsync(dw, weights, weight_bytes, cudaMemcpyHostToDevice, g.stream), "upload")) return NAN;
  }
  std::vector<float> input(std::size_t(width) * batch), output(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = float(i % 97) / 97.0f;
  if (!check(cudaMemcpyAsync(act[0], input.data(), act_bytes, cudaMemcpyHostToDevice, g.stream), "upload input"))
    return NAN;
  {
    warmup::region_scope f{"forward", g.stream};
    const float one = 1.0f, zero = 0.0f;
    for (int l = 0; l < layers; ++l) {
      float* in = act[l % 2];
      float* out = act[(l + 1) % 2];
      if (cublasSgemm(g.blas->get(), CUBLAS_OP_N, CUBLAS_OP_N, width, batch, width, &one, dw + l * layer_elements,
                      width, in, width, &zero, out, width) != CUBLAS_STATUS_SUCCESS) {
        std::fprintf(stderr, "time_to_first_result: cublasSgemm failed\n");
        return NAN;
      }
      relu<<<(width * batch + 255) / 256, 256, 0, g.stream>>>(out, width * batch);
    }
  }
  if (!check(cudaMemcpyAsync(output.data(), act[layers % 2], act_bytes, cudaMemcpyDeviceToHost, g.stream), "download") ||
      !check(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize") || !check(cudaGetLastError(), "the forward"))
    return NAN;
  double sum = 0;
  for (float v : output) sum += v;
  for (float* p : {dw, act[0], act[1]}) cudaFreeAsync(p, g.stream);
  return sum;
}

int usage() {
  std::fprintf(stderr,
               "usage: time_to_first_result --make-weights FILE [--mib N]\n"
               "       time_to_first_result --has-gpu\n"
               "       time_to_first_result --weights FILE --prewarm overlap|after|none [--json FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const clock_type::time_point start = clock_type::now();
  const char *make = nullptr, *weights_path = nullptr, *mode = nullptr, *json_path = nullptr;
  std::size_t mib = 1024;
  bool has_gpu = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--make-weights" && i + 1 < argc) make = argv[++i];
    else if (a == "--mib" && i + 1 < argc) mib = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--has-gpu") has_gpu = true;
    else if (a == "--weights" && i + 1 < argc) weights_path = argv[++i];
    else if (a == "--prewarm" && i + 1 < argc) mode = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else return usage();
  }
  if (make != nullptr) return make_weights(make, mib);
  if (has_gpu) {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 77;
  }
  if (weights_path == nullptr || mode == nullptr) return usage();
  const std::string m = mode;
  if (m != "overlap" && m != "after" && m != "none") return usage();

  gpu_state gpu;
  bool prewarmed = true;
  double prewarm_ms = 0;
  // Prewarm needs the weights' size for the pool: the file's size, known without reading it.
  std::size_t file_bytes = 0;
  if (std::ifstream f{weights_path, std::ios::binary | std::ios::ate}) file_bytes = std::size_t(f.tellg());
  std::size_t weight_bytes = 0;
  std::thread prewarm_thread;
  if (m == "overlap")
    prewarm_thread = std::thread([&gpu, &prewarmed, &prewarm_ms, file_bytes] {
      const clock_type::time_point t = clock_type::now();
      prewarmed = prewarm(gpu, file_bytes);
      prewarm_ms = ms_since(t);
    });
  const clock_type::time_point load_start = clock_type::now();
  const std::unique_ptr<float[]> weights = load_weights(weights_path, weight_bytes);
  const double load_ms = ms_since(load_start);
  if (m == "after") {
    const clock_type::time_point t = clock_type::now();
    prewarmed = prewarm(gpu, file_bytes);
    prewarm_ms = ms_since(t);
  }
  if (prewarm_thread.joinable()) prewarm_thread.join();
  if (!weights) return 1;
  if (!prewarmed) {
    std::fprintf(stderr, "time_to_first_result: prewarm failed: %s\n", gpu.error.c_str());
    return 1;
  }
  const clock_type::time_point infer_start = clock_type::now();
  const double checksum = infer(gpu, weights.get(), weight_bytes);
  const double infer_ms = ms_since(infer_start), total_ms = ms_since(start);
  if (std::isnan(checksum)) {
    if (!gpu.error.empty()) std::fprintf(stderr, "time_to_first_result: %s\n", gpu.error.c_str());
    return 1;
  }

  const warmup::report r = warmup::snapshot(warmup::device_wait::yes);
  warmup::print(r, std::cout);
  if (json_path != nullptr) std::ofstream(json_path) << warmup::to_json(r) << '\n';
  std::printf("time_to_first_result mode=%s total_ms=%.1f load_ms=%.1f prewarm_ms=%.1f infer_ms=%.1f checksum=%.6e\n",
              m.c_str(), total_ms, load_ms, prewarm_ms, infer_ms, checksum);
  gpu.blas.reset();
  cudaStreamDestroy(gpu.stream);
  return 0;
}
