// Memory: what one site holds, what grows it (a new power of two of durations, nothing else),
// and what one device measurement in flight holds. docs/behaviour.md's "What it costs" states these bounds.
#include "catch.hpp"

#include <thread>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <vector>

#include <cstdint>

#include "warmup/profile.hpp"
#include "warmup/detail/runtime/event_ring.hpp"
#include "warmup/detail/record/series.hpp"
#include "warmup/detail/record/site.hpp"
#include "warmup/detail/runtime/site_state.hpp"      // cold_calls: the windows of calls after idling
#include "warmup/detail/runtime/registry.hpp"  // what runtime/site_state.hpp's code calls

#include "../support/failing_new.hpp"

using warmup::op_kind;
using warmup::detail::event_ring;
using warmup::detail::site;

namespace {
constexpr std::size_t fixed_bound = 3328;  // 3.25 KiB: a host-timed site, its 64 exact calls, timeline of 16 + 16
constexpr std::size_t block = 512;              // one power of two of durations, in one lane
constexpr std::size_t device_bound = 1400;      // a device series before its blocks
}  // namespace

TEST_CASE("a site holds at most 3.25 KiB, plus 512 bytes per power of two of its durations") {
  site s(op_kind::region, "memory.site", 0);
  const std::size_t fixed = s.bytes();
  CHECK(fixed <= fixed_bound);
  std::uint64_t i = 0;
  for (; i < 1000; ++i) s.end_call({i, nullptr}, 1024 + i % 1024, false, 0, false, false);  // one power of two: [1024, 2048)
  CHECK(s.bytes() == fixed + block);
  for (; i < 2000; ++i) s.end_call({i, nullptr}, 2048 + 6 * (i % 1000), false, 0, false, false);  // two more: [2048, 8192)
  CHECK(s.bytes() == fixed + 3 * block);
  const std::size_t warm = s.bytes();
  for (; i < 1'002'000; ++i) s.end_call({i, nullptr}, i % 2 ? 1024 + i % 1024 : 2048 + i % 6000, false, 0, false, false);  // a million more, same range
  CHECK(s.bytes() == warm);
}

TEST_CASE("device timing adds one series of at most 1.4 KiB, plus its blocks") {
  site s(op_kind::launch, "memory.device", 0);
  const std::size_t host_only = s.bytes();
  s.device_time(0, 20'000, false, 0);  // the first device time makes the series
  REQUIRE(s.device_series_if_any() != nullptr);
  CHECK(s.bytes() - host_only <= device_bound + block);
  for (std::uint64_t i = 1; i < 500; ++i) s.device_time(i, 20'000 + i % 100, false, 0);
  CHECK(s.bytes() - host_only <= device_bound + block);
}

TEST_CASE("a site shared by threads adds one shard of at most 640 bytes a thread, plus its blocks, 64 at most") {
  constexpr std::size_t shard_bound = 640;
  site s(op_kind::region, "memory.shared", 0);
  const std::size_t fixed = s.bytes();
  constexpr int threads = 8;
  std::vector<std::thread> pool;
  std::atomic<int> took{0};  // Catch2's assertions are for the main thread alone
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&s, &took] {
      static thread_local warmup::detail::shard_slot slot;  // as WARMUP_SCOPE keeps it: given back at the thread's end
      for (int i = 0; i < 1000; ++i) s.end_call(s.begin_call(&slot), 1024 + i % 1024, false, 0, false, false);
      if (slot.p != nullptr) took.fetch_add(1);  // the site's calls are past its first ones: this thread took a shard
    });
  for (auto& th : pool) th.join();
  CHECK(took.load() == threads);
  CHECK(s.shard_count() >= 1);
  CHECK(s.shard_count() <= threads);
  // Each shard: its lane, and the one power of two its durations fall in.
  CHECK(s.bytes() - fixed <= s.shard_count() * (shard_bound + block) + block);
  CHECK(sizeof(warmup::detail::shard) <= shard_bound);
}

