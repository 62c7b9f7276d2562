/// @file
/// @brief A rank's summary as fixed-size bytes, for gathering over MPI (mpi.hpp): 256 bytes
/// of who, then a record a site whose figures follow the figure table (160 bytes for its six
/// figures). No MPI here, so that the encoding is tested without it.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "warmup/detail/io/fields.hpp"
#include "warmup/detail/io/figure_table.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/merge.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// FNV-1a of `s`, continued from `h` (a hash of what came before).
constexpr std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull) noexcept {
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

/// The hash of the figures as the wire lays them out, "calls:c first:d p50:o ...": a name
/// and a type each (count, duration, optional duration), in the table's order.
constexpr std::uint64_t wire_figures_hash() noexcept {
  std::uint64_t h = fnv1a("");
  for_each_figure([&](auto row) {
    using V = typename decltype(row)::value;
    h = fnv1a(std::is_same_v<V, std::uint64_t> ? ":c " : is_optional<V> ? ":o " : ":d ", fnv1a(row.name, h));
  });
  return h;
}

/// "WUR1" (read little-endian) for the six figures the wire first carried; any other list of
/// figures, another magic: builds with different figures refuse each other's bytes rather
/// than misread them.
inline constexpr std::uint32_t wire_magic =
    wire_figures_hash() == fnv1a("calls:c first:d p50:o warmup_excess:d device_first:o device_p50:o ")
        ? 0x31525557u
        : 0x31525557u ^ (static_cast<std::uint32_t>(wire_figures_hash() >> 32) | 1u);

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

/// One site's record, at these offsets: its figures, 8 bytes each in the figure table's order
/// (a count as it is, a duration in nanoseconds, an empty one 0); its kind; which of its
/// optional figures it has (a bit each, in the table's order); 6 bytes of 0; and its name (a
/// long one cut, with its hash kept so that two long names with one beginning stay two
/// sites). Padded with 0 to whole 32-byte units, MPI's unit (mpi.hpp).
struct wire_site {
  static constexpr std::size_t figures = 0;
  static constexpr std::size_t op = 8 * figure_count;
  static constexpr std::size_t has = op + 1;
  static constexpr std::size_t name = op + 8;
  static constexpr std::size_t name_size = 104;
  static constexpr std::size_t size = (name + name_size + 31) / 32 * 32;
};
static_assert(figure_count != 6 || wire_site::size == 160, "warmup: the six figures' wire record is 160 bytes");
static_assert(std::apply([](auto... rows) { return (std::size_t{is_optional<typename decltype(rows)::value>} + ... + 0); },
                         figure_rows{}) <= 8,
              "warmup: a site's wire record has a byte of bits for its optional figures");

/// The bytes a rank with `sites` sites sends.
constexpr std::size_t wire_bytes(std::size_t sites) noexcept { return sizeof(wire_rank) + sites * wire_site::size; }

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
  unsigned char* p = out.data() + at + sizeof h;  // zeroed by resize: padding and empty figures stay 0
  for (const site_summary& x : s.sites) {
    std::size_t at_figure = wire_site::figures;
    unsigned optional = 0;
    for_each_figure([&](auto row) {
      const auto& v = x.*(row.template member<site_summary>());
      std::uint64_t raw = 0;
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::uint64_t>) {
        raw = v;
      } else if constexpr (is_optional<std::decay_t<decltype(v)>>) {
        if (v) raw = static_cast<std::uint64_t>(v->count()), p[wire_site::has] |= static_cast<unsigned char>(1u << optional);
        ++optional;
      } else {
        raw = static_cast<std::uint64_t>(v.count());
      }
      std::memcpy(p + at_figure, &raw, sizeof raw);
      at_figure += 8;
    });
    p[wire_site::op] = static_cast<unsigned char>(x.op);
    char name[wire_site::name_size];
    put_name(name, x.name);
    std::memcpy(p + wire_site::name, name, sizeof name);
    p += wire_site::size;
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
    if (p[wire_site::op] >= op_kind_count) return false;
    char name[wire_site::name_size];
    std::memcpy(name, p + wire_site::name, sizeof name);
    x.name = get_text(name);
    x.op = static_cast<op_kind>(p[wire_site::op]);
    std::size_t at_figure = wire_site::figures;
    unsigned optional = 0;
    for_each_figure([&](auto row) {
      auto& v = x.*(row.template member<site_summary>());
      std::uint64_t raw;
      std::memcpy(&raw, p + at_figure, sizeof raw);
      at_figure += 8;
      using V = std::decay_t<decltype(v)>;
      const std::chrono::nanoseconds duration{static_cast<std::int64_t>(raw)};
      if constexpr (std::is_same_v<V, std::uint64_t>) v = raw;
      else if constexpr (is_optional<V>) {
        if ((p[wire_site::has] >> optional++) & 1u) v = duration;
      } else v = duration;
    });
    p += wire_site::size;
  }
  return true;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
