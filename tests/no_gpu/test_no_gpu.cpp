// Without a usable GPU (no driver, no device, CUDA_VISIBLE_DEVICES=""), device-timed scopes
// keep host timing, say why once, and leave no CUDA error behind. Exits 77 (skipped) where a
// GPU is visible: there the GPU tests cover device timing.
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "warmup/profile.hpp"

namespace {
// Runs f with stderr sent to a file, and returns what was written there.
template <class F>
std::string capture_stderr(F&& f) {
  char path[] = "/tmp/warmup-stderr-XXXXXX";
  const int fd = mkstemp(path);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path);
  return ss.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("device-timed scopes without a GPU: host timing, one notice, no error changed") {
  // Without a driver the runtime reports its own failure from every call, cudaGetLastError
  // included: what the program sees must be what it saw before the scopes ran.
  const cudaError_t before = cudaPeekAtLastError();
  const std::string err = capture_stderr([] {
    for (int i = 0; i < 100; ++i) {
      warmup::launch_scope k{"nogpu.launch", cudaStreamPerThread};
      warmup::h2d_scope c{"nogpu.copy", std::size_t{4096}, nullptr};
      WARMUP_SCOPE("nogpu.macro", nullptr);
    }
  });
  CHECK(count(err, "warmup: device timing is off") == 1);
  CHECK(cudaPeekAtLastError() == before);

  const warmup::report r = warmup::snapshot();
  CHECK_FALSE(r.device);
  // The library's look for a GPU is its own cost, not the first call's: a body that could do no
  // GPU work is no slower the first time for it (0.1 read "first call 4367x").
  CHECK(r.library.device_probe.count() > 0);
  const auto* first = r.find(warmup::op_kind::launch, "nogpu.launch");
  REQUIRE(first != nullptr);
  CHECK(first->host.first < r.library.device_probe);
  CHECK(r.device_status.find("cudaGetDeviceCount") != std::string::npos);
  REQUIRE(r.notices.size() == 1);
  for (const auto& [name, op] : {std::pair{"nogpu.launch", warmup::op_kind::launch},
                                 std::pair{"nogpu.copy", warmup::op_kind::h2d},
                                 std::pair{"nogpu.macro", warmup::op_kind::region}}) {
    const auto* s = r.find(op, name);
    REQUIRE(s != nullptr);
    CHECK(s->calls == 100);
    CHECK(s->host.calls == 100);
    CHECK_FALSE(s->device);
    CHECK(s->device_untimed.unavailable == 100);
  }
  const std::string j = warmup::to_json(r);
  CHECK(j.find("\"enabled\":true,\"device\":null,") != std::string::npos);  // no device described
  CHECK(j.find("\"device\":null,\"bytes\":") != std::string::npos);        // and no site device-timed
}

int main(int argc, char** argv) {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
    std::puts("a GPU is visible: this test is for machines without one (skipped)");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
