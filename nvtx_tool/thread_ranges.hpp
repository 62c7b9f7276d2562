// Each thread's open push/pop ranges (thread_ranges: a stack of frames, the thread's recent
// messages) and the one pointer per thread that finds them, inline: every push and pop reads it.
// Made, listed and freed in thread_ranges.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <warmup/detail/record/host_call.hpp>

#include "known_name.hpp"
#include "ranges.hpp"

namespace warmup_nvtx {

namespace wd = cuda_warmup::detail;

/// Push/pop ranges a thread keeps open at once, at most: a program that pushes and never pops
/// is bounded. Pushes beyond are counted, not measured; the pops that follow end them first.
inline constexpr std::size_t max_frames = std::size_t{1} << 16;

/// A push/pop range open on a thread, and its depth in its domain (NVTX's return value), kept so
/// that a push and a pop look no further than the latest range of their domain.
struct frame {
  const domain* d;
  int depth;
  wd::host_call call;
  std::uint64_t serial = 0;  ///< its device-time serial (device_time.hpp); 0 where not device-timed
  std::uint64_t parent = 0;  ///< the serial of the device-timed range it nests in, if any
};

/// The calling thread's open ranges and its name buffer. A thread that ends inside ranges
/// leaves them open: they are counted, never ended (their time is unknown). `open` mirrors
/// frames.size() for the count at exit, stored by this thread only: no atomic read-modify-write
/// on a range's path.
struct thread_ranges {
  std::vector<frame> frames;
  std::size_t beyond = 0;  ///< pushes past max_frames still open: not kept
  std::string name;
  std::atomic<std::size_t> open{0};  ///< frames.size() + beyond
  std::atomic<std::uint64_t> left_out{0};  ///< ranges WARMUP_NVTX_DOMAINS left out; stored by this thread only
  bool listed = false;
  /// The sites of the messages this thread passed lately, by the message's address: a C string
  /// passed again from the same place (a literal, a kept string) is found by one comparison of
  /// its characters with the site's name, with no length taken, no hash and no second
  /// thread-local table; a registered string by its handle alone. Only messages that are their
  /// site's name (after the domain's prefix) are kept here (site_lookup.hpp).
  struct recent {
    const void* key = nullptr;
    const domain* d = nullptr;
    wd::named_site* site = nullptr;
    known_name tail;  ///< the site's name after the domain's prefix; none for a handle
  };
  static constexpr std::size_t recent_count = 32;
  recent seen[recent_count];
  static std::size_t slot_of(const void* key) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(key);
    return ((a >> 4) ^ (a >> 10)) % recent_count;
  }

  /// Adds this thread to pushing_threads_list(), for the count at exit.
  void add_to_pushing_threads() noexcept;
  /// Takes this thread off the list, and keeps what it left open for the count at exit.
  ~thread_ranges();
};

/// The threads that pushed ranges, for the count at exit, and what ended threads left open.
struct pushing_threads {
  std::mutex m;
  std::vector<thread_ranges*> live;
  std::uint64_t left_by_ended = 0;
  std::uint64_t left_out_by_ended = 0;  ///< ranges WARMUP_NVTX_DOMAINS left out, of threads that ended
  std::string first_unclosed;  ///< a range that was never closed, to name in the notice
};
pushing_threads& pushing_threads_list();

/// The calling thread's ranges live behind one pointer per thread, made at the thread's first
/// range and freed, when the thread ends, by a key's destructor (the main thread's stays: exit
/// reads it). The pointer is libwarmup_nvtx_thread.so's static TLS slot where that library
/// loaded (one load from the thread pointer; thread_slot.cpp says why), else this thread_local.
inline thread_local thread_ranges* slot_fallback = nullptr;
/// The slot's offset from the thread pointer; 0 until load_thread_slot() found it (never a static
/// TLS block's: x86-64's lie below the thread pointer, AArch64's past its thread control block).
inline std::ptrdiff_t slot_offset = 0;

#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer) && (defined(__x86_64__) || defined(__aarch64__))
#define WARMUP_NVTX_THREAD_POINTER 1
#endif
#endif

/// The calling thread's pointer to its ranges: the slot, else the thread_local.
inline thread_ranges*& this_thread_slot() noexcept {
#ifdef WARMUP_NVTX_THREAD_POINTER
  if (__builtin_expect(slot_offset != 0, 1))
    return *reinterpret_cast<thread_ranges**>(static_cast<char*>(__builtin_thread_pointer()) + slot_offset);
#endif
  return slot_fallback;
}

/// The calling thread's first range: its ranges made, listed and put in its slot; null where
/// memory ran out or no key could be made.
[[gnu::noinline]] thread_ranges* make_this_thread_ranges() noexcept;

/// The calling thread's ranges; null only where memory ran out or no key could be made.
inline thread_ranges* this_thread_ranges() noexcept {
  thread_ranges* t = this_thread_slot();
  return t != nullptr ? t : make_this_thread_ranges();
}

}  // namespace warmup_nvtx
