/// @file
/// @brief What a program compiles once: the process's start-up, fork and exit hooks, and every
/// compiled-once definition, gathered from the -inl files.
///
/// Every warmup header ends by including this file (through header_end.hpp), so whichever header
/// a program includes, the process gets the same hooks, once: the library's start time, NVTX
/// initialised before user threads exist, the `WARMUP_*` variables applied (settings.hpp), fork
/// handlers that give a child a clean report, and the `WARMUP_REPORT` report at exit. The state
/// these hooks share lives behind the process anchor (process.hpp), one per process however
/// many copies of the library it loads.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#if WARMUP_ENABLED
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string>

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cupti.hpp"
#include "warmup/detail/runtime/child_reports.hpp"
#include "warmup/detail/io/report_destinations.hpp"
#include "warmup/detail/runtime/device_rings.hpp"
#include "warmup/detail/runtime/environment.hpp"
#include "warmup/detail/runtime/fork_locks.hpp"
#include "warmup/detail/runtime/nvtx_domain.hpp"
#include "warmup/detail/runtime/registry.hpp"
#include "warmup/detail/runtime/site_state.hpp"
#include "warmup/detail/runtime/site_reader.hpp"
#include "warmup/snapshot.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline void flush_causes() noexcept;

/// Registered when the CUDA runtime is first seen working, so it runs before the runtime's own
/// teardown (exit handlers run in reverse order): waits for and reads back every device
/// measurement, describes the device while CUDA is still alive, then closes the library's use
/// of CUDA.
inline void read_back_before_teardown() noexcept {
  if (any_copy_busy()) return;  // report_at_exit says why
  std::string status;
  (void)describe_device(status);
  (void)rings().drain_all(read_mode::wait);
  // CUPTI's records into the store while the driver is alive; the report at exit reads them there.
  if (cause_records().flush.exchange(nullptr) != nullptr) {
    flush_causes();
    cupti_stop();
  }
  cuda().closed.store(true, std::memory_order_release);
}

/// Whether this copy's report at exit goes beside the process's, never over it: a child (a
/// data-loader worker, say) writes beside its parent, and a rank beside the others
/// (report_destinations.hpp, file_tag); so does a copy of the library kept apart from the process's
/// anchor (process.hpp), tagged with the pid as a child is.
inline bool report_goes_beside() noexcept {
  return cuda().beside_parent.load(std::memory_order_relaxed) || kept_apart() != nullptr;
}

/// The report at exit, once (write_report_at_exit_now may have written it). It makes no CUDA
/// call (the runtime may be gone by then): device measurements were read back by
/// read_back_before_teardown. Returns whether it wrote one.
inline bool write_exit_report() noexcept {
  const char* spec = std::getenv("WARMUP_REPORT");
  if (spec == nullptr) return false;
  static std::atomic<bool> written{false};
  if (written.exchange(true)) return false;
  cuda().closed.store(true, std::memory_order_release);
  if (any_copy_busy()) {
    // exit() was called on a thread stopped inside the library (a signal handler that calls
    // exit, say): its locks, or the allocator's, may be held by the very frame that exit left.
    say_without_allocating(
        "warmup: no report at exit: the program exited from inside the library (a signal handler "
        "calling exit?), where writing one could hang or crash it\n");
    return false;
  }
  write_report_to(snapshot(), spec, report_goes_beside(), spec_errors::already_said,
                  once().start_wall_ms.load(std::memory_order_relaxed));
  if (void (*then)() = cuda().after_exit_report.load(std::memory_order_acquire)) then();
  return true;
}

inline void report_at_exit() noexcept { (void)write_exit_report(); }

