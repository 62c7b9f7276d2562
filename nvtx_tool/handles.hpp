// The tool's domains and registered strings, and the handles NVTX gets for them: indices checked
// by bounds, never addresses (handles.cpp makes and finds them).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <new>

#include "ranges.hpp"

namespace warmup_nvtx {

/// The handles the tool gives NVTX for its domains and registered strings: (index + 1) x 16,
/// never an address, so that a handle NVTX never gave (made up, or from another process) is
/// found to be none by its bounds, never read through. Added to under the handles' lock; read
/// with none.
template <class T>
class handle_table {
 public:
  static constexpr std::size_t per_chunk = 1024, chunks = 4096;  // 4M handles

  /// 0 where the table is full or memory ran out.
  std::uintptr_t add(T* p) noexcept {
    const std::size_t i = count_.load(std::memory_order_relaxed);
    if (i >= per_chunk * chunks) return 0;
    std::atomic<T*>* c = chunk_[i / per_chunk].load(std::memory_order_relaxed);
    if (c == nullptr) {
      c = new (std::nothrow) std::atomic<T*>[per_chunk];
      if (c == nullptr) return 0;
      chunk_[i / per_chunk].store(c, std::memory_order_release);
    }
    c[i % per_chunk].store(p, std::memory_order_relaxed);
    count_.store(i + 1, std::memory_order_release);
    return (i + 1) * 16;
  }

  T* find(std::uintptr_t h) const noexcept {
    if (h == 0 || h % 16 != 0) return nullptr;
    const std::size_t i = h / 16 - 1;
    if (i >= count_.load(std::memory_order_acquire)) return nullptr;
    return chunk_[i / per_chunk].load(std::memory_order_acquire)[i % per_chunk].load(std::memory_order_relaxed);
  }

 private:
  std::atomic<std::atomic<T*>*> chunk_[chunks] = {};
  std::atomic<std::size_t> count_{0};
};

/// Every domain and registered string the program made, never freed, and their handles.
struct domains_and_strings {
  std::mutex m;
  std::deque<domain> domains;
  std::deque<registered> strings;
  handle_table<domain> domain_handles;
  handle_table<registered> string_handles;
};
domains_and_strings& handle_registry();

}  // namespace warmup_nvtx
