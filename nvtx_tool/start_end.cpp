// Start/end ranges (start_end.hpp): each open one a warmup site's call begun with no shard slot,
// kept in the process's table by id until an end names it; an id never started or ended twice
// is counted and said.
#include "start_end.hpp"

#include <warmup/detail/runtime/notices.hpp>

#include "late_ranges.hpp"
#include "run_status.hpp"
#include "site_lookup.hpp"
#include "thread_ranges.hpp"
#include "tool_errors.hpp"

namespace warmup_nvtx {

started_table& started_ranges() {
  static started_table* t = new started_table;
  return *t;
}

nvtxRangeId_t start(domain& d, const message& m, nvtxRangeId_t next_id) noexcept {
  if (__builtin_expect(run_status::armed.load(std::memory_order_relaxed), 0)) run_status::range_began();
  started_table& s = started_ranges();
  const nvtxRangeId_t id = s.last.fetch_add(1, std::memory_order_relaxed) + 1;
  thread_ranges* const t = this_thread_ranges();
  try {
    std::unique_lock<std::mutex> lock(s.m);
    if (s.open.size() >= max_open_started) {
      lock.unlock();
      error_counts().dropped_starts.fetch_add(1, std::memory_order_relaxed);
      return id;
    }
    s.open.emplace(id, started_range{&d, {}, next_id});
    lock.unlock();
    // With no shard slot: the range may end on another thread. Begun after the entry is made, so
    // that making it is not the range's time; only a program ending ids it never got could end
    // the entry meanwhile, and then the call is dropped.
    if (wd::named_site* n = t != nullptr ? site_of(d, m, *t) : nullptr) {
      wd::host_call c;
      c.begin(n->s, nullptr);
      std::lock_guard<std::mutex> again(s.m);
      if (const auto it = s.open.find(id); it != s.open.end()) it->second.call = c;
    }
  } catch (...) {
  }
  return id;
}

nvtxRangeId_t end(nvtxRangeId_t id) noexcept {
  started_table& s = started_ranges();
  wd::host_call c;
  nvtxRangeId_t next = 0;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(s.m);
    const auto it = s.open.find(id);
    if (it != s.open.end()) {
      c = it->second.call;
      next = it->second.next;
      s.open.erase(it);
      found = true;
    }
  }
  if (found) {
    const bool measured = c.s != nullptr;
    c.end();
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
    return next;
  }
  if (error_counts().bad_ends.fetch_add(1, std::memory_order_relaxed) == 0) {
    try {
      wd::notice_board().raise(wd::notice_kind::nvtx_range,
                               "an NVTX range end with an id never started, or ended before: ignored "
                               "(such ends are counted at exit)");
    } catch (...) {
    }
  }
  return 0;
}

}  // namespace warmup_nvtx
