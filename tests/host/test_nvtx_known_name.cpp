// The NVTX tool's compare of a range's C string with a name its thread passed lately
// (nvtx_tool/known_name.hpp): strcmp's answer for every length around a word, every position of
// a difference, and strings that end at the last byte before a page the process may not read.
#include "catch.hpp"

#include "../../nvtx_tool/known_name.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

using warmup_nvtx::known_name;

TEST_CASE("a known name matches what strcmp calls equal, and nothing else", "[nvtx_tool]") {
  for (std::size_t n = 0; n <= 33; ++n) {
    std::string name;
    for (std::size_t i = 0; i < n; ++i) name += static_cast<char>('a' + i % 26);
    const known_name k(name.c_str(), name.size());
    REQUIRE(k.known());
    CHECK(k.matches(std::string(name).c_str()));  // another buffer of the same text
    // One byte changed at each place, one left off, one added: all differ.
    for (std::size_t i = 0; i < n; ++i) {
      std::string other = name;
      other[i] = static_cast<char>(other[i] ^ 0x20);
      INFO("length " << n << ", byte " << i);
      CHECK_FALSE(k.matches(other.c_str()));
      CHECK_FALSE(k.matches(name.substr(0, i).c_str()));
    }
    CHECK_FALSE(k.matches((name + "x").c_str()));
    CHECK_FALSE(k.matches((name + '\xff').c_str()));
  }
  CHECK_FALSE(known_name().known());
}

TEST_CASE("a known name reads no byte of a page the string does not reach", "[nvtx_tool]") {
  // Two pages, the second unreadable: strings ending at every offset before its start.
  const long page = sysconf(_SC_PAGESIZE);
  REQUIRE(page >= 4096);
  void* m = mmap(nullptr, static_cast<std::size_t>(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  REQUIRE(mprotect(static_cast<char*>(m) + page, static_cast<std::size_t>(page), PROT_NONE) == 0);
  char* end = static_cast<char*>(m) + page;  // the first byte not readable
  const std::string name = "aten::addmm, sizes = [[32, 64]]";
  const known_name k(name.c_str(), name.size());
  std::size_t checked = 0;
  for (std::size_t len = 0; len <= name.size(); ++len)
    for (std::size_t pad = 0; pad < 9; ++pad) {  // the NUL at end - 1 - pad
      char* s = end - 1 - pad - len;
      std::memset(s, 'z', len + 1 + pad);
      std::memcpy(s, name.data(), len);
      s[len] = '\0';
      CHECK(k.matches(s) == (len == name.size()));
      ++checked;
    }
  CHECK(checked == (name.size() + 1) * 9);
  munmap(m, static_cast<std::size_t>(2 * page));
}
