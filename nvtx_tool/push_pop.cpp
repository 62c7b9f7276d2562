// Push/pop ranges on the calling thread's stack of frames (thread_ranges.hpp), per domain as NVTX
// keeps them: each open range a warmup site's call, device-timed where WARMUP_NVTX_DEVICE is on.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

#include <warmup/detail/io/text.hpp>
#include <warmup/detail/runtime/notices.hpp>

#include "device_time.hpp"
#include "late_ranges.hpp"
#include "ranges.hpp"
#include "run_status.hpp"
#include "site_lookup.hpp"
#include "thread_ranges.hpp"
#include "tool_errors.hpp"

namespace warmup_nvtx {

int push(domain& d, const message& m) noexcept {
  if (__builtin_expect(run_status::armed.load(std::memory_order_relaxed), 0)) run_status::range_began();
  thread_ranges* const where = this_thread_ranges();
  if (where == nullptr) return 0;
  thread_ranges& t = *where;
  if (t.frames.size() >= max_frames) {
    ++t.beyond;
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
    error_counts().deep_pushes.fetch_add(1, std::memory_order_relaxed);
    return static_cast<int>(std::min<std::size_t>(t.frames.size() + t.beyond - 1, INT_MAX));
  }
  int depth = 0;
  for (std::size_t i = t.frames.size(); i-- > 0;)
    if (t.frames[i].d == &d) {
      depth = t.frames[i].depth + 1;
      break;
    }
  try {
    t.frames.push_back({&d, depth, {}});
  } catch (...) {
    return depth;  // out of memory: this range is not kept, and its pop will find none
  }
  t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
  // The buffer used for a wide message belongs to message_of's caller: the name is built apart.
  if (wd::named_site* n = site_of(d, m, t)) {
    frame& f = t.frames.back();
    f.call.begin(n->s, &n->slot);
    if (device::on()) {
      if (t.frames.size() > 1) {
        const frame& below = t.frames[t.frames.size() - 2];
        f.parent = below.serial != 0 ? below.serial : below.parent;
      }
      f.serial = device::opened(n->s, f.call.call.index, f.parent);
    }
  }
  return depth;
}

namespace {
/// Ends frame `i` of `t` for the device's side: its external id leaves the thread's stack,
/// with those of the ranges above it (a pop out of order across domains), which go back.
void close_device_side(thread_ranges& t, std::size_t i) noexcept {
  for (std::size_t k = t.frames.size(); k-- > i;)
    if (t.frames[k].serial != 0) device::pop_id();
  for (std::size_t k = i + 1; k < t.frames.size(); ++k)
    if (t.frames[k].serial != 0) device::push_id(t.frames[k].serial);
  device::closed(t.frames[i].serial);
}
}  // namespace

int pop(domain& d) noexcept {
  thread_ranges* const where = this_thread_ranges();
  if (where != nullptr && where->beyond > 0) {  // the latest pushes were not kept: they end first
    --where->beyond;
    where->open.store(where->frames.size() + where->beyond, std::memory_order_relaxed);
    return static_cast<int>(std::min<std::size_t>(where->frames.size() + where->beyond, INT_MAX));
  }
  // The common case: the latest range is this domain's and is not device-timed (what the loop
  // below does for it, with pop_back for the erase of the last element).
  if (where != nullptr && !where->frames.empty() && where->frames.back().d == &d && where->frames.back().serial == 0) {
    thread_ranges& t = *where;
    frame& f = t.frames.back();
    const bool measured = f.call.s != nullptr;
    f.call.end();  // first: what follows is not the range's time
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
    const int depth = f.depth;
    t.frames.pop_back();
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
    return depth;
  }
  for (std::size_t i = where != nullptr ? where->frames.size() : 0; i-- > 0;) {
    thread_ranges& t = *where;
    if (t.frames[i].d != &d) continue;
    const bool measured = t.frames[i].call.s != nullptr;
    t.frames[i].call.end();  // first: what follows is not the range's time
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
    if (t.frames[i].serial != 0) close_device_side(t, i);
    const int depth = t.frames[i].depth;
    t.frames.erase(t.frames.begin() + static_cast<std::ptrdiff_t>(i));
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
    return depth;
  }
  if (error_counts().bad_pops.fetch_add(1, std::memory_order_relaxed) == 0 &&
      !wd::notice_board().raised(wd::notice_kind::nvtx_range)) {
    try {
      wd::notice_board().raise(wd::notice_kind::nvtx_range,
                               "an NVTX pop with no range pushed on its thread in " +
                                   (d.name.empty() ? std::string("the default domain") : "domain '" + wd::printable(d.name, 80) + "'") +
                                   ": ignored (the pops with no push are counted at exit)");
    } catch (...) {
    }
  }
  return -1;
}

}  // namespace warmup_nvtx
