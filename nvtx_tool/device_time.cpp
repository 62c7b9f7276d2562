// A push/pop range's device time from CUPTI's records (device_time.hpp).
#include "device_time.hpp"

#include <warmup/settings.hpp>
#include <warmup/detail/analysis/cupti.hpp>
#include <warmup/detail/record/site.hpp>
#include <warmup/detail/io/text.hpp>
#include <warmup/detail/runtime/environment.hpp>
#include <warmup/detail/runtime/notices.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace warmup_nvtx::device {

std::atomic<bool> watching{false};

namespace {

std::atomic<bool> asked{false};  ///< WARMUP_NVTX_DEVICE=on

namespace wd = cuda_warmup::detail;

/// The calls a range's records may still name: a ring of the latest 2^18, by serial. A record
/// of an older call finds its entry reused and is counted as lost.
constexpr std::uint64_t table_size = std::uint64_t{1} << 18;

/// A range's call, written by its thread when it opens and ends, read by the join. `serial` is
/// written last (0 while the entry is being written), so that the join reads whole entries.
struct call_entry {
  std::atomic<std::uint64_t> serial{0};
  std::atomic<wd::site*> s{nullptr};
  std::atomic<std::uint64_t> index{0}, parent{0};
  std::atomic<std::uint8_t> state{0};  // open, ended, timed
};
enum : std::uint8_t { open_call = 0, ended_call = 1, timed_call = 2 };
static_assert(sizeof(call_entry) * table_size <= std::size_t{10} << 20, "docs/nvtx-tool.md says 10 MB");

std::atomic<call_entry*> table{nullptr};
std::atomic<std::uint64_t> last_serial{0};

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
join_state& state() {
  static join_state* s = new join_state;  // never destroyed: CUPTI's threads may outlive statics
  return *s;
}

constexpr std::size_t max_links = std::size_t{1} << 20, max_unlinked = std::size_t{1} << 16,
                      max_spans = std::size_t{1} << 18;

/// The entry of `serial` where it is still that call's; null where the ring reused it.
call_entry* entry_of(std::uint64_t serial) noexcept {
  call_entry* t = table.load(std::memory_order_acquire);
  if (t == nullptr || serial == 0) return nullptr;
  call_entry& e = t[serial & (table_size - 1)];
  return e.serial.load(std::memory_order_acquire) == serial ? &e : nullptr;
}

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

/// The calling thread's external ids, as CUPTI keeps them (its stack cannot be read): a driver
/// launch's callback links the launch to the top one. Past `max_ids` deep, the deepest kept
/// stands for those above it.
struct id_stack {
  static constexpr std::uint32_t max_ids = 64;
  std::uint64_t ids[max_ids];
  std::uint32_t depth;
};
thread_local id_stack ids_here{};

void push_here(std::uint64_t serial) noexcept {
  id_stack& s = ids_here;
  if (s.depth < id_stack::max_ids) s.ids[s.depth] = serial;
  ++s.depth;
}

void launching(std::uint32_t correlation) noexcept {
  const id_stack& s = ids_here;
  if (s.depth == 0) return;
  join::link(correlation, s.ids[std::min(s.depth, id_stack::max_ids) - 1]);
}

const wd::cupti_device_listener listener{&join::work, &join::link, &join::flushed, &launching};


void at_exit() {
  // The records of the last ranges, while CUDA may still be alive; then every ended range's
  // time, before the report at exit (registered earlier, so run later).
  wd::cupti_flush();
  join::flushed(true);
}

}  // namespace

namespace join {

void make_table() noexcept {
  if (table.load(std::memory_order_acquire) != nullptr) return;
  auto* t = new (std::nothrow) call_entry[table_size];
  call_entry* none = nullptr;
  if (t != nullptr && !table.compare_exchange_strong(none, t)) delete[] t;
}

void work(std::uint32_t correlation, std::uint64_t start_ns, std::uint64_t end_ns) noexcept {
  join_state& j = state();
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
  join_state& j = state();
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
  join_state& j = state();
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

}  // namespace join

std::uint64_t opened(wd::site* s, std::uint64_t index, std::uint64_t parent) noexcept {
  call_entry* t = table.load(std::memory_order_acquire);
  if (t == nullptr) return 0;
  const std::uint64_t serial = last_serial.fetch_add(1, std::memory_order_relaxed) + 1;
  call_entry& e = t[serial & (table_size - 1)];
  e.serial.store(0, std::memory_order_relaxed);
  e.s.store(s, std::memory_order_relaxed);
  e.index.store(index, std::memory_order_relaxed);
  e.parent.store(parent, std::memory_order_relaxed);
  e.state.store(open_call, std::memory_order_relaxed);
  e.serial.store(serial, std::memory_order_release);
  push_id(serial);
  return serial;
}

void closed(std::uint64_t serial) noexcept {
  if (call_entry* e = entry_of(serial)) e->state.store(ended_call, std::memory_order_release);
}

void push_id(std::uint64_t serial) noexcept {
  if (!on()) return;
  wd::cupti_push_external(serial);
  push_here(serial);
}
void pop_id() noexcept {
  if (!on()) return;
  wd::cupti_pop_external();
  if (ids_here.depth > 0) --ids_here.depth;
}

void start(const std::string& v) noexcept {
  try {
    // The library's on/off spellings, as every on/off variable takes them (docs/environment.md).
    const int setting = v.empty() ? 0 : wd::on_off_value(v);
    if (setting == 0) return;
    if (setting < 0) {
      wd::notice_board().raise(wd::notice_kind::nvtx_host_timed,
                               "WARMUP_NVTX_DEVICE='" + wd::printable(v, 40) +
                                   "' is neither on nor off (1, on, true, yes or 0, off, false, no, in any case): "
                                   "the NVTX ranges are host-timed");
      return;
    }
    asked.store(true, std::memory_order_relaxed);
    join::make_table();
    std::string why;
    if (table.load() == nullptr) why = "no memory for the table of ranges";
    else if (!cuda_warmup::set_attribution(true)) why = "CUPTI did not start (the report's attribution notice says why)";
    else if (wd::cupti_watch_device_work(&listener, why)) {
      watching.store(true, std::memory_order_release);
      (void)std::atexit(&at_exit);
      return;
    }
    wd::notice_board().raise(wd::notice_kind::nvtx_host_timed,
                             "WARMUP_NVTX_DEVICE=on, but the NVTX ranges are host-timed: " + why);
  } catch (...) {
  }
}

summary what_was_timed() noexcept {
  summary out;
  out.asked = asked.load(std::memory_order_relaxed);
  out.watching = on();
  join_state& j = state();
  try {
    std::lock_guard<std::mutex> lock(j.m);
    out.timed = j.timed, out.lost = j.lost, out.late = j.late;
  } catch (...) {
  }
  return out;
}

void after_fork_in_child() noexcept {
  watching.store(false, std::memory_order_relaxed);
  new (&state().m) std::mutex;
}

}  // namespace warmup_nvtx::device