inline bool register_report_at_exit() noexcept {
  const char* spec = std::getenv("WARMUP_REPORT");
  if (spec == nullptr || *spec == '\0') return false;
  // A typo is said now, while the program can still be stopped and rerun, not at its end.
  WARMUP_TRY {
    std::vector<report_destination> dests;
    std::string error;
    if (!parse_destinations(spec, dests, error))
      std::fprintf(stderr, "warmup: WARMUP_REPORT: %s; at exit the table goes to stderr in its place\n",
                   error.c_str());
  } WARMUP_CATCH_ALL {
  }
  // Called when CUDA is first seen working, from whichever copy sees it, and registered from
  // here: this copy stays loaded (keep_this_copy_loaded), so its handler runs at exit.
  cuda().register_before_teardown = [] { (void)std::atexit(read_back_before_teardown); };
  return std::atexit(report_at_exit) == 0;
}

inline void after_fork_in_parent() noexcept { release_fork_locks(); }

/// The child has one thread, this one. Its sites keep their names (WARMUP_SCOPE statics point at
/// them) and lose their calls; the parent's events are dropped without a CUDA call; if the parent
/// had initialised CUDA, device timing is off in the child (CUDA cannot be used there) and the
/// first device-timed scope says so once. Scopes open across the fork are not recorded.
inline void after_fork_in_child() noexcept {
  cuda_state& st = cuda();
  st.beside_parent.store(true, std::memory_order_relaxed);
  if (st.runtime.load(std::memory_order_relaxed) == cuda_state::available) {
    st.forked_after_init.store(true, std::memory_order_relaxed);
    st.runtime.store(cuda_state::unknown, std::memory_order_relaxed);
  }
  thread_rings& mine = my_rings();
  mine.by_device.fill(nullptr);
  mine.last = nullptr;
  rings().forget_locked();
  sites().reset_locked();
  my_names().forget_shards();  // the sites made every shard spare
  notice_board().reset_locked();
  cause_records().reset_locked();  // the parent's CUPTI is not the child's
  cause_records().collecting.store(false, std::memory_order_relaxed);
  cause_records().flush.store(nullptr, std::memory_order_relaxed);
  if (thread_sampling == sampler_stage::idle || thread_sampling == sampler_stage::armed)
    my_sampler().forget_after_fork();
  drop_inherited_ticks();  // the parent's: timers are not inherited, task clocks are
  release_fork_locks();
}

inline bool register_fork_handlers() noexcept {
  return pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0;
}

/// This copy's own locks, registered by every copy after the process's (pthread_atfork takes
/// the last registered first): taken before them, released after.
inline bool register_copy_fork_handlers() noexcept {
  constexpr std::size_t n = std::size(copy_fork_locks);
  return pthread_atfork(take_fork_locks<copy_fork_locks, n>, release_fork_locks<copy_fork_locks, n>,
                        release_fork_locks<copy_fork_locks, n>) == 0;
}

/// Where CUPTI's records go (from its buffer thread, or the flushing one).
inline void deliver_cause(const cause_record& r) noexcept { cause_records().add(r); }

/// The driver's initialisation, once known (`p`), kept once (`kept`): CUPTI attaches to the
/// driver when cuInit ends, so no record covers it; the span from the start of the call in which
/// it ended, on its thread, up to that point counts as context init.
inline void keep_attach_point(const cupti_attach_point& p, std::atomic<bool>& kept) noexcept {
  if (p.ns != 0 && p.thread != 0 && !kept.exchange(true)) cause_records().add({cause::context_init, 0, p.ns, p.thread});
}

/// Hands CUPTI's finished records to the store, and the driver's initialisation.
inline void flush_causes() noexcept {
  cupti_flush();
  static std::atomic<bool> attach_kept{false};
  keep_attach_point(cupti_attached(), attach_kept);
}

