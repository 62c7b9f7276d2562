// fork(): the child starts clean (no parent's calls, its own counts), the parent keeps its
// own, and a scope open across the fork is the parent's alone. The child's checks come back as
// bits of its exit status.
#include "catch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "warmup/detail/process.hpp"  // the anchor, which a light file does not otherwise see
#include "warmup/profile.hpp"
#include "warmup/detail/record/host_call.hpp"
#include "warmup/detail/runtime/fork_locks.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/runtime/compiled_once.hpp"  // report_goes_beside, say_what_is_apart

namespace {
void counted_step() { WARMUP_SCOPE("fork.static"); }

// Waits for the child and returns its exit status, or -1 if it did not exit normally.
int child_status(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
}  // namespace

TEST_CASE("a forked child starts with a clean report; the parent keeps its calls") {
  for (int i = 0; i < 5; ++i) warmup::region_scope s{"fork.parent"};
  for (int i = 0; i < 4; ++i) counted_step();
  for (const std::size_t n : {1000u, 3000u}) warmup::h2d_scope c{"fork.copy", n};  // sizes that vary
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int bad = 0;
    const warmup::report before = warmup::snapshot();
    const auto* p = before.find(warmup::op_kind::region, "fork.parent");
    if (p != nullptr && (p->calls != 0 || p->host.calls != 0)) bad |= 1;  // the parent's calls are not the child's
    for (int i = 0; i < 3; ++i) warmup::region_scope s{"fork.child"};
    for (int i = 0; i < 2; ++i) counted_step();  // a WARMUP_SCOPE static made by the parent still works
    const warmup::report after = warmup::snapshot();
    const auto* c = after.find(warmup::op_kind::region, "fork.child");
    if (c == nullptr || c->calls != 3 || c->host.calls != 3 || c->host.first.count() <= 0) bad |= 2;
    const auto* st = after.find(warmup::op_kind::region, "fork.static");
    if (st == nullptr || st->calls != 2 || st->host.calls != 2) bad |= 4;
    for (int i = 0; i < 2; ++i) warmup::h2d_scope c{"fork.copy", std::size_t{500}};  // the child's: one size
    const warmup::report copies = warmup::snapshot();
    const auto* cp = copies.find(warmup::op_kind::h2d, "fork.copy");
    if (cp == nullptr || !cp->bytes || cp->bytes->total != 1000 || cp->bytes->sizes_vary) bad |= 8;
    _exit(bad);
  }
  CHECK(child_status(pid) == 0);
  const warmup::report r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "fork.parent") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "fork.parent")->calls == 5);
  CHECK(r.find(warmup::op_kind::region, "fork.static")->calls == 4);
  CHECK(r.find(warmup::op_kind::region, "fork.child") == nullptr);
}

TEST_CASE("a scope open across fork is recorded by the parent only") {
  pid_t pid = -1;
  {
    warmup::region_scope open{"fork.open"};
    pid = fork();
    REQUIRE(pid >= 0);
  }
  if (pid == 0) {
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::region, "fork.open");
    _exit(s != nullptr && s->calls == 0 && s->host.calls == 0 ? 0 : 1);
  }
  CHECK(child_status(pid) == 0);
  const warmup::report r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "fork.open") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "fork.open")->calls == 1);
  CHECK(r.find(warmup::op_kind::region, "fork.open")->host.calls == 1);
}

TEST_CASE("a forked child's byte totals start from zero, even where the parent's passed 2^64") {
  const std::size_t half = std::size_t{1} << 63;
  for (int i = 0; i < 2; ++i) warmup::h2d_scope c{"fork.saturated", half};  // 2^64: past the total's range
  const warmup::report parent = warmup::snapshot();
  REQUIRE(parent.find(warmup::op_kind::h2d, "fork.saturated")->bytes->total_saturated);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    { warmup::h2d_scope c{"fork.saturated", std::size_t{500}}; }
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::h2d, "fork.saturated");
    _exit(s != nullptr && s->bytes && !s->bytes->total_saturated && s->bytes->total == 500 ? 0 : 1);
  }
  CHECK(child_status(pid) == 0);
}

// A tool's call (an NVTX range: detail::host_call) open across the fork, as a scope above.
TEST_CASE("a tool's call open across fork is recorded by the parent only") {
  warmup::detail::named_site* n = warmup::detail::lookup(warmup::op_kind::region, "fork.host_call");
  REQUIRE(n != nullptr);
  warmup::detail::host_call call;
  call.begin(n->s, nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  call.end();
  if (pid == 0) {
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::region, "fork.host_call");
    _exit(s != nullptr && s->calls == 0 && s->host.calls == 0 ? 0 : 1);
  }
  CHECK(child_status(pid) == 0);
  const warmup::report r = warmup::snapshot();
  REQUIRE(r.find(warmup::op_kind::region, "fork.host_call") != nullptr);
  CHECK(r.find(warmup::op_kind::region, "fork.host_call")->host.calls == 1);
}