// A call after idling keeps its window, for attribution: the latest cold_calls::kept of them, and
// their room is counted in the site's memory.
TEST_CASE("the windows of calls after idling are counted in the site's memory, and bounded") {
  using warmup::detail::cold_calls;
  using warmup::detail::cold_window;
  site s(op_kind::region, "memory.cold", 0);
  const std::size_t before = s.bytes();
  std::uint64_t i = 1;
  for (; i <= cold_calls::kept; ++i) s.cold_call_ends(i, 1'000 * i, 1'000 * i + 500, true);
  const std::size_t kept = s.bytes();
  CHECK(kept >= before + sizeof(cold_calls) + cold_calls::kept * sizeof(cold_window));
  for (; i <= 10 * cold_calls::kept; ++i) s.cold_call_ends(i, 1'000 * i, 1'000 * i + 500, true);
  CHECK(s.bytes() == kept);  // the oldest make room for the latest
}

// A series' later calls from a thread other than its owner go to a shared lane, made by the first
// such call: where it cannot be allocated, that call is counted as lost, not dropped unseen.
TEST_CASE("a later call whose shared lane cannot be allocated is counted as lost") {
  using warmup::detail::series;
  series s;
  s.record(series::window, 1000);  // this thread's: the owner's lane
  std::thread([&s] {
    support::failing.plain = 1;
    s.record(series::window + 1, 2000);  // another thread's: the shared lane, which fails
    support::failing.plain = 0;
  }).join();
  const auto d = s.read();
  CHECK(d.lost == 1);
  CHECK(d.later_count == 1);
  std::thread([&s] { s.record(series::window + 2, 3000); }).join();  // allocations work again: counted
  const auto again = s.read();
  CHECK(again.lost == 1);
  CHECK(again.later_count == 2);
}

// A thread refused a shard asks again only once a shard has been given back since: not at every
// call (the threads of a site with all its shards held would each take the lock every call).
TEST_CASE("a thread refused a shard for want of memory asks again only once one is given back") {
  using warmup::detail::shard_slot;
  site s(op_kind::region, "memory.refused", 0);
  for (std::uint64_t i = 0; i < 100; ++i) s.end_call(s.begin_call(nullptr), 1000, false, 0, false, false);  // past the first calls
  const auto call = [&s](shard_slot& slot) { s.end_call(s.begin_call(&slot), 1000, false, 0, false, false); };
  // A shard taken and given back at its thread's end (one given back), then taken by a thread
  // that keeps it until told: the site has no spare.
  std::thread([&] {
    static thread_local shard_slot slot;
    call(slot);
  }).join();
  std::mutex m;
  std::condition_variable cv;
  int stage = 0;  // 1: the keeper holds its shard; 2: it may end
  std::thread keeper([&] {
    static thread_local shard_slot slot;
    call(slot);
    std::unique_lock<std::mutex> lock(m);
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return stage == 1; });
  }
  std::atomic<int> refused_then{-1}, asked_again{-1};
  std::thread asker([&] {
    static thread_local shard_slot slot;
    support::failing.aligned = 1;  // a shard is aligned to its cache line
    call(slot);  // no spare, and the new shard cannot be allocated: refused
    support::failing.aligned = 0;
    call(slot);  // memory again, but no shard given back since: not asked
    refused_then = slot.refused && slot.p == nullptr;
    {
      std::unique_lock<std::mutex> lock(m);
      stage = 2;
    }
    cv.notify_all();
    keeper.join();  // its shard given back at its end
    call(slot);
    asked_again = slot.p != nullptr;
  });
  asker.join();
  CHECK(refused_then == 1);
  CHECK(asked_again == 1);
}

TEST_CASE("a long name is counted where it lives") {
  site shortname(op_kind::region, "x", 0);
  site longname(op_kind::region, std::string(1000, 'n'), 1);
  CHECK(longname.bytes() - shortname.bytes() >= 1000);
}

