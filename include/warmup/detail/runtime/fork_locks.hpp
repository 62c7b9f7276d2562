/// @file
/// @brief The library's locks, as fork() takes them (compiled_once.hpp registers the handlers).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <cstddef>
#include <iterator>
#include <mutex>

#include "warmup/config.hpp"
#include "warmup/detail/runtime/cause_store.hpp"
#include "warmup/detail/analysis/cupti.hpp"
#include "warmup/detail/clock.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/runtime/process_once.hpp"
#include "warmup/detail/runtime/cuda_runtime.hpp"
#include "warmup/detail/runtime/device_rings.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/runtime/registry.hpp"
#include "warmup/detail/runtime/site_reader.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

// The library's locks are held across fork() (taken in a fixed order, released in both
// processes), so the child never inherits one locked by a thread it does not have. Two lists,
// each in the order taken and released in reverse: the locks of this copy's own (each copy
// registers them; taken first, as they are taken before the process's where both are held),
// then the process's, shared by every copy (registered once). tests/host/test_fork.cpp holds
// every lock the headers declare to these lists, or to the few a child never takes.
struct fork_lock {
  void (*lock)() noexcept;
  void (*unlock)() noexcept;
};

inline std::mutex& start_mutex() noexcept {
  static std::mutex m;  // this copy's start-up
  return m;
}

inline constexpr fork_lock copy_fork_locks[] = {
    {[]() noexcept { start_mutex().lock(); }, []() noexcept { start_mutex().unlock(); }},
    {[]() noexcept { cupti().m.lock(); }, []() noexcept { cupti().m.unlock(); }},
    {[]() noexcept { cupti().pending_m.lock(); }, []() noexcept { cupti().pending_m.unlock(); }},
};

inline constexpr fork_lock fork_locks[] = {
    {[]() noexcept { once().m.lock(); }, []() noexcept { once().m.unlock(); }},
    {[]() noexcept { device_cache().m.lock(); }, []() noexcept { device_cache().m.unlock(); }},
    {[]() noexcept { cuda().probe.lock(); }, []() noexcept { cuda().probe.unlock(); }},
    {[]() noexcept { if (process_anchor* a = anchor()) a->copies_mutex.lock(); },
     []() noexcept { if (process_anchor* a = anchor()) a->copies_mutex.unlock(); }},
    {[]() noexcept { sites().lock(); }, []() noexcept { sites().unlock(); }},
    {[]() noexcept { rings().lock(); }, []() noexcept { rings().unlock(); }},
    {[]() noexcept { cause_records().lock(); }, []() noexcept { cause_records().unlock(); }},
    {[]() noexcept { sampler_state().claim.lock(); }, []() noexcept { sampler_state().claim.unlock(); }},
    {[]() noexcept { sampler_state().m.lock(); }, []() noexcept { sampler_state().m.unlock(); }},
    {[]() noexcept { sampler_state().arming.lock(); }, []() noexcept { sampler_state().arming.unlock(); }},
    {[]() noexcept { notice_board().lock(); }, []() noexcept { notice_board().unlock(); }},
    {[]() noexcept { once().time.lock(); }, []() noexcept { once().time.unlock(); }},
};

template <const fork_lock* list, std::size_t n>
void take_fork_locks() noexcept {
  for (std::size_t i = 0; i < n; ++i) list[i].lock();
}

template <const fork_lock* list, std::size_t n>
void release_fork_locks() noexcept {
  for (std::size_t i = n; i-- > 0;) list[i].unlock();
}

inline void before_fork() noexcept { take_fork_locks<fork_locks, std::size(fork_locks)>(); }

inline void release_fork_locks() noexcept { release_fork_locks<fork_locks, std::size(fork_locks)>(); }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
