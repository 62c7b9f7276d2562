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
///
/// A symbol is not always reachable: a program that does not export its own definition (built
/// without `-Wl,--export-dynamic-symbol`), a plugin `dlopen`ed with `RTLD_LOCAL` that a second
/// plugin cannot see, a version script that makes everything local. So the copy that makes the
/// anchor also writes its address into the process's environment (`CUDA_WARMUP_ANCHOR_V1`), the
/// one process-wide place every copy reaches by name whatever its visibility and link flags.
/// Why the environment, not a file or shared memory keyed by the pid: nothing to clean up after
/// a crash, nothing outside the process to trust, and the variable is read by the C library's
/// own `getenv`. An address is only meaningful in the address space that wrote it: the value
/// carries the kernel's 16 random bytes of this program image (`AT_RANDOM`, new at every
/// `execve`, the same in a forked child, whose memory is a copy), so a program started from
/// this one inherits a value it ignores and replaces; the anchor found there is checked by a
/// magic number and its layout version before use. The variable is written once, while the
/// first copy starts (static initialisation, before `main` for a program), and only read after.
///
/// Copies of two versions (WARMUP_ABI_VERSION, config.hpp) share no code: each version's names
/// are in an inline namespace of its own (`cuda_warmup::v9`), so neither default visibility nor
/// the dynamic linker's order makes one call the other's functions. They find each other only
/// here: the anchor's symbol and variable keep one name across versions, and its first 8 bytes
/// (version, magic) one layout, so that every release reads them. A copy that finds another
/// version's anchor neither uses nor changes it: it keeps an anchor of its own (which later
/// copies of its version join), names itself in a second variable (`..._APART`), and its report
/// at exit goes beside the process's, each report saying which copies' sites it lacks.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>

#include <dlfcn.h>
#include <sys/auxv.h>

#include "warmup/detail/busy.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The process-wide objects, one slot each.
enum class slot : unsigned { registry, notices, cuda, rings, recurrence, timeline, device_cache, process, causes, report_files, count };

/// What one copy of the library lends the others: its own run-time switches (read by its
/// scopes without indirection) and whether a thread is inside its locked sections.
struct copy_entry {
  std::atomic<bool>* measuring = nullptr;
  std::atomic<bool>* sample_device = nullptr;
  bool (*busy)() noexcept = nullptr;
};

