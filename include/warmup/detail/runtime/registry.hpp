/// @file
/// @brief The process's sites, and each thread's table of the names it passed: what a scope
/// calls the first time it meets a name (detail/record/site.hpp declares those calls).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "warmup/config.hpp"
#include "warmup/detail/busy.hpp"
#include "warmup/detail/process.hpp"
#include "warmup/detail/record/site.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/io/text.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The most distinct sites a process keeps (a bound on memory; a site's is in BENCHMARKS.md):
/// names beyond it, a name built from a request id say, are counted together in one site per kind.
inline constexpr std::size_t max_sites = 100'000;
inline constexpr std::string_view over_cap_name = "(names beyond the site cap)";

/// The longest site name kept, in bytes. A name is written in every report row of its site: a
/// name of 100 MB made reports of gigabytes. A longer one is cut to its first 4 KiB, on a UTF-8
/// character's boundary (utf8_prefix), and said once.
inline constexpr std::size_t max_name_bytes = 4096;
inline std::string_view bounded_name(std::string_view name) noexcept { return utf8_prefix(name, max_name_bytes); }

/// All sites of the process. Its mutex is taken only when a name is seen for the first time
/// (by the process, or by a thread for named scopes) and by snapshots: never per call.
class registry {
 public:
  site* find_or_add(op_kind k, std::string_view name) noexcept {
    const busy_section busy;
    WARMUP_TRY {
      const std::size_t whole = name.size();
      name = bounded_name(name);
      const bool cut = name.size() < whole;
      std::lock_guard<std::mutex> lock(mutex_);
      auto& index = by_name_[static_cast<std::size_t>(k)];
      if (auto it = index.find(name); it != index.end()) return it->second;
      if (cut && !notice_board().raised(notice_kind::long_name))
        notice_board().raise(notice_kind::long_name, "a site name of " + std::to_string(whole) + " bytes cut to its first " +
                                                         std::to_string(name.size()) + " (names are kept to " +
                                                         std::to_string(max_name_bytes) + " bytes): '" +
                                                         printable(name, 60) + "'");
      if (sites_.size() >= max_sites) {
        if (auto it = index.find(over_cap_name); it != index.end()) return it->second;
        notice_board().raise(notice_kind::site_cap, "more than " + std::to_string(max_sites) +
                                                        " distinct site names: the calls of further names are counted in one site per kind, '" +
                                                        std::string(over_cap_name) + "'");
        name = over_cap_name;
      }
      sites_.push_back(std::make_unique<site>(k, name, static_cast<std::uint32_t>(sites_.size())));
      site* s = sites_.back().get();
      index.emplace(std::string_view{s->name}, s);
      return s;
    } WARMUP_CATCH_ALL {
      return nullptr;  // out of memory: the scope measures nothing rather than failing
    }
  }

  std::vector<site*> all() const {
    const busy_section busy;
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<site*> out;
    out.reserve(sites_.size());
    for (const auto& s : sites_) out.push_back(s.get());
    return out;
  }

  /// For fork handlers: held across fork() so the child's copy is never locked by a thread
  /// that does not exist there.
  void lock() noexcept { mutex_.lock(); }
  void unlock() noexcept { mutex_.unlock(); }
  /// Forgets every site's calls; caller holds the lock and is the only thread.
  void reset_locked() noexcept {
    for (auto& s : sites_) s->reset();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<site>> sites_;
  std::unordered_map<std::string_view, site*> by_name_[op_kind_count];
};

/// The registry lives until the process ends (it is never destroyed), so scopes in static
/// destructors and reports at exit still find it.
inline registry& sites() noexcept {
  return shared<registry, slot::registry>();
}

/// The calling thread's table of every name its named scopes passed, behind the small table
/// by address (`recent_names_here`), and the shards it took, given back when it ends. Freed when
/// the thread ends, except the main thread's: that one ends inside exit(), possibly called by a
/// signal handler that stopped the thread inside the allocator, where a free would hang; the
/// process is going away anyway.
struct name_cache {
  std::unordered_map<std::string_view, named_site> by_kind[op_kind_count];

  /// The shards this thread took, given back when it ends (before the entries above, whose
  /// slots point at some of them, are freed). A scope that runs later in the thread's end, in
  /// another thread_local's destructor, finds its slot ended and uses the site's shared lane.
  struct held_shard {
    site* s;
    shard_slot* slot;
  };
  std::vector<held_shard> held;
  void give_back_shards() noexcept {
    for (const held_shard& h : held) {
      if (h.slot->p != nullptr) h.s->give_back(h.slot->p);
      h.slot->p = nullptr;
      h.slot->ended = true;
    }
    held.clear();
  }
  /// In a forked child: the sites made every shard spare; this thread holds none any more.
  void forget_shards() noexcept {
    for (const held_shard& h : held) *h.slot = shard_slot{};
    held.clear();
  }
};

/// Set as the thread's table is freed: a scope in a later thread_local destructor must not
/// reach it (nor the small table's entries, which point into it, and are cleared).
inline thread_local bool names_gone = false;

inline name_cache& my_names() {
  // The table lives in the thread's own storage; only its destruction is chosen by hand.
  struct holder {
    alignas(name_cache) unsigned char storage[sizeof(name_cache)];
    holder() { new (storage) name_cache; }
    ~holder() {
      if (static_cast<pid_t>(::syscall(SYS_gettid)) == ::getpid()) return;
      names_gone = true;
      recent_names_here = recent_names{};
      get().give_back_shards();
      get().~name_cache();
    }
    name_cache& get() noexcept { return *std::launder(reinterpret_cast<name_cache*>(storage)); }
  };
  thread_local holder h;
  return h.get();
}

/// Notes that the calling thread holds `slot`'s shard of `s`, to give back when the thread ends.
inline bool hold_shard(site* s, shard_slot* slot) noexcept {
  if (names_gone) return false;
  WARMUP_TRY {
    const busy_section busy;
    my_names().held.push_back({s, slot});
    return true;
  } WARMUP_CATCH_ALL {
    return false;
  }
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
