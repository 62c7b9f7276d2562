// The ring of device-timed calls: each push/pop range's call, by serial, written by its thread as
// it opens and ends (device_time.cpp) and read by the join that gives it its time (device_join.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <warmup/detail/record/site.hpp>

namespace warmup_nvtx::device {

/// The calls a range's records may still name: a ring of the latest 2^18, by serial. A record
/// of an older call finds its entry reused and is counted as lost.
inline constexpr std::uint64_t table_size = std::uint64_t{1} << 18;

/// A range's call, written by its thread when it opens and ends, read by the join. `serial` is
/// written last (0 while the entry is being written), so that the join reads whole entries.
struct call_entry {
  std::atomic<std::uint64_t> serial{0};
  std::atomic<cuda_warmup::detail::site*> s{nullptr};
  std::atomic<std::uint64_t> index{0}, parent{0};
  std::atomic<std::uint8_t> state{0};  // open, ended, timed
};
enum : std::uint8_t { open_call = 0, ended_call = 1, timed_call = 2 };
static_assert(sizeof(call_entry) * table_size <= std::size_t{10} << 20, "docs/nvtx-tool.md says 10 MB");

/// The ring itself, made at start() (or by a test: join::make_table()); null where it is not.
inline std::atomic<call_entry*> call_table{nullptr};
/// The latest serial given.
inline std::atomic<std::uint64_t> last_serial{0};

/// The entry of `serial` where it is still that call's; null where the ring reused it.
inline call_entry* entry_of(std::uint64_t serial) noexcept {
  call_entry* t = call_table.load(std::memory_order_acquire);
  if (t == nullptr || serial == 0) return nullptr;
  call_entry& e = t[serial & (table_size - 1)];
  return e.serial.load(std::memory_order_acquire) == serial ? &e : nullptr;
}

}  // namespace warmup_nvtx::device
