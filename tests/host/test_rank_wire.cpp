// The MPI wire format (detail/io/rank_wire.hpp): fixed sizes, long names kept apart, bad bytes
// refused, and the bytes themselves.
#include "catch.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "../support/rank_summaries.hpp"
#include "warmup/detail/io/rank_wire.hpp"
#include "warmup/detail/io/text.hpp"

using namespace std::chrono_literals;
using summaries::rank_of;
using summaries::site;

TEST_CASE("the MPI wire format: fixed sizes, long names kept apart, bad bytes refused") {
  namespace d = warmup::detail;
  STATIC_REQUIRE(d::wire_bytes(200) == 256 + 200 * 160);
  warmup::rank_summary r = rank_of(7, {});
  r.host = std::string(100, 'h');  // cut to fit
  r.device = "NVIDIA H200";
  const std::string long_a = std::string(120, 'x') + "a", long_b = std::string(120, 'x') + "b";
  r.sites = {site("short", 5ms, 7us, 42), site(long_a, 1ms, {}), site(long_b, 2ms, {}),
             site(std::string(90, 'y') + "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3ms, {})};
  r.sites[0].device_first = 4ms;
  std::vector<unsigned char> bytes;
  d::encode(r, 7, bytes);
  REQUIRE(bytes.size() == d::wire_bytes(4));
  warmup::rank_summary back;
  REQUIRE(d::decode(bytes.data(), bytes.size(), back));
  CHECK(*back.rank == 7);
  CHECK(back.host == std::string(63, 'h'));
  CHECK(back.device == "NVIDIA H200");
  REQUIRE(back.sites.size() == 4);
  CHECK(back.sites[0].name == "short");
  CHECK(back.sites[0].calls == 42);
  CHECK(back.sites[0].p50 == 7us);
  CHECK(back.sites[0].device_first == 4ms);
  CHECK_FALSE(back.sites[0].device_p50);
  CHECK(back.sites[1].name != back.sites[2].name);  // one beginning, two sites
  CHECK(back.sites[1].name.size() < 104);
  CHECK(back.sites[1].name.find("...#") == 86);
  // A cut never splits a character: the name is still UTF-8.
  CHECK(warmup::detail::repair_utf8(back.sites[3].name, warmup::detail::controls::keep_line_breaks) == back.sites[3].name);

  CHECK_FALSE(d::decode(bytes.data(), bytes.size() - 1, back));  // short
  std::vector<unsigned char> bad = bytes;
  bad[0] ^= 1;  // not the magic
  CHECK_FALSE(d::decode(bad.data(), bad.size(), back));
  bad = bytes;
  bad[256 + 48] = 200;  // an operation kind that does not exist
  CHECK_FALSE(d::decode(bad.data(), bad.size(), back));
}

// The bytes of a rank with two sites (one with every figure, one with none of the optional ones),
// as the six figures were first laid out by hand: a layout drawn from the figure table must
// send exactly these, or ranks of two builds would misread each other.
TEST_CASE("the MPI wire format's bytes: those its first layout sent, to the byte") {
  warmup::rank_summary r;
  r.rank = 7, r.host = "node-7", r.pid = 4242, r.device = "NVIDIA H200", r.uuid = "GPU-1234";
  r.started = "2025-01-01T00:00:00Z", r.library_version = "0.4.0";
  r.sites = {site("short", 5ms, 7us, 42), site(std::string(120, 'x') + "a", 1ms, {}, 3)};
  r.sites[0].warmup_excess = std::chrono::nanoseconds(5ms) / 3, r.sites[1].warmup_excess = std::chrono::nanoseconds(1ms) / 3;
  r.sites[0].device_first = 4ms, r.sites[0].device_p50 = 3us, r.sites[0].op = warmup::op_kind::launch;
  std::vector<unsigned char> bytes;
  warmup::detail::encode(r, 7, bytes);
  std::string hex;
  for (const unsigned char b : bytes) {
    hex += "0123456789abcdef"[b >> 4];
    hex += "0123456789abcdef"[b & 15];
  }
  const std::string golden =
      "5755523102000000070000009210000000000000000000006e6f64652d37000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000004e56494449412048"
      "323030000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000004750552d313233340000000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000323032352d30312d30315430303a30303a30305a000000000000000000000000302e342e30000000"
      "000000000000000000000000000000002a00000000000000404b4c0000000000581b0000000000006a6e190000000000"
      "00093d0000000000b80b000000000000050700000000000073686f727400000000000000000000000000000000000000"
      "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "0000000000000000000000000000000000000000000000000000000000000000030000000000000040420f0000000000"
      "000000000000000015160500000000000000000000000000000000000000000006000000000000007878787878787878"
      "787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878787878"
      "7878787878787878787878787878787878787878787878787878787878782e2e2e233935343936363132373930613600";
  CHECK(hex == golden);
  CHECK(warmup::detail::wire_magic == 0x31525557u);  // "WUR1"
}