TEST_CASE("one device measurement in flight holds one ring slot of 48 bytes at most") {
  // Beside it, two CUDA events (driver memory). Rings start at 32 slots a thread and device and
  // double up to 8192.
  CHECK(event_ring::slot_bytes <= 48);
  CHECK(event_ring::max_pairs * event_ring::slot_bytes <= 384 * 1024);
}

TEST_CASE("a pool's growth: calls that read it, calls that grew it, bytes grown, the first call's bytes") {
  warmup::detail::site* s = warmup::detail::find_site(op_kind::alloc, "memory.pool_growth");
  REQUIRE(s != nullptr);
  s->pool_reserved(0, 100, 400);   // the first call grew it by 300
  s->pool_reserved(1, 400, 400);   // no growth
  s->pool_reserved(2, 400, 350);   // shrank: not growth
  s->pool_reserved(3, 350, 1350);  // grew by 1000
  const warmup::report r = warmup::snapshot();
  const auto* site_report = r.find(op_kind::alloc, "memory.pool_growth");
  REQUIRE(site_report != nullptr);
  REQUIRE(site_report->pool);
  CHECK(site_report->pool->calls_read == 4);
  CHECK(site_report->pool->grew_calls == 2);
  CHECK(site_report->pool->grown == 1300);
  CHECK(site_report->pool->first_call == 300);
}

TEST_CASE("the timeline: the first calls, then every 2^k-th call; a reused entry's device time cleared") {
  warmup::detail::timeline t(4);
  for (std::uint64_t i = 0; i < 8; ++i) CHECK(t.entry_for(i) != nullptr);  // the first 4, then stride 1 to 2 x 4
  for (std::uint64_t i = 8; i < 16; ++i) CHECK((t.entry_for(i) != nullptr) == (i % 2 == 0));
  for (std::uint64_t i = 16; i < 32; ++i) CHECK((t.entry_for(i) != nullptr) == (i % 4 == 0));
  // The ring of 16 has taken 4 + 4 + 4 = 12 calls; the next four fill it, the fifth reuses the
  // first sampled entry, which must not keep the device time of the call it held.
  warmup::detail::timeline u(4);
  warmup::detail::timeline_entry* first = u.entry_for(4);
  REQUIRE(first != nullptr);
  first->device_start.store(5);
  first->device_ns.store(77);
  std::uint64_t index = 5, taken = 1;
  warmup::detail::timeline_entry* reused = nullptr;
  for (; taken <= warmup::detail::timeline::sampled; ++index)
    if (warmup::detail::timeline_entry* e = u.entry_for(index)) {
      ++taken;
      reused = e;
    }
  CHECK(reused == first);
  CHECK(first->device_start.load() == 0);
  CHECK(first->device_ns.load() == 0);
}

TEST_CASE("the timeline finds a sampled call by its index, and forgets everything on reset") {
  warmup::detail::timeline t(4);
  for (std::uint64_t i = 0; i < 12; ++i) warmup::detail::timeline_host(&t, i, 1000 + i, 10 + i);
  for (std::uint64_t i : {4u, 6u, 8u, 10u}) {  // sampled, past the first four
    INFO("call " << i);
    const warmup::detail::timeline_entry* e = t.find(i);
    REQUIRE(e != nullptr);
    CHECK(e->host_ns.load() == 10 + i);
    CHECK(t.holds(i));
  }
  CHECK_FALSE(t.holds(9));  // not sampled
  CHECK_FALSE(t.holds(12));  // not yet made
  t.find(2)->device_ns.store(77);
  t.reset();  // a forked child's: nothing of the parent's calls, device times included
  CHECK(t.read().empty());
  // One of the first calls again: its entry is the same one, and writing the host side alone
  // must leave it without a device time.
  warmup::detail::timeline_host(&t, 2, 5000, 50);
  const std::vector<warmup::detail::timeline_call> calls = t.read();
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].index == 2);
  CHECK(calls[0].device_start == 0);
  CHECK(calls[0].device_ns == 0);
}

