// What the tool says of the program's ranges at exit (how they were timed, what was left
// unbalanced, what WARMUP_NVTX_DOMAINS left out), with the error counts behind it, and the
// clean start of a forked child.
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <warmup/detail/io/text.hpp>
#include <warmup/detail/runtime/notices.hpp>

#include "device_time.hpp"
#include "handles.hpp"
#include "ranges.hpp"
#include "start_end.hpp"
#include "thread_ranges.hpp"
#include "tool_errors.hpp"

namespace warmup_nvtx {

tool_errors& error_counts() {
  static tool_errors* t = new tool_errors;  // never destroyed: ranges end during static destruction
  return *t;
}

namespace {
void say_how_ranges_were_timed() noexcept {
  try {
    const device::summary d = device::what_was_timed();
    if (!d.watching) {
      if (!d.asked)
        wd::notice_board().raise(wd::notice_kind::nvtx_host_timed,
                                 "the NVTX ranges' sites were measured by warmup's NVTX tool, on the host: a "
                                 "range's device time is measured with WARMUP_NVTX_DEVICE=on (docs/nvtx-tool.md, "
                                 "\"Device time\")");
      return;  // asked and refused: start() said why
    }
    std::string m = "the NVTX ranges' sites were measured by warmup's NVTX tool: " + std::to_string(d.timed) +
                    " push/pop calls device-timed from the kernels, copies and memsets they launched (CUPTI); "
                    "ranges with no device work and start/end ranges are host-timed";
    if (d.lost + d.late != 0)
      m += "; " + std::to_string(d.lost) + " calls not timed (their entries reused by later ranges, or too many waiting), " +
           std::to_string(d.late) + " records that came after their call's time was given";
    wd::notice_board().raise(wd::notice_kind::nvtx_host_timed, m);
  } catch (...) {
  }
}
}  // namespace

void say_what_was_left() noexcept {
  tool_errors& t = error_counts();
  if (t.measured.load(std::memory_order_relaxed)) say_how_ranges_were_timed();
  std::uint64_t open_started = 0, pushes = 0;
  std::string name;
  try {
    {
      pushing_threads& p = pushing_threads_list();
      std::lock_guard<std::mutex> lock(p.m);
      pushes = p.left_by_ended;
      for (const thread_ranges* r : p.live) pushes += r->open.load(std::memory_order_relaxed);
      name = p.first_unclosed;
      // The exiting thread's own ranges, which it alone touches: one to name.
      if (const thread_ranges* mine = this_thread_slot(); name.empty() && mine != nullptr)
        for (const frame& f : mine->frames)
          if (name.empty() && f.call.s != nullptr) name = f.call.s->name;
    }
    {
      started_table& s = started_ranges();
      std::lock_guard<std::mutex> lock(s.m);
      open_started = s.open.size();
      for (const auto& [id, r] : s.open)
        if (name.empty() && r.call.s != nullptr) name = r.call.s->name;
    }
    const std::uint64_t bad_pops = t.bad_pops.load(), bad_ends = t.bad_ends.load(), dropped = t.dropped_starts.load(),
                        deep = t.deep_pushes.load();
    if (pushes + open_started + bad_pops + bad_ends + dropped + deep == 0) return;
    std::string m = "NVTX ranges the program left unbalanced, none of them counted as calls: ";
    m += std::to_string(pushes) + " pushed and never popped, " + std::to_string(open_started) +
         " started and never ended";
    if (!name.empty()) m += " (one: '" + wd::printable(name, 80) + "')";
    m += ", " + std::to_string(bad_pops) + " pops with no push, " + std::to_string(bad_ends) + " ends of no open range";
    if (dropped != 0) m += ", " + std::to_string(dropped) + " starts past the " + std::to_string(max_open_started) + " open at once";
    if (deep != 0)
      m += ", " + std::to_string(deep) + " pushes past the " + std::to_string(max_frames) + " open on a thread (not measured)";
    wd::notice_board().raise(wd::notice_kind::nvtx_ranges_left, m);
  } catch (...) {
  }
}

bool ranges_measured() noexcept { return error_counts().measured.load(std::memory_order_relaxed); }

std::uint64_t ranges_left_out(std::vector<std::string>& domains) {
  std::uint64_t n = 0;
  {
    pushing_threads& p = pushing_threads_list();
    std::lock_guard<std::mutex> lock(p.m);
    n = p.left_out_by_ended;
    for (const thread_ranges* r : p.live) n += r->left_out.load(std::memory_order_relaxed);
  }
  if (default_domain().left_out.load(std::memory_order_relaxed)) domains.emplace_back("default");
  domains_and_strings& h = handle_registry();
  std::lock_guard<std::mutex> lock(h.m);
  for (const domain& d : h.domains)
    if (d.left_out.load(std::memory_order_relaxed)) domains.push_back(d.name);
  return n;
}

void after_fork_in_child() noexcept {
  // The child starts clean (the library resets its sites): the parent's open ranges are no
  // calls of the child's, and its other threads (and their locks) are gone.
  new (&started_ranges()) started_table;
  new (&handle_registry().m) std::mutex;
  new (&error_counts()) tool_errors;
  new (&pushing_threads_list()) pushing_threads;
  device::after_fork_in_child();
  if (thread_ranges* t = this_thread_slot()) {
    t->frames.clear();
    t->beyond = 0;
    t->open.store(0, std::memory_order_relaxed);
    t->left_out.store(0, std::memory_order_relaxed);
    t->add_to_pushing_threads();
  }
}

}  // namespace warmup_nvtx
