// Where the test plugin (tests/host/plugin) is: beside the test program (the GPU machine gets
// it in the bundle), else where the build made it (WARMUP_TEST_PLUGIN).
#pragma once
#include <unistd.h>

#include <string>

inline std::string test_plugin_path() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  dir = dir.substr(0, dir.find_last_of('/') + 1);
  const std::string beside = dir + "libwarmup_test_plugin.so";
  return access(beside.c_str(), R_OK) == 0 ? beside : std::string(WARMUP_TEST_PLUGIN);
}
