/// @file
/// @brief A rank's summary as fixed-size bytes, for gathering over MPI (mpi.hpp): 256 bytes
/// of who, then 160 bytes a site. No MPI here, so that the encoding is tested without it.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/detail/io/text.hpp"
#include "warmup/merge.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline constexpr std::uint32_t wire_magic = 0x31525557;  // "WUR1" read little-endian

/// Who a rank is. Text fields are cut to fit (at a UTF-8 boundary) and NUL-padded.
struct wire_rank {
  std::uint32_t magic;
  std::uint32_t sites;
  std::int32_t rank;
  std::int32_t pid;
  std::uint64_t reserved;
  char host[64];
  char device[64];
  char uuid[48];
  char started[32];
  char version[24];
};
static_assert(sizeof(wire_rank) == 256, "warmup: a rank's wire header is 256 bytes");

/// One site: its figures in nanoseconds, and its name (a long one cut, with its hash kept so
/// that two long names with one beginning stay two sites).
struct wire_site {
  std::uint64_t calls;
  std::int64_t first, p50, warmup_excess, device_first, device_p50;
  std::uint8_t op;
  std::uint8_t has;  ///< bit 0: p50, 1: device_first, 2: device_p50
  std::uint8_t reserved[6];
  char name[104];
};
static_assert(sizeof(wire_site) == 160, "warmup: a site's wire record is 160 bytes");

/// The bytes a rank with `sites` sites sends.
constexpr std::size_t wire_bytes(std::size_t sites) noexcept { return sizeof(wire_rank) + sites * sizeof(wire_site); }

inline std::uint64_t fnv1a(std::string_view s) noexcept {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

template <std::size_t N>
void put_text(char (&out)[N], std::string_view s) noexcept {
  std::memset(out, 0, N);
  std::memcpy(out, s.data(), utf8_prefix(s, N - 1).size());
}

template <std::size_t N>
std::string get_text(const char (&in)[N]) {
  return std::string(in, strnlen(in, N));
}

/// A site's name as it travels: whole where it fits in 103 bytes, otherwise its first 86 bytes
/// (fewer at a character boundary), "...#" and 13 hex digits of its hash.
inline void put_name(char (&out)[104], std::string_view name) noexcept {
  if (name.size() < sizeof out) return put_text(out, name);
  char tail[24];
  std::snprintf(tail, sizeof tail, "...#%013llx", static_cast<unsigned long long>(fnv1a(name) & 0xFFFFFFFFFFFFFull));
  std::memset(out, 0, sizeof out);
  const std::size_t keep = utf8_prefix(name, 86).size();
  std::memcpy(out, name.data(), keep);
  std::memcpy(out + keep, tail, std::strlen(tail));
}

/// Appends a rank's summary to `out`, as `wire_bytes(s.sites.size())` bytes.
inline void encode(const rank_summary& s, int rank, std::vector<unsigned char>& out) {
  wire_rank h{};
  h.magic = wire_magic;
  h.sites = static_cast<std::uint32_t>(s.sites.size());
  h.rank = rank;
  h.pid = s.pid;
  put_text(h.host, s.host);
  put_text(h.device, s.device);
  put_text(h.uuid, s.uuid);
  put_text(h.started, s.started);
  put_text(h.version, s.library_version);
  const std::size_t at = out.size();
  out.resize(at + wire_bytes(s.sites.size()));
  std::memcpy(out.data() + at, &h, sizeof h);
  unsigned char* p = out.data() + at + sizeof h;
  for (const site_summary& x : s.sites) {
    wire_site w{};
    w.calls = x.calls;
    w.first = x.first.count();
    w.warmup_excess = x.warmup_excess.count();
    w.op = static_cast<std::uint8_t>(x.op);
    if (x.p50) w.p50 = x.p50->count(), w.has |= 1;
    if (x.device_first) w.device_first = x.device_first->count(), w.has |= 2;
    if (x.device_p50) w.device_p50 = x.device_p50->count(), w.has |= 4;
    put_name(w.name, x.name);
    std::memcpy(p, &w, sizeof w);
    p += sizeof w;
  }
}

/// Reads one rank's summary from `bytes` (exactly its size); false where they are not one.
inline bool decode(const unsigned char* bytes, std::size_t size, rank_summary& out) {
  wire_rank h;
  if (size < sizeof h) return false;
  std::memcpy(&h, bytes, sizeof h);
  if (h.magic != wire_magic || size != wire_bytes(h.sites)) return false;
  out.rank = h.rank;
  out.pid = h.pid;
  out.host = get_text(h.host);
  out.device = get_text(h.device);
  out.uuid = get_text(h.uuid);
  out.started = get_text(h.started);
  out.library_version = get_text(h.version);
  out.source = "MPI";
  out.sites.resize(h.sites);
  const unsigned char* p = bytes + sizeof h;
  for (site_summary& x : out.sites) {
    wire_site w;
    std::memcpy(&w, p, sizeof w);
    p += sizeof w;
    if (w.op >= op_kind_count) return false;
    x.name = get_text(w.name);
    x.op = static_cast<op_kind>(w.op);
    x.calls = w.calls;
    x.first = std::chrono::nanoseconds{w.first};
    x.warmup_excess = std::chrono::nanoseconds{w.warmup_excess};
    if (w.has & 1) x.p50 = std::chrono::nanoseconds{w.p50};
    if (w.has & 2) x.device_first = std::chrono::nanoseconds{w.device_first};
    if (w.has & 4) x.device_p50 = std::chrono::nanoseconds{w.device_p50};
  }
  return true;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
