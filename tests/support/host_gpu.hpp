// Whether this machine has NVIDIA GPUs, decided without the CUDA runtime: a GPU test must not let
// the code under test decide whether it runs. On a host that has a GPU, a program that cannot use
// it has failed; only a host without one (or whose GPUs the runner hid on purpose with an empty
// CUDA_VISIBLE_DEVICES) skips.
#pragma once

#include <dirent.h>
#include <stdio.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace host_gpu {

/// GPUs the machine has: the lines of `nvidia-smi -L`, or else the /dev/nvidiaN device files.
inline int count() {
  int listed = 0;
  if (FILE* p = ::popen("nvidia-smi -L 2>/dev/null", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p) != nullptr) listed += std::strncmp(line, "GPU ", 4) == 0;
    (void)::pclose(p);
  }
  int files = 0;
  if (DIR* d = ::opendir("/dev")) {
    while (const dirent* e = ::readdir(d)) {
      const char* n = e->d_name;
      if (std::strncmp(n, "nvidia", 6) != 0 || n[6] == '\0') continue;
      bool digits = true;
      for (const char* c = n + 6; *c != '\0'; ++c) digits = digits && *c >= '0' && *c <= '9';
      files += digits;
    }
    ::closedir(d);
  }
  return listed > files ? listed : files;
}

/// Whether the runner hid every GPU on purpose (CUDA_VISIBLE_DEVICES set and empty, or -1).
inline bool hidden() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v != nullptr && (*v == '\0' || std::strcmp(v, "-1") == 0);
}

/// The exit status of a test that found fewer usable GPUs (`usable`, from CUDA) than it needs
/// (`needed`), having said why on stdout: 77 (skipped) where the host has fewer or hid them, 1
/// (failed) where the host has them and CUDA cannot use them. `cuda_says` is CUDA's reason.
inline int missing_status(int usable, int needed, const std::string& cuda_says) {
  const int here = count();
  if (hidden()) {
    std::printf("GPUs hidden by CUDA_VISIBLE_DEVICES: skipped\n");
    return 77;
  }
  if (here < needed) {
    std::printf("%d GPU%s on this host, %d needed (%s): skipped\n", here, here == 1 ? "" : "s", needed, cuda_says.c_str());
    return 77;
  }
  std::printf("FAIL: this host has %d GPU%s (nvidia-smi -L, /dev/nvidiaN) but CUDA can use %d (%s)\n", here,
              here == 1 ? "" : "s", usable, cuda_says.c_str());
  return 1;
}

}  // namespace host_gpu
