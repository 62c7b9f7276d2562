// A push/pop range's device time (WARMUP_NVTX_DEVICE=on): the span of the kernels, copies and
// memsets that its thread launched while it was open, nested ranges' included, from CUPTI's
// records. Start/end ranges, which may end on another thread, stay host-timed.
//
// Each range opened pushes an external id (its serial) on its thread; CUPTI links every CUDA
// call made under it to that id, and each record of the device's work to its call. The records
// come as CUPTI's buffers fill and at its flushes; a range's span goes to its site's device
// series once the range has ended and a pass of the join has gone by since (its work may still
// be queued at the first): each flush makes a pass, and so does every 2^16 ranges' work.
// docs/nvtx-tool.md.
#pragma once

#include <warmup/detail/record/site.hpp>

#include <atomic>
#include <cstdint>
#include <string>

namespace warmup_nvtx::device {

/// Whether ranges are being device-timed: WARMUP_NVTX_DEVICE=on and CUPTI watching.
extern std::atomic<bool> watching;
inline bool on() noexcept { return watching.load(std::memory_order_relaxed); }

/// Once, at the first NVTX call, with WARMUP_NVTX_DEVICE's value (settings::device): where it
/// is on, starts CUPTI (as WARMUP_ATTRIBUTION=1 does) and watches the device's work; says why
/// where it cannot, and why the value was refused (`refused`), where it was.
void start(bool on, const std::string& refused) noexcept;

/// A range just opened on this thread (after its call began): returns its serial, pushed as the
/// thread's external id. `parent`: the serial of the range it nests in (0 for none).
std::uint64_t opened(cuda_warmup::detail::site* s, std::uint64_t index, std::uint64_t parent) noexcept;
/// The range `serial` ended (after its call ended); the caller pops its external id.
void closed(std::uint64_t serial) noexcept;
/// The thread's external ids, as ranges that end out of order need them taken off and put back.
void push_id(std::uint64_t serial) noexcept;
void pop_id() noexcept;

/// At exit: what was device-timed, what could not be, for the notice.
struct summary {
  bool asked = false, watching = false;
  std::uint64_t timed = 0;     ///< calls given a device time
  std::uint64_t lost = 0;      ///< calls whose records came after 2^18 later calls reused their entry
  std::uint64_t late = 0;      ///< records of a call that had been given its time already
};
summary what_was_timed() noexcept;

/// In a forked child: the parent's CUPTI does not follow; ranges there are host-timed.
void after_fork_in_child() noexcept;

// ---- The join (device_join.cpp), apart from CUPTI so that a test can feed it records
// (tests/host/test_nvtx_device_join.cpp).
namespace join {
void work(std::uint32_t correlation, std::uint64_t start_ns, std::uint64_t end_ns) noexcept;
void link(std::uint32_t correlation, std::uint64_t serial) noexcept;
/// After a flush: the ranges ended before the previous pass get their time; `last`: all do.
void flushed(bool last) noexcept;
/// For a test: make the call table as start() does, without CUPTI.
void make_table() noexcept;
/// What the join gave a time and could not, for what_was_timed().
void count_times(summary& out) noexcept;
/// In a forked child: the join's lock free again.
void after_fork_in_child() noexcept;
}  // namespace join

}  // namespace warmup_nvtx::device
