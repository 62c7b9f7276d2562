/// @file
/// @brief A forked child starts clean: no parent's calls, no parent's CUDA, no shared report file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <pthread.h>

#include "warmup/detail/cuda_runtime.hpp"
#include "warmup/detail/device_timer.hpp"
#include "warmup/detail/notices.hpp"
#include "warmup/detail/site.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

// The library's locks are held across fork() (taken in a fixed order, released in both
// processes), so the child never inherits one locked by a thread it does not have.
inline void before_fork() noexcept {
  if (process_anchor* a = anchor()) a->copies_mutex.lock();
  sites().lock();
  rings().lock();
  notice_board().lock();
}

inline void after_fork_in_parent() noexcept {
  notice_board().unlock();
  rings().unlock();
  sites().unlock();
  if (process_anchor* a = anchor()) a->copies_mutex.unlock();
}

/// The child has one thread, this one. Its sites keep their names (WARMUP_SCOPE statics point at
/// them) and lose their calls; the parent's events are dropped without a CUDA call; if the parent
/// had initialised CUDA, device timing is off in the child (CUDA cannot be used there) and the
/// first device-timed scope says so once. Scopes open across the fork are not recorded.
inline void after_fork_in_child() noexcept {
  cuda_state& st = cuda();
  st.forked.store(true, std::memory_order_relaxed);
  if (st.runtime.load(std::memory_order_relaxed) == cuda_state::available) {
    st.forked_after_init.store(true, std::memory_order_relaxed);
    st.runtime.store(cuda_state::unknown, std::memory_order_relaxed);
  }
  thread_rings& mine = my_rings();
  mine.by_device.fill(nullptr);
  mine.last = nullptr;
  rings().forget_locked();
  sites().reset_locked();
  notice_board().reset_locked();
  notice_board().unlock();
  rings().unlock();
  sites().unlock();
  if (process_anchor* a = anchor()) a->copies_mutex.unlock();
}

inline bool register_fork_handlers() noexcept {
  return pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) == 0;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