// A child of a process that had initialised CUDA makes no CUDA call: the driver is unusable
// there. The parent's state is made to read "initialised" (no GPU here), then put back.
TEST_CASE("a child forked after CUDA was initialised turns device timing off without a CUDA call, saying why") {
  warmup::detail::cuda_state& st = warmup::detail::cuda();
  const int was = st.runtime.load();
  st.runtime.store(warmup::detail::cuda_state::available);
  const pid_t pid = fork();
  if (pid != 0) st.runtime.store(was);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int bad = 0;
    if (warmup::detail::runtime_available()) bad |= 1;
    if (st.why_unavailable.find("forked from one that had initialised CUDA") == std::string::npos) bad |= 2;
    _exit(bad);
  }
  CHECK(child_status(pid) == 0);
}

// The locks behind lock() functions (sites, rings, cause records, notices, the clock) were in
// the list before; these are the ones a fork could leave locked in the child.
TEST_CASE("every lock the library holds is taken around fork") {
  using namespace warmup::detail;
  std::vector<std::pair<const char*, std::mutex*>> locks = {
      {"process start-up (once().m)", &once().m},
      {"the device description", &device_cache().m},
      {"the CUDA probe", &cuda().probe},
      {"the copies' list", &anchor()->copies_mutex},
      {"the sampler's signal claim", &sampler_state().claim},
      {"the sampler's buffers", &sampler_state().m},
      {"this copy's start-up", &start_mutex()},
      {"CUPTI's state", &cupti().m},
      {"CUPTI's pending records", &cupti().pending_m},
  };
  take_fork_locks<copy_fork_locks, std::size(copy_fork_locks)>();
  before_fork();
  std::vector<std::string> free_during_fork;
  std::thread([&] {
    for (auto& [what, m] : locks)
      if (m->try_lock()) {
        free_during_fork.emplace_back(what);
        m->unlock();
      }
  }).join();
  release_fork_locks();
  release_fork_locks<copy_fork_locks, std::size(copy_fork_locks)>();
  CHECK(free_during_fork.empty());
  for (const std::string& w : free_during_fork) UNSCOPED_INFO("not held around fork: " << w);
}

