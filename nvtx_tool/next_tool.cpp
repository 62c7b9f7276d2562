// Loading WARMUP_NVTX_NEXT's tool and the export table it attaches through (next_tool.hpp).
#include "next_tool.hpp"

#include <warmup/detail/runtime/environment.hpp>
#include <warmup/detail/runtime/notices.hpp>
#include <warmup/detail/io/text.hpp>

namespace warmup_nvtx {
namespace {

namespace wd = cuda_warmup::detail;

/// The program's export table the next tool is attaching to now (attach_next holds the lock).
NvtxGetExportTableFunc_t attaching_to = nullptr;
std::recursive_mutex attach_lock;
thread_local bool in_attach = false;

int NVTX_API module_table(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned* size) {
  next_tool& n = next();
  if (module == NVTX_CB_MODULE_CORE) {
    *out = n.core_slots;
    *size = NVTX_CBID_CORE_SIZE;
    return 1;
  }
  if (module == NVTX_CB_MODULE_CORE2) {
    *out = n.core2_slots;
    *size = NVTX_CBID_CORE2_SIZE;
    return 1;
  }
  // Other modules (naming CUDA and OpenCL objects, sync): the program's own tables.
  const auto* real = attaching_to != nullptr ? static_cast<const NvtxExportTableCallbacks*>(attaching_to(NVTX_ETID_CALLBACKS)) : nullptr;
  if (real == nullptr || real->GetModuleFunctionTable == nullptr) return 0;
  return real->GetModuleFunctionTable(module, out, size);
}

const NvtxExportTableCallbacks callbacks{sizeof(NvtxExportTableCallbacks), &module_table};

const void* NVTX_API export_table(std::uint32_t id) {
  if (id == NVTX_ETID_CALLBACKS) return &callbacks;
  return attaching_to != nullptr ? attaching_to(id) : nullptr;
}

void say(const std::string& why) {
  wd::notice_board().raise(wd::notice_kind::nvtx_next, why);
}

}  // namespace

next_tool& load_next() {
  static next_tool* tool = [] {
    auto* t = new next_tool;
    for (unsigned i = 0; i < NVTX_CBID_CORE_SIZE; ++i) t->core_slots[i] = &t->core[i];
    for (unsigned i = 0; i < NVTX_CBID_CORE2_SIZE; ++i) t->core2_slots[i] = &t->core2[i];
    t->core_slots[0] = t->core2_slots[0] = nullptr;  // id 0 is no function
    const char* path = wd::read_setting<wd::setting::nvtx_next>().text;
    if (path == nullptr || *path == '\0') return t;
    t->path = path;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      t->failure = "WARMUP_NVTX_NEXT=" + wd::printable(t->path, 200) + " could not be loaded (" +
                   (e != nullptr ? wd::printable(e, 200) : std::string("no reason given")) +
                   "): no other NVTX tool sees the program's ranges";
    } else if (dlsym(h, "warmup_nvtx_tool") != nullptr) {
      // This tool again (or another build of it): its handlers would call themselves, or count
      // every range twice.
      t->failure = "WARMUP_NVTX_NEXT=" + wd::printable(t->path, 200) +
                   " is warmup's NVTX tool itself: not attached (every range would be counted twice)";
    } else if (void* f = dlsym(h, "InitializeInjectionNvtx2"); f == nullptr) {
      t->failure = "WARMUP_NVTX_NEXT=" + wd::printable(t->path, 200) +
                   " is no NVTX tool (it exports no InitializeInjectionNvtx2): no other NVTX tool sees the program's ranges";
      dlclose(h);
    } else {
      t->init = reinterpret_cast<NvtxInitializeInjectionNvtxFunc_t>(f);
    }
    if (!t->failure.empty()) say(t->failure);
    return t;
  }();
  loaded_next = tool;
  return *tool;
}

bool attach_next(NvtxGetExportTableFunc_t real) noexcept {
  next_tool& n = next();
  // The next tool's own NVTX calls while it attaches reach this tool again (its NVTX instance
  // loads NVTX_INJECTION64_PATH, this library): they are handled, not attached a second time.
  if (!n.attached() || in_attach) return false;
  std::lock_guard<std::recursive_mutex> lock(attach_lock);
  in_attach = true;
  attaching_to = real;
  const int ok = n.init(&export_table);
  attaching_to = nullptr;
  in_attach = false;
  if (ok == 0) say("WARMUP_NVTX_NEXT=" + wd::printable(n.path, 200) + " declined to attach (its InitializeInjectionNvtx2 returned 0)");
  return ok != 0;
}

}  // namespace warmup_nvtx
