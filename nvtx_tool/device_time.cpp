// A push/pop range's device time, the range's side (device_time.hpp): WARMUP_NVTX_DEVICE read and
// CUPTI started, each range's call written in the ring as it opens and ends (device_calls.hpp),
// the thread's external ids that CUPTI links launches to; the join is device_join.cpp's.
#include "device_time.hpp"

#include "device_calls.hpp"

#include <warmup/settings.hpp>
#include <warmup/detail/analysis/cupti.hpp>
#include <warmup/detail/record/site.hpp>
#include <warmup/detail/io/text.hpp>
#include <warmup/detail/runtime/environment.hpp>
#include <warmup/detail/runtime/notices.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace warmup_nvtx::device {

std::atomic<bool> watching{false};

namespace {

std::atomic<bool> asked{false};  ///< WARMUP_NVTX_DEVICE=on

namespace wd = cuda_warmup::detail;

/// The calling thread's external ids, as CUPTI keeps them (its stack cannot be read): a driver
/// launch's callback links the launch to the top one. Past `max_ids` deep, the deepest kept
/// stands for those above it.
struct id_stack {
  static constexpr std::uint32_t max_ids = 64;
  std::uint64_t ids[max_ids];
  std::uint32_t depth;
};
thread_local id_stack this_thread_ids{};

void push_on_this_thread(std::uint64_t serial) noexcept {
  id_stack& s = this_thread_ids;
  if (s.depth < id_stack::max_ids) s.ids[s.depth] = serial;
  ++s.depth;
}

void link_launch_to_range(std::uint32_t correlation) noexcept {
  const id_stack& s = this_thread_ids;
  if (s.depth == 0) return;
  join::link(correlation, s.ids[std::min(s.depth, id_stack::max_ids) - 1]);
}

const wd::cupti_device_listener listener{&join::work, &join::link, &join::flushed, &link_launch_to_range};

void at_exit() {
  // The records of the last ranges, while CUDA may still be alive; then every ended range's
  // time, before the report at exit (registered earlier, so run later).
  wd::cupti_flush();
  join::flushed(true);
}

}  // namespace

std::uint64_t opened(wd::site* s, std::uint64_t index, std::uint64_t parent) noexcept {
  call_entry* t = call_table.load(std::memory_order_acquire);
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
  push_on_this_thread(serial);
}
void pop_id() noexcept {
  if (!on()) return;
  wd::cupti_pop_external();
  if (this_thread_ids.depth > 0) --this_thread_ids.depth;
}

void start(bool on, const std::string& refused) noexcept {
  try {
    if (!refused.empty()) wd::notice_board().raise(wd::notice_kind::nvtx_host_timed, refused);
    if (!on) return;
    asked.store(true, std::memory_order_relaxed);
    join::make_table();
    std::string why;
    if (call_table.load() == nullptr) why = "no memory for the table of ranges";
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
  join::count_times(out);
  return out;
}

void after_fork_in_child() noexcept {
  watching.store(false, std::memory_order_relaxed);
  join::after_fork_in_child();
}

}  // namespace warmup_nvtx::device