struct process_anchor {
  // The layout's version is the library's (WARMUP_ABI_VERSION, config.hpp), which also names the
  // inline namespace: a copy whose anchor has another version is another release, whose code
  // shares no symbol with this one's, and it keeps its own anchor (find_anchor).
  static constexpr std::uint32_t current_version = WARMUP_ABI_VERSION;
  static constexpr std::uint32_t magic_value = 0x5741524DU;  // "WARM"
  static constexpr std::size_t max_copies = 256;
  // The first 8 bytes never change from one version to the next: any release can read them.
  std::uint32_t version = current_version;
  std::uint32_t magic = magic_value;
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
// with WARMUP_DISABLE declares one it never uses) and the same in every version: where copies of
// two versions meet, and see that they must keep apart. Exported whatever the visibility the code
// is built with; the first definition the dynamic linker sees is the one all copies use.
#if WARMUP_ENABLED
#define WARMUP_DETAIL_ANCHOR cuda_warmup_anchor_v1
#else
#define WARMUP_DETAIL_ANCHOR cuda_warmup_anchor_v1_off
#endif
// The environment variables that name the anchor, and the copies kept apart from it
// (find_anchor), one pair per configuration as the symbol is.
#if WARMUP_ENABLED
#define WARMUP_DETAIL_ANCHOR_VARIABLE "CUDA_WARMUP_ANCHOR_V1"
#define WARMUP_DETAIL_APART_VARIABLE "CUDA_WARMUP_ANCHOR_V1_APART"
#else
#define WARMUP_DETAIL_ANCHOR_VARIABLE "CUDA_WARMUP_ANCHOR_V1_OFF"
#define WARMUP_DETAIL_APART_VARIABLE "CUDA_WARMUP_ANCHOR_V1_OFF_APART"
#endif
extern "C" {
__attribute__((visibility("default"))) inline cuda_warmup::detail::process_anchor* WARMUP_DETAIL_ANCHOR = nullptr;
}

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The names above as C++ names, which outlive the macros (detail/macros_end.hpp undefines them
/// at the end of the outermost header).
inline constexpr const char* anchor_variable = WARMUP_DETAIL_ANCHOR_VARIABLE;
inline constexpr const char* apart_variable = WARMUP_DETAIL_APART_VARIABLE;
/// The exported anchor pointer itself (tests swap it to stand for another copy's).
inline process_anchor** anchor_symbol() noexcept { return &WARMUP_DETAIL_ANCHOR; }

/// The environment variable's value for `a`: this image's 16 random bytes, then the address,
/// in hexadecimal ("<32 digits>:<address>"); an empty string where the kernel gave no random bytes.
struct published_text {
  char text[32 + 1 + 16 + 1] = {};
};

inline published_text publish_text(const process_anchor* a) noexcept {
  published_text out;
  const auto* random = reinterpret_cast<const unsigned char*>(::getauxval(AT_RANDOM));
  if (random == nullptr) return out;
  static constexpr char digits[] = "0123456789abcdef";
  std::size_t n = 0;
  for (int i = 0; i < 16; ++i) {
    out.text[n++] = digits[random[i] >> 4];
    out.text[n++] = digits[random[i] & 15];
  }
  out.text[n++] = ':';
  const auto address = reinterpret_cast<std::uintptr_t>(a);
  for (int shift = 60; shift >= 0; shift -= 4) out.text[n++] = digits[(address >> shift) & 15];
  return out;
}

/// The anchor the environment names, if this program image wrote it (any version: the caller
/// compares); nullptr where there is none, it is another image's, or it is not an anchor.
inline process_anchor* published_anchor() noexcept {
  const char* value = std::getenv(WARMUP_DETAIL_ANCHOR_VARIABLE);
  if (value == nullptr) return nullptr;
  const published_text mine = publish_text(nullptr);
  if (mine.text[0] == '\0') return nullptr;
  std::uintptr_t address = 0;
  for (std::size_t i = 0; i < sizeof mine.text - 1; ++i) {
    const char c = value[i];
    if (c == '\0') return nullptr;
    if (i <= 32) {  // the image's bytes and the colon: as this image writes them
      if (c != mine.text[i]) return nullptr;
      continue;
    }
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return nullptr;
    address = address << 4 | static_cast<std::uintptr_t>(digit);
  }
  if (value[sizeof mine.text - 1] != '\0' || address == 0) return nullptr;
  auto* found = reinterpret_cast<process_anchor*>(address);  // made by this image, never freed
  return found->magic == process_anchor::magic_value ? found : nullptr;
}

/// Names `a` in the environment, for copies no symbol leads to it.
inline void publish_anchor(const process_anchor* a) noexcept {
  const published_text t = publish_text(a);
  if (t.text[0] != '\0') (void)::setenv(WARMUP_DETAIL_ANCHOR_VARIABLE, t.text, 1);
}

/// Why this copy keeps an anchor of its own beside the process's (another release's anchor is
/// there), or nullptr: its sites are then not in the process's report, which must say so.
inline const char*& kept_apart() noexcept {
  static const char* why = nullptr;
  return why;
}

/// The file this copy of the library was loaded from ("the program" where it is the program).
inline std::string this_copy_file() {
  static const char here = 0;
  Dl_info info{};
  if (::dladdr(&here, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0') return "the program";
  return info.dli_fname;
}

/// Copies kept apart name themselves in a second variable, one line each after this image's
/// bytes, so that the process's report can say what it lacks; its text is the same for every
/// release that writes it.

inline void say_kept_apart() noexcept {
  const published_text image = publish_text(nullptr);
  if (image.text[0] == '\0') return;
  WARMUP_TRY {
    const std::string prefix(image.text, 33);
    const char* before = std::getenv(WARMUP_DETAIL_APART_VARIABLE);
    std::string value = before != nullptr && std::string(before).compare(0, 33, prefix) == 0 ? before : prefix;
    value += this_copy_file() + "\n";
    (void)::setenv(WARMUP_DETAIL_APART_VARIABLE, value.c_str(), 1);
  } WARMUP_CATCH_ALL {
  }
}

/// The files of the copies kept apart in this program image, one a line; empty where none.
inline std::string copies_kept_apart() {
  const published_text image = publish_text(nullptr);
  const char* value = std::getenv(WARMUP_DETAIL_APART_VARIABLE);
  if (value == nullptr || image.text[0] == '\0' || std::string(value).compare(0, 33, image.text, 33) != 0) return {};
  return value + 33;
}

inline process_anchor* find_anchor() noexcept {
  constexpr std::uint32_t version = process_anchor::current_version;
  process_anchor** where = &WARMUP_DETAIL_ANCHOR;
  // A copy linked with -Bsymbolic, or a program whose own definition is not exported, binds the
  // variable to itself: an exported one, if any copy has it, wins.
  if (void* global = ::dlsym(RTLD_DEFAULT, WARMUP_DETAIL_STRING(WARMUP_DETAIL_ANCHOR)))
    where = static_cast<process_anchor**>(global);
  process_anchor* current = __atomic_load_n(where, __ATOMIC_ACQUIRE);
  process_anchor* const published = published_anchor();
  if (current != nullptr && current->version == version) {
    if (published == nullptr) publish_anchor(current);  // the program cleared its environment
    return current;
  }
  // An anchor no symbol led to (a program that does not export its own, a plugin loaded
  // RTLD_LOCAL): this copy's variable takes it, so copies that find the variable find it too.
  if (published != nullptr && published->version == version) {
    if (current == nullptr) (void)__atomic_compare_exchange_n(where, &current, published, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return published;
  }
  if (current != nullptr || published != nullptr) {  // only another release's anchor: one of this release's own
    kept_apart() = "another release of warmup made the process's anchor first, with another layout";
    say_kept_apart();
    static process_anchor* const own = new (std::nothrow) process_anchor;
    if (published == nullptr && own != nullptr) publish_anchor(own);  // this release's later copies join it
    return own;
  }
  auto* fresh = new (std::nothrow) process_anchor;
  if (fresh == nullptr) return nullptr;
  if (__atomic_compare_exchange_n(where, &current, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    publish_anchor(fresh);
    return fresh;
  }
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
