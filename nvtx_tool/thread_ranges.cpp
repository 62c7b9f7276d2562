// Each thread's ranges made at its first range, found through the thread slot (loaded here from
// libwarmup_nvtx_thread.so), freed at the thread's end by a key's destructor, and listed for the
// count at exit (thread_ranges.hpp).
#include "thread_ranges.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <new>

#include <warmup/detail/process.hpp>

namespace warmup_nvtx {

pushing_threads& pushing_threads_list() {
  static pushing_threads* p = new pushing_threads;
  return *p;
}

void thread_ranges::add_to_pushing_threads() noexcept {
  try {
    pushing_threads& p = pushing_threads_list();
    std::lock_guard<std::mutex> lock(p.m);
    p.live.push_back(this);
    listed = true;
  } catch (...) {
  }
}

thread_ranges::~thread_ranges() {
  if (!listed) return;
  try {
    pushing_threads& p = pushing_threads_list();
    std::lock_guard<std::mutex> lock(p.m);
    for (auto& t : p.live)
      if (t == this) {
        t = p.live.back();
        p.live.pop_back();
        break;
      }
    p.left_by_ended += frames.size() + beyond;
    p.left_out_by_ended += left_out.load(std::memory_order_relaxed);
    if (p.first_unclosed.empty() && !frames.empty() && frames.front().call.s != nullptr)
      p.first_unclosed = frames.front().call.s->name;
  } catch (...) {
  }
}

namespace {

/// Loads the slot library from the tool's own folder, once, before any range: a static TLS
/// block is at one offset from every thread's pointer, those running now included.
void load_thread_slot() noexcept {
#ifdef WARMUP_NVTX_THREAD_POINTER
  try {
    std::string path = wd::this_copy_file();  // the tool's own file: this copy of the runtime is its
    path.erase(path.find_last_of('/') + 1);  // npos + 1 == 0: a bare name, its folder the search path's
    path += "libwarmup_nvtx_thread.so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return;  // kept open for the process: every thread reads the slot
    if (auto* offset = reinterpret_cast<long (*)()>(dlsym(h, "warmup_nvtx_thread_offset"))) slot_offset = offset();
  } catch (...) {
  }
#endif
}

/// The key's destructor, at the end of a thread that made ranges.
void free_thread_ranges(void* p) {
  this_thread_slot() = nullptr;
  delete static_cast<thread_ranges*>(p);
}

struct ranges_key {
  pthread_key_t key{};
  bool made = pthread_key_create(&key, &free_thread_ranges) == 0;
};
ranges_key& key_of_ranges() {
  static ranges_key k;
  return k;
}
/// Set before the tool's handlers are installed (prepare_thread_ranges()): the first range of a
/// thread reads it.
const ranges_key* thread_ranges_key = nullptr;

}  // namespace

thread_ranges* make_this_thread_ranges() noexcept {
  if (thread_ranges_key == nullptr || !thread_ranges_key->made) return nullptr;  // no key: ranges go unmeasured
  auto* t = new (std::nothrow) thread_ranges;
  if (t == nullptr) return nullptr;  // out of memory: this thread's ranges go unmeasured
  t->add_to_pushing_threads();
  (void)pthread_setspecific(thread_ranges_key->key, t);
  this_thread_slot() = t;
  return t;
}

void prepare_thread_ranges() noexcept {
  if (thread_ranges_key == nullptr) {
    load_thread_slot();
    thread_ranges_key = &key_of_ranges();
  }
}

}  // namespace warmup_nvtx