TEST_CASE("a copy names the file it was loaded from: this program, by its path") {
  char exe[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  const std::string file = warmup::detail::this_copy_file();
  const auto base = [](const std::string& p) { return p.substr(p.find_last_of('/') + 1); };
  CHECK(base(file) == base(exe));  // dladdr names the program as it was started
}

// The locks a lock() function takes (the sites, the read-back rings, the cause records, the
// notices, the clock's pairs): held around fork as well. A thread that tries each while the
// handlers hold them gets none before they are released.
TEST_CASE("the locks behind lock() functions are held around fork too") {
  using namespace warmup::detail;
  struct lockable {
    const char* what;
    void (*lock)();
    void (*unlock)();
  };
  static const lockable list[] = {
      {"the sites", [] { sites().lock(); }, [] { sites().unlock(); }},
      {"the read-back rings", [] { rings().lock(); }, [] { rings().unlock(); }},
      {"the cause records", [] { cause_records().lock(); }, [] { cause_records().unlock(); }},
      {"the notices", [] { notice_board().lock(); }, [] { notice_board().unlock(); }},
      {"the clock's pairs", [] { once().time.lock(); }, [] { once().time.unlock(); }},
  };
  constexpr std::size_t n = std::size(list);
  take_fork_locks<copy_fork_locks, std::size(copy_fork_locks)>();
  before_fork();
  std::atomic<bool> got[n] = {};
  std::vector<std::thread> tries;
  for (std::size_t i = 0; i < n; ++i)
    tries.emplace_back([&, i] {
      list[i].lock();
      got[i] = true;
      list[i].unlock();
    });
  // A lock that is not held is taken at once; 200 ms is the margin for a loaded machine. One
  // that is held is never taken before the release below, however long this waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<std::string> free_during_fork;
  for (std::size_t i = 0; i < n; ++i)
    if (got[i]) free_during_fork.emplace_back(list[i].what);
  release_fork_locks();
  release_fork_locks<copy_fork_locks, std::size(copy_fork_locks)>();
  for (auto& t : tries) t.join();
  CHECK(free_during_fork.empty());
  for (const std::string& w : free_during_fork) UNSCOPED_INFO("not held around fork: " << w);
  for (std::size_t i = 0; i < n; ++i) CHECK(got[i]);  // each taken once released
}

// Copies of the library that no symbol joins find the process's anchor through the environment
// (detail/process.hpp). A program started from this one inherits the variable: its image's
// random bytes differ, and it must not follow the address. A forked child, whose memory is a
// copy, follows it.
TEST_CASE("the anchor named in the environment is followed by this program image and its forked children only") {
  namespace d = warmup::detail;
  d::process_anchor* const mine = d::anchor();
  REQUIRE(mine != nullptr);
  const char* name = "CUDA_WARMUP_ANCHOR_V1";
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);  // published by the copy that made the anchor, at start-up
  const std::string published = value;
  CHECK(published == d::publish_text(mine).text);
  CHECK(d::published_anchor() == mine);

  std::string other_image = published;  // the same address, written by another program image
  other_image[0] = other_image[0] == '0' ? '1' : '0';
  REQUIRE(setenv(name, other_image.c_str(), 1) == 0);
  CHECK(d::published_anchor() == nullptr);

  static d::process_anchor not_an_anchor;  // this image's bytes, an address with no anchor's magic
  not_an_anchor.magic = 0;
  REQUIRE(setenv(name, d::publish_text(&not_an_anchor).text, 1) == 0);
  CHECK(d::published_anchor() == nullptr);

  REQUIRE(setenv(name, published.c_str(), 1) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(d::published_anchor() == mine ? 0 : 1);
  CHECK(child_status(pid) == 0);
}

// A copy that no symbol joins (a plugin built hidden, loaded RTLD_LOCAL) starts with its own
// variable empty: it takes the anchor named in the environment, not one of its own. Played here
// by emptying this copy's variable for one lookup.
TEST_CASE("a copy whose variable is empty takes the anchor the environment names") {
  namespace d = warmup::detail;
  d::process_anchor* const mine = d::anchor();
  REQUIRE(mine != nullptr);
  REQUIRE(d::published_anchor() == mine);
  d::process_anchor* const saved = __atomic_exchange_n(d::anchor_symbol(), nullptr, __ATOMIC_ACQ_REL);
  d::process_anchor* const found = d::find_anchor();
  d::process_anchor* const now = __atomic_exchange_n(d::anchor_symbol(), saved, __ATOMIC_ACQ_REL);
  CHECK(found == mine);
  CHECK(now == mine);  // and this copy's variable now holds it, for copies that find the variable
  CHECK(saved == mine);
  CHECK(d::kept_apart() == nullptr);
}

// A copy kept apart (another release made the anchor) writes its report beside the process's,
// tagged with the pid, never over it; the process's report names the copies kept apart.
TEST_CASE("a copy kept apart writes beside the process's report, which names it") {
  namespace d = warmup::detail;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // In the child: it is forked (so writes beside anyway), so the parent's state is judged
    // before; here only the notice, which a child's board says again.
    const d::published_text image = d::publish_text(nullptr);
    // Each copy's file on a line of its own; an empty line names none.
    const std::string value = std::string(image.text, 33) + "/opt/other/libplugin.so\n\n/opt/third/libp.so\n";
    if (::setenv(d::apart_variable, value.c_str(), 1) != 0) _exit(2);
    d::say_what_is_apart();
    for (const std::string& n : d::notice_board().all())
      if (n.find("a second copy of warmup") != std::string::npos &&
          n.find("(/opt/other/libplugin.so, /opt/third/libp.so)") != std::string::npos)
        _exit(0);
    _exit(1);
  }
  CHECK(child_status(pid) == 0);
  REQUIRE(d::kept_apart() == nullptr);
  CHECK_FALSE(d::report_goes_beside());
  d::kept_apart() = "warmup test: another release made the anchor";
  const bool beside = d::report_goes_beside();
  d::kept_apart() = nullptr;
  CHECK(beside);
}

TEST_CASE("a forked child forgets the parent's notices: each is said again, once, in the child") {
  using warmup::detail::notice_board;
  using warmup::detail::notice_kind;
  (void)notice_board().raise(notice_kind::rank, "warmup test: said before fork");
  REQUIRE(notice_board().raised(notice_kind::rank));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const bool forgot = !notice_board().raised(notice_kind::rank);
    const bool again = notice_board().raise(notice_kind::rank, "warmup test: said again in the child");
    ::_exit(forgot && again ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(notice_board().raised(notice_kind::rank));  // the parent's stands
}

// The parent's CUPTI is not the child's: a child collects no cause records, and its report says
// so, whatever the parent was doing when it forked. Played by marking the parent's store as
// collecting for the fork only.
TEST_CASE("a forked child collects no cause records, even where its parent did") {
  warmup::detail::cause_store& store = warmup::detail::cause_records();
  const bool was = store.collecting.load();
  store.collecting.store(true);  // as where CUPTI runs in the parent
  const pid_t pid = fork();
  if (pid != 0) store.collecting.store(was);  // the parent's own again, at once
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int bad = 0;
    if (warmup::attribution_enabled()) bad |= 1;
    if (store.collecting.load()) bad |= 2;
    if (store.flush.load() != nullptr) bad |= 4;
    if (warmup::snapshot().attribution_source.rfind("off: a forked child", 0) != 0) bad |= 8;
    _exit(bad);
  }
  CHECK(child_status(pid) == 0);
  CHECK(warmup::attribution_enabled() == was);
}