/// The copy that registers the process's exit and fork handlers stays loaded to the end: a
/// dlclose'd plugin's handlers would otherwise run at its dlclose (a report half-way through the
/// run) or not at all. Other copies may unload; their sites stay in the process report.
inline void keep_this_copy_loaded() noexcept {
  static const char here = 0;
  Dl_info info{};
  if (::dladdr(&here, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != '\0')
    (void)::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}

/// This copy's place in the process's list of copies (process.hpp): taken when it starts, given
/// back when it is unloaded or the process ends.
struct copy_membership {
  bool joined = false;
  ~copy_membership() {
    if (joined) leave_copies(measuring);
  }
};
inline copy_membership membership;  // constant-initialised: starting early never finds it reset

inline bool this_copy_busy() noexcept { return busy_here(); }

/// Runs once per process and configuration: before main, from every program's static
/// initialisation, or earlier, when the first site is made (a scope in another file's static
/// constructor can run before this file's initialisation). Registered then, the report at exit
/// runs after the destructors of every static object whose construction the library saw begin.
/// The process-wide part runs once, in whichever copy of the library starts first; each copy
/// joins the process's list of copies and initialises its own NVTX state.
inline void ensure_started() noexcept {
  static std::atomic<bool> started{false};  // this copy
  if (started.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(start_mutex());
  if (started.load(std::memory_order_relaxed)) return;
  (void)nvtx();  // NVTX's lazy initialisation races when user threads make the first call
  join_copies(measuring, sample_device, &this_copy_busy);
  membership.joined = true;
  process_once& o = once();
  {
    std::lock_guard<std::mutex> process_lock(o.m);
    if (!o.started) {
      o.started = true;
      (void)process_start();
      o.start_wall_ms.store(file_clock_ms(), std::memory_order_relaxed);
      apply_environment();
      say_if_nvtx_tool_not_chosen();
      o.time.start(nullptr);  // where the environment could not be read: the CPU decides
      (void)register_fork_handlers();
      (void)register_report_at_exit();
      keep_this_copy_loaded();
    }
  }
  (void)register_copy_fork_handlers();
  started.store(true, std::memory_order_release);
}

inline const bool process_started = (ensure_started(), true);

}  // namespace detail
WARMUP_END_NAMESPACE

// The compiled-once definitions (weak: see WARMUP_DETAIL_RUNTIME), each in the -inl file of the
// header that declares them, read after the hooks that some of them call.
#include "warmup/detail/analysis/series-inl.hpp"
#include "warmup/detail/io/csv-inl.hpp"
#include "warmup/detail/io/json-inl.hpp"
#include "warmup/detail/io/print-inl.hpp"
#include "warmup/detail/io/report_file-inl.hpp"
#include "warmup/detail/io/svg-inl.hpp"
#include "warmup/detail/io/trace-inl.hpp"
#include "warmup/detail/analysis/steady_rule-inl.hpp"
#include "warmup/detail/runtime/prewarm-inl.hpp"
#include "warmup/detail/runtime/settings-inl.hpp"
#include "warmup/detail/runtime/child_reports-inl.hpp"
#include "warmup/detail/runtime/cpu_sampler-inl.hpp"
#include "warmup/detail/runtime/device_timer-inl.hpp"
#include "warmup/detail/runtime/memory_probe-inl.hpp"
#include "warmup/detail/runtime/nvtx-inl.hpp"
#include "warmup/detail/runtime/site-inl.hpp"
#include "warmup/detail/runtime/snapshot-inl.hpp"
#else
// Under WARMUP_DISABLE every file compiles the public functions' definitions, inline: no-ops,
// the writers (of empty reports) and the report file's.
#include "warmup/detail/io/csv-inl.hpp"
#include "warmup/detail/io/json-inl.hpp"
#include "warmup/detail/io/print-inl.hpp"
#include "warmup/detail/io/report_file-inl.hpp"
#include "warmup/detail/io/svg-inl.hpp"
#include "warmup/detail/io/trace-inl.hpp"
#include "warmup/detail/analysis/steady_rule-inl.hpp"
#include "warmup/detail/runtime/prewarm-inl.hpp"
#include "warmup/detail/runtime/settings-inl.hpp"
#include "warmup/detail/runtime/child_reports-inl.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {
inline void ensure_started() noexcept {}  // nothing to start: nothing is measured
[[gnu::weak]] void start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file() noexcept {}
}  // namespace detail
WARMUP_END_NAMESPACE
#endif

#include "warmup/detail/header_end.hpp"
