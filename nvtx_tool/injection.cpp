// The entry point NVTX calls (InitializeInjectionNvtx2, in the library NVTX_INJECTION64_PATH
// names): the handlers (handlers.hpp) written into each NVTX instance's tables, and the tool's
// start, exit and fork hooks, once per process.
#include <pthread.h>

#include <cstdlib>
#include <mutex>

#include "device_time.hpp"
#include "handlers.hpp"
#include "late_ranges.hpp"
#include "next_tool.hpp"
#include "ranges.hpp"
#include "run_status.hpp"

namespace warmup_nvtx {
namespace {

/// Writes the handlers into one module's table of one NVTX instance; `all`: the pass-on-only
/// ones too.
bool install(const NvtxExportTableCallbacks* cb, NvtxCallbackModule module, bool all) noexcept {
  function_table t;
  if (cb->GetModuleFunctionTable == nullptr || !cb->GetModuleFunctionTable(module, &t.table, &t.size) ||
      t.table == nullptr)
    return false;
  install_range_handlers(module, t);
  if (all) install_pass_on_handlers(module, t);
  return true;
}

void at_exit() {
  say_what_was_left();
  say_if_no_domain_counted();
}

/// In a forked child: a process of its own.
void in_child() noexcept {
  after_fork_in_child();
  run_status::after_fork_in_child();
  late::after_fork_in_child();
}

/// Once per process: the hooks at exit and fork. Registered at the first NVTX call, after
/// warmup's report at exit was (the library starts as this tool is loaded), so they run before it.
void once_per_process() noexcept {
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      run_status::start();  // before the handlers are installed: the first range is recorded
      late::watch_the_report();
      prepare_thread_ranges();
      (void)config();
      (void)default_domain();
      (void)load_next();
      (void)std::atexit(&at_exit);
      device::start(config().device, config().device_refused);  // after: its exit hook, which gives the last ranges their device time, runs first
      (void)pthread_atfork(nullptr, nullptr, &in_child);
    });
  } catch (...) {
  }
}

}  // namespace
}  // namespace warmup_nvtx

extern "C" {

/// Marks this library as warmup's NVTX tool: the library, in a program that measures too, looks
/// for it to tell whether NVTX chose this tool (detail/runtime/nvtx_domain.hpp).
__attribute__((visibility("default"))) extern const char warmup_nvtx_tool[] = "warmup NVTX tool";

/// NVTX's entry point, called once by each NVTX instance of the program (each shared object
/// built with NVTX's headers) at its first NVTX call, with that instance's export table.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace warmup_nvtx;
  if (get_table == nullptr) return 0;
  const auto* cb = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (cb == nullptr) return 0;
  once_per_process();
  const bool all = next().attached();
  if (!install(cb, NVTX_CB_MODULE_CORE, all) || !install(cb, NVTX_CB_MODULE_CORE2, all)) return 0;
  if (all) (void)attach_next(get_table);
  return 1;
}

}  // extern "C"