// The parent's cold windows are not the child's: a synchronisation record (kept only where it
// joins a cold window) that falls in one of the parent's windows is not kept in the child.
TEST_CASE("a forked child forgets its parent's cold windows") {
  namespace d = warmup::detail;
  d::cause_store& store = d::cause_records();
  const d::cold_window parent_window{1'000, 2'000, 7};
  store.close_window(parent_window, false);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    store.add({warmup::cause::sync_wait, 1'200, 1'800, 7});
    _exit(store.overlapping(parent_window).empty() ? 0 : 1);
  }
  CHECK(child_status(pid) == 0);
  store.add({warmup::cause::sync_wait, 1'200, 1'800, 7});  // the parent, which has the window, keeps it
  CHECK(store.overlapping(parent_window).size() == 1);
}

// The child's one thread holds no shard after fork (the sites made every shard spare): the
// shards it takes there are the only ones it gives back.
TEST_CASE("a forked child's thread holds none of the shards its parent's thread held") {
  namespace d = warmup::detail;
  for (int i = 0; i < 200; ++i) warmup::region_scope s{"fork.shards"};  // past its first calls: a shard
  REQUIRE_FALSE(d::my_names().held.empty());
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int bad = d::my_names().held.empty() ? 0 : 1;
    for (int i = 0; i < 200; ++i) warmup::region_scope s{"fork.shards"};  // takes one of its own
    if (d::my_names().held.size() != 1) bad |= 2;
    const warmup::report r = warmup::snapshot();
    const auto* s = r.find(warmup::op_kind::region, "fork.shards");
    if (s == nullptr || s->calls != 200) bad |= 4;
    _exit(bad);
  }
  CHECK(child_status(pid) == 0);
}

// Each copy of the library joins the process's list of copies as it starts: a thread inside this
// copy's locked or allocating sections is then seen from the list (what the report at exit asks
// before it takes a lock).
TEST_CASE("this copy is in the process's list of copies: its busy sections are seen there") {
  namespace d = warmup::detail;
  d::process_anchor* const a = d::anchor();
  REQUIRE(a != nullptr);
  bool listed = false;
  for (const d::copy_entry& c : a->copies) listed = listed || c.measuring == &d::measuring;
  CHECK(listed);
  CHECK_FALSE(d::any_copy_busy());
  {
    const d::busy_section inside;
    CHECK(d::any_copy_busy());
  }
  CHECK_FALSE(d::any_copy_busy());
}

// The notices a report carries are those of its own process: a forked child's report has none of
// the texts its parent was told before the fork (the child says them again, if it meets them).
TEST_CASE("a forked child's report carries none of its parent's notices") {
  using warmup::detail::notice_board;
  using warmup::detail::notice_kind;
  const auto ours = [](const std::vector<std::string>& texts) {
    int n = 0;
    for (const std::string& t : texts) n += t.rfind("warmup test: ", 0) == 0 ? 1 : 0;
    return n;
  };
  (void)notice_board().raise(notice_kind::rank, "warmup test: said before fork");
  REQUIRE(ours(warmup::snapshot().notices) > 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int bad = 0;
    if (ours(notice_board().all()) != 0) bad |= 1;
    if (ours(warmup::snapshot().notices) != 0) bad |= 2;
    _exit(bad);
  }
  CHECK(child_status(pid) == 0);
  CHECK(ours(warmup::snapshot().notices) > 0);  // the parent's stand
}

#include <dlfcn.h>

#include <cstdio>

#include "warmup/detail/analysis/cpu_sampler.hpp"

// The sampler pins the copy holding its handler with a dlopen that loads nothing (RTLD_NOLOAD):
// a program's own dlerror() finds no error of the library's after it, even where that copy is
// the program, which dlopen cannot load. In a child: the handler stays for its process.
TEST_CASE("taking the sample signal leaves the program's dlerror() clear") {
  namespace d = warmup::detail;
  if (!d::cpu_sampling_supported) return;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    (void)::dlerror();  // whatever was there before
    if (d::claim_signal() != d::refusal::none || !d::holds_signal()) _exit(3);
    const char* e = ::dlerror();
    if (e != nullptr) std::fprintf(stderr, "dlerror() after the claim: %s\n", e);
    _exit(e == nullptr ? 0 : 1);
  }
  const int status = child_status(pid);
  if (status == 3) WARN("the child could not take SIGURG: nothing to check");
  CHECK((status == 0 || status == 3));
}
