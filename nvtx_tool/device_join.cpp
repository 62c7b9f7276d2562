// The join of CUPTI's records to the ranges they ran under (device_time.hpp): each range's span
// over the work its CUDA calls launched, given to its site once the range has ended and a pass
// has gone by.
#include "device_calls.hpp"
#include "device_time.hpp"

#include <warmup/detail/record/site.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace warmup_nvtx::device {
namespace {

namespace wd = cuda_warmup::detail;

/// What a call's work spans so far, and the pass at which its end was first seen.
struct span {
  std::uint64_t start = ~std::uint64_t{0}, end = 0;
  std::uint64_t ended_at_pass = 0;  // the pass of give_times that first saw it ended; 0: none yet
};

/// The join's state, touched by CUPTI's threads and the flushing one: behind one lock.
struct join_state {
  std::mutex m;
  /// CUDA calls' links to a range's serial, this flush's and the one before's: a kernel's
  /// record comes after its launch's link, at the same flush or the next.
  std::unordered_map<std::uint32_t, std::uint64_t> links, older_links;
  struct work_record {
    std::uint32_t correlation;
    std::uint64_t start, end;
  };
  std::vector<work_record> unlinked;  ///< work whose link had not come (tried again at the flush)
  std::map<std::uint64_t, span> spans;  ///< by serial: a parent's is below its children's
  std::uint64_t passes = 1;  ///< of give_times: each flush makes one, and work where the spans kept grow
  std::size_t next_pass_at = std::size_t{1} << 16;  ///< the spans kept at which work makes a pass itself
  std::uint64_t timed = 0, lost = 0, late = 0;
};
join_state& shared_join_state() {
  static join_state* s = new join_state;  // never destroyed: CUPTI's threads may outlive statics
  return *s;
}

constexpr std::size_t max_links = std::size_t{1} << 20, max_unlinked = std::size_t{1} << 16,
                      max_spans = std::size_t{1} << 18;

void add_to_span(join_state& j, std::uint64_t serial, std::uint64_t start, std::uint64_t end) {
  call_entry* e = entry_of(serial);
  if (e == nullptr) {
    ++j.lost;
    return;
  }
  if (e->state.load(std::memory_order_acquire) == timed_call) {
    ++j.late;
    return;
  }
  auto it = j.spans.find(serial);
  if (it == j.spans.end()) {
    if (j.spans.size() >= max_spans) {
      ++j.lost;
      return;
    }
    it = j.spans.emplace(serial, span{}).first;
  }
  it->second.start = std::min(it->second.start, start);
  it->second.end = std::max(it->second.end, end);
}

bool link_of(const join_state& j, std::uint32_t correlation, std::uint64_t& serial) {
  auto it = j.links.find(correlation);
  if (it == j.links.end()) {
    it = j.older_links.find(correlation);
    if (it == j.older_links.end()) return false;
  }
  serial = it->second;
  return true;
}

/// Gives the ranges that ended before the previous pass their time, children before their
/// parents (higher serials first: a child's span joins its parent's); `last`: every ended range.
void give_times(join_state& j, bool last) {
  const std::uint64_t now = j.passes++;
  for (auto it = j.spans.end(); it != j.spans.begin();) {
    --it;
    call_entry* e = entry_of(it->first);
    if (e == nullptr) {
      ++j.lost;
      it = j.spans.erase(it);
      continue;
    }
    if (e->state.load(std::memory_order_acquire) == open_call) continue;
    if (it->second.ended_at_pass == 0) it->second.ended_at_pass = now;
    if (!last && it->second.ended_at_pass == now) continue;  // its work may still be queued
    const span sp = it->second;
    wd::site* s = e->s.load(std::memory_order_relaxed);
    const std::uint64_t index = e->index.load(std::memory_order_relaxed);
    const std::uint64_t parent = e->parent.load(std::memory_order_relaxed);
    if (e->serial.load(std::memory_order_acquire) != it->first) {  // reused while it was read
      ++j.lost;
      it = j.spans.erase(it);
      continue;
    }
    if (parent != 0) add_to_span(j, parent, sp.start, sp.end);
    e->state.store(timed_call, std::memory_order_release);
    if (s != nullptr && sp.end >= sp.start) {
      s->device_time(index, sp.end - sp.start, false, s->on_timeline(index) ? sp.start : 0);
      ++j.timed;
    }
    it = j.spans.erase(it);
  }
}

}  // namespace

namespace join {

void make_table() noexcept {
  if (call_table.load(std::memory_order_acquire) != nullptr) return;
  auto* t = new (std::nothrow) call_entry[table_size];
  call_entry* none = nullptr;
  if (t != nullptr && !call_table.compare_exchange_strong(none, t)) delete[] t;
}

void work(std::uint32_t correlation, std::uint64_t start_ns, std::uint64_t end_ns) noexcept {
  join_state& j = shared_join_state();
  try {
    std::lock_guard<std::mutex> lock(j.m);
    std::uint64_t serial = 0;
    if (link_of(j, correlation, serial)) add_to_span(j, serial, start_ns, end_ns);
    else if (j.unlinked.size() < max_unlinked) j.unlinked.push_back({correlation, start_ns, end_ns});
    // A program that writes no report before its exit flushes CUPTI there only: the ranges
    // ended long since get their time here, so that the spans kept stay bounded.
    if (j.spans.size() >= j.next_pass_at) {
      give_times(j, false);
      j.next_pass_at = j.spans.size() + (std::size_t{1} << 16);
    }
  } catch (...) {
  }
}

void link(std::uint32_t correlation, std::uint64_t serial) noexcept {
  join_state& j = shared_join_state();
  try {
    std::lock_guard<std::mutex> lock(j.m);
    if (j.links.size() >= max_links) {
      j.older_links.swap(j.links);
      j.links.clear();
    }
    j.links[correlation] = serial;
  } catch (...) {
  }
}

void flushed(bool last) noexcept {
  join_state& j = shared_join_state();
  try {
    std::lock_guard<std::mutex> lock(j.m);
    // Work whose link came after it (another buffer), then never: work outside any range.
    for (const auto& w : j.unlinked) {
      std::uint64_t serial = 0;
      if (link_of(j, w.correlation, serial)) add_to_span(j, serial, w.start, w.end);
    }
    j.unlinked.clear();
    give_times(j, last);
    if (!last) {
      j.older_links.swap(j.links);
      j.links.clear();
    }
  } catch (...) {
  }
}

void count_times(summary& out) noexcept {
  join_state& j = shared_join_state();
  try {
    std::lock_guard<std::mutex> lock(j.m);
    out.timed = j.timed, out.lost = j.lost, out.late = j.late;
  } catch (...) {
  }
}

void after_fork_in_child() noexcept { new (&shared_join_state().m) std::mutex; }

}  // namespace join

}  // namespace warmup_nvtx::device
