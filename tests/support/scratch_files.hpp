// A folder of one's own for a test's files, removed at the end, and what it holds read back.
#pragma once
#include <dirent.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

namespace warmup_test {

/// A new folder under `under` (/tmp by default), removed with everything in it at scope end.
struct scratch_dir {
  std::string path;
  explicit scratch_dir(const char* under = "/tmp") {
    std::string tmpl = std::string(under) + "/warmup-test-XXXXXX";
    REQUIRE(::mkdtemp(&tmpl[0]) != nullptr);
    path = tmpl;
  }
  ~scratch_dir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
};

/// The folder's entries, sorted, without "." and "..".
inline std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

/// The file's bytes ("" where it cannot be read).
inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace warmup_test
