/// @file
/// @brief One set of process-wide state however many copies of the library a process holds.
///
/// A header-only library is compiled into every program and shared library that includes it.
/// With default visibility the copies' inline statics merge; with `-fvisibility=hidden` (usual
/// for shared libraries) or a `dlopen`ed plugin, each copy would keep its own registry, exit
/// handler and notices. Instead, every copy finds one anchor: the exported variable
/// `cuda_warmup_anchor_v1` (an exported definition that ELF interposition resolves to the
/// first loaded), or else whatever `dlsym(RTLD_DEFAULT, ...)` finds. The anchor holds one
/// instance of each process-wide object (`shared<T>`) and the list of live copies, so the
/// run-time switches reach every copy and an unloaded copy leaves nothing dangling.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>

#include <dlfcn.h>

#include "warmup/detail/busy.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The process-wide objects, one slot each.
enum class slot : unsigned { registry, notices, cuda, rings, recurrence, timeline, device_cache, process, causes, count };

/// What one copy of the library lends the others: its own run-time switches (read by its
/// scopes without indirection) and whether a thread is inside its locked sections.
struct copy_entry {
  std::atomic<bool>* measuring = nullptr;
  std::atomic<bool>* sample_device = nullptr;
  bool (*busy)() noexcept = nullptr;
};

struct process_anchor {
  // 2: the causes slot; 3: the scopes' time base, sites with shards (a copy of an older release
  // must not record steady-clock ns into this release's sites: it keeps an anchor of its own);
  // 4: the time base split for light files (its reading part first), sites without a mutex;
  // 5: the CPU sampler's buffers know their task clock's descriptor; 6: a sampled call's
  // buffer holds its tick and thread, notices of a sampled call's own.
  static constexpr std::uint32_t current_version = 6;
  static constexpr std::size_t max_copies = 256;
  std::uint32_t version = current_version;
  std::atomic<void*> objects[static_cast<unsigned>(slot::count)]{};
  std::atomic<std::size_t> sizes[static_cast<unsigned>(slot::count)]{};  ///< sizeof, to catch a mismatch
  std::mutex copies_mutex;
  copy_entry copies[max_copies];
  // The process's switches, given to each copy as it joins.
  std::atomic<bool> measuring{true}, sample_device{true};
};

}  // namespace detail
WARMUP_END_NAMESPACE

// The anchor every copy of the library looks for, one name per configuration (a program built
// with WARMUP_DISABLE declares one it never uses). Exported whatever the visibility the code is
// built with; the first definition the dynamic linker sees is the one all copies use.
#if WARMUP_ENABLED
#define WARMUP_DETAIL_ANCHOR cuda_warmup_anchor_v1
#else
#define WARMUP_DETAIL_ANCHOR cuda_warmup_anchor_v1_off
#endif
#define WARMUP_DETAIL_STRING_(x) #x
#define WARMUP_DETAIL_STRING(x) WARMUP_DETAIL_STRING_(x)
extern "C" {
__attribute__((visibility("default"))) inline cuda_warmup::detail::process_anchor* WARMUP_DETAIL_ANCHOR = nullptr;
}

WARMUP_BEGIN_NAMESPACE
namespace detail {

inline process_anchor* find_anchor() noexcept {
  process_anchor** where = &WARMUP_DETAIL_ANCHOR;
  // A copy linked with -Bsymbolic, or a program whose own definition is not exported, binds the
  // variable to itself: an exported one, if any copy has it, wins.
  if (void* global = ::dlsym(RTLD_DEFAULT, WARMUP_DETAIL_STRING(WARMUP_DETAIL_ANCHOR)))
    where = static_cast<process_anchor**>(global);
  process_anchor* current = __atomic_load_n(where, __ATOMIC_ACQUIRE);
  if (current != nullptr && current->version == process_anchor::current_version) return current;
  if (current != nullptr) {  // another version's anchor: this copy keeps its own
    static process_anchor* own = new (std::nothrow) process_anchor;
    return own;
  }
  auto* fresh = new (std::nothrow) process_anchor;
  if (fresh == nullptr) return nullptr;
  if (__atomic_compare_exchange_n(where, &current, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return fresh;
  delete fresh;
  return current;
}

/// The anchor, found once per copy; nullptr only if memory ran out at start-up.
inline process_anchor* anchor() noexcept {
  static process_anchor* const a = find_anchor();
  return a;
}

/// The process's one instance of `T`, made by whichever copy asks first and never destroyed (a
/// report at exit may read it after static destruction). A copy that finds an instance of
/// another size (another release of the library under the same ABI name) keeps its own.
template <class T, slot S>
T& shared() noexcept {
  static T* const instance = [] {
    process_anchor* a = anchor();
    const auto i = static_cast<unsigned>(S);
    if (a == nullptr) return new T;
    void* current = a->objects[i].load(std::memory_order_acquire);
    if (current == nullptr) {
      T* fresh = new T;
      if (a->objects[i].compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) {
        a->sizes[i].store(sizeof(T), std::memory_order_release);
        return fresh;
      }
      delete fresh;
    }
    while (a->sizes[i].load(std::memory_order_acquire) == 0) {
    }  // the winner is storing its size
    return a->sizes[i].load(std::memory_order_acquire) == sizeof(T) ? static_cast<T*>(current) : new T;
  }();
  return *instance;
}

/// Joins this copy to the process: its switches take the process's values and follow them.
inline void join_copies(std::atomic<bool>& own_measuring, std::atomic<bool>& own_sampling, bool (*busy)() noexcept) noexcept {
  process_anchor* a = anchor();
  if (a == nullptr) return;
  const busy_section inside;
  std::lock_guard<std::mutex> lock(a->copies_mutex);
  for (copy_entry& c : a->copies)
    if (c.measuring == nullptr) {
      c = copy_entry{&own_measuring, &own_sampling, busy};
      own_measuring.store(a->measuring.load(std::memory_order_relaxed), std::memory_order_relaxed);
      own_sampling.store(a->sample_device.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return;
    }
}

/// Leaves the list when this copy is unloaded (dlclose) or the process ends.
inline void leave_copies(const std::atomic<bool>& own_measuring) noexcept {
  process_anchor* a = anchor();
  if (a == nullptr || busy_here()) return;  // an exit from inside the list's lock: leave it be
  std::lock_guard<std::mutex> lock(a->copies_mutex);
  for (copy_entry& c : a->copies)
    if (c.measuring == &own_measuring) c = copy_entry{};
}

/// Sets a switch in the process and in every copy. Which switch: a member of process_anchor and
/// of copy_entry.
inline void broadcast(std::atomic<bool> process_anchor::*process_switch, std::atomic<bool>* copy_entry::*copy_switch,
                      bool value, std::atomic<bool>& own) noexcept {
  own.store(value, std::memory_order_relaxed);
  process_anchor* a = anchor();
  if (a == nullptr) return;
  const busy_section busy;
  std::lock_guard<std::mutex> lock(a->copies_mutex);
  (a->*process_switch).store(value, std::memory_order_relaxed);
  for (copy_entry& c : a->copies)
    if (c.*copy_switch != nullptr) (c.*copy_switch)->store(value, std::memory_order_relaxed);
}

/// Whether any copy has a thread, this one, inside its locked or allocating sections. Without
/// the list's lock: the thread asking may be the one that holds it.
inline bool any_copy_busy() noexcept {
  process_anchor* a = anchor();
  if (a == nullptr) return false;
  for (const copy_entry& c : a->copies)
    if (c.busy != nullptr && c.busy()) return true;
  return false;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