TEST_CASE("calls recorded from several threads at once: the owner's lane and the shared lane add up exactly") {
  // The first thread to record a later call writes its own lane with plain stores; the others
  // share a lane of atomic read-modify-writes. The figures read back must be those of all calls.
  warmup::detail::series s;
  constexpr std::uint64_t threads = 4, per_thread = 50'000;
  std::vector<std::uint64_t> values;
  for (std::uint64_t i = 0; i < threads * per_thread; ++i) values.push_back(1000 + (i * 7919) % 5000);
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> pool;
  for (std::uint64_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::uint64_t k = 0; k < per_thread; ++k) {
        const std::uint64_t i = next.fetch_add(1);
        s.record(i, values[i]);
      }
    });
  for (auto& th : pool) th.join();
  const warmup::detail::series_data d = s.read();
  CHECK(d.first.size() == warmup::detail::series::window);
  CHECK(d.later_count == threads * per_thread - warmup::detail::series::window);
  std::uint64_t sum = 0, lo = ~std::uint64_t{0}, hi = 0;
  for (std::size_t i = warmup::detail::series::window; i < values.size(); ++i) {
    sum += values[i];
    lo = std::min(lo, values[i]);
    hi = std::max(hi, values[i]);
  }
  CHECK(d.later_sum == sum);
  CHECK(d.later_min == lo);
  CHECK(d.later_max == hi);
  std::uint64_t bucketed = 0;
  for (std::size_t i = 0; i < d.later.size(); ++i) {
    bucketed += d.later[i].count;
    if (i != 0) CHECK(d.later[i - 1].lowest < d.later[i].lowest);  // merged: increasing, no repeats
  }
  CHECK(bucketed == d.later_count);
  CHECK(d.lost == 0);
}

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "warmup/detail/process.hpp"

// A process whose anchor (detail/process.hpp) could not be allocated as the library started:
// anchor() is nullptr, and every copy keeps state of its own. Played by a child started from this
// program with WARMUPTEST_ANCHOR_OUT_OF_MEMORY set, where the anchor is looked for first, before
// any other static initialisation of the program (priority 101), the library's start included,
// and its allocation fails.
namespace {
__attribute__((constructor(101))) void anchor_allocation_fails_where_asked() {
  if (std::getenv("WARMUPTEST_ANCHOR_OUT_OF_MEMORY") == nullptr) return;
  support::failing.plain = 1;
  (void)warmup::detail::anchor();
}
}  // namespace

// Run by the case below only, in its child (it exits with 42 where every check held).
TEST_CASE("child of the anchor case: the library starts and measures without an anchor", "[.][anchor_out_of_memory]") {
  if (std::getenv("WARMUPTEST_ANCHOR_OUT_OF_MEMORY") == nullptr) return;
  REQUIRE(warmup::detail::anchor() == nullptr);
  REQUIRE(support::failing.plain == 0);  // the failure was the anchor's
  for (int i = 0; i < 3; ++i) warmup::region_scope s{"memory.anchorless"};
  const warmup::report r = warmup::snapshot();
  const auto* s = r.find(op_kind::region, "memory.anchorless");
  REQUIRE(s != nullptr);
  REQUIRE(s->calls == 3);
  ::_exit(42);
}

TEST_CASE("a process whose anchor could not be allocated at start still measures, with state of its own") {
  char exe[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("WARMUPTEST_ANCHOR_OUT_OF_MEMORY", "1", 1);
    ::unsetenv("WARMUPTEST_REACH");  // tools/mutate: the child's case is no case of this run's
    ::execl(exe, exe, "child of the anchor case: the library starts and measures without an anchor",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("the child's wait status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 42);
}

// The spin that guards a site's shard list: held, its flag is up, and a second holder waits for
// the first to let go.
TEST_CASE("a site's shard lock raises its flag while held and lowers it after") {
  std::atomic<bool> busy{false};
  {
    const warmup::detail::shard_lock held(busy);
    CHECK(busy.load());
  }
  CHECK_FALSE(busy.load());
}
