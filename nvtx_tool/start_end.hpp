// The table of open start/end ranges, by id: a range that may end on another thread than the one
// that started it. Filled and emptied by start() and end() (start_end.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_map>

#include <warmup/detail/record/host_call.hpp>

#include "ranges.hpp"

namespace warmup_nvtx {

/// Start/end ranges open at once, at most: a program that starts ranges it never ends is
/// bounded as sites are.
inline constexpr std::size_t max_open_started = std::size_t{1} << 16;

struct started_range {
  const domain* d;
  cuda_warmup::detail::host_call call;
  nvtxRangeId_t next;
};
struct started_table {
  std::mutex m;
  std::unordered_map<nvtxRangeId_t, started_range> open;
  std::atomic<nvtxRangeId_t> last{0};
};
started_table& started_ranges();

}  // namespace warmup_nvtx
