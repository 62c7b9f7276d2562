// The tool's bookkeeping (ranges.hpp), and the one file of the tool that compiles warmup's
// runtime: the tool's sites join the program's, if it measures too, in one report.
#include "ranges.hpp"

#include <warmup/runtime.hpp>
#include <warmup/detail/record/host_call.hpp>

#include <cstddef>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <unordered_map>

namespace warmup_nvtx {
namespace {

namespace wd = cuda_warmup::detail;
using cuda_warmup::op_kind;

/// Start/end ranges open at once, at most: a program that starts ranges it never ends is
/// bounded as sites are.
constexpr std::size_t max_open_started = std::size_t{1} << 20;

/// The site of ranges that carry no message.
constexpr std::string_view no_message = "(no message)";

/// What went wrong, counted for the notice at exit.
struct trouble {
  std::atomic<std::uint64_t> bad_pops{0}, bad_ends{0}, dropped_starts{0};
  std::atomic<std::uint64_t> open_pushes{0};  ///< pushed, not popped (a thread's ended ones stay counted)
  std::mutex m;
  std::string first_unclosed;  ///< a range that was never closed, to name in the notice
};
trouble& troubles() {
  static trouble* t = new trouble;  // never destroyed: ranges end during static destruction
  return *t;
}

/// A push/pop range open on a thread.
struct frame {
  const domain* d;
  wd::host_call call;
};

/// The calling thread's open ranges and its name buffer. A thread that ends inside ranges
/// leaves them open: they are counted, never ended (their time is unknown).
struct thread_ranges {
  std::vector<frame> frames;
  std::string name;
  ~thread_ranges() {
    if (frames.empty()) return;
    trouble& t = troubles();
    try {
      std::lock_guard<std::mutex> lock(t.m);
      if (t.first_unclosed.empty() && frames.front().call.s != nullptr) t.first_unclosed = frames.front().call.s->name;
    } catch (...) {
    }
  }
};
thread_local thread_ranges here;

struct started_range {
  const domain* d;
  wd::host_call call;
  nvtxRangeId_t next;
};
struct started_table {
  std::mutex m;
  std::unordered_map<nvtxRangeId_t, started_range> open;
  std::atomic<nvtxRangeId_t> last{0};
};
started_table& started() {
  static started_table* t = new started_table;
  return *t;
}

struct handles {
  std::mutex m;
  std::deque<domain> domains;
  std::deque<registered> strings;
};
handles& made() {
  static handles* h = new handles;
  return *h;
}

/// The site of a range's message in `d`, or none where the domain is not counted or the library
/// is not measuring. `name` is the thread's buffer.
wd::named_site* site_of(const domain& d, const message& m, std::string& name) noexcept {
  if (!d.counted || !wd::measuring.load(std::memory_order_relaxed)) return nullptr;
  if (m.reg != nullptr) return wd::lookup(op_kind::region, m.reg->site);
  // No text: a null message, a registered handle NVTX never gave, attributes too small to hold one.
  if (m.text.empty()) return wd::lookup(op_kind::region, no_message);
  try {
    if (d.prefix.empty() && m.text.find(", ") == std::string_view::npos) return wd::lookup(op_kind::region, m.text);
    site_name(name, d.prefix, m.text, config().varying);
    return wd::lookup(op_kind::region, name);
  } catch (...) {
    return nullptr;  // out of memory: the range goes unmeasured, the program on
  }
}

}  // namespace

settings& config() {
  static settings* s = [] {
    auto* c = new settings;
    const char* d = std::getenv("WARMUP_NVTX_DOMAINS");
    c->domains = d != nullptr ? d : "all";
    const char* v = std::getenv("WARMUP_NVTX_VARYING");
    c->varying = comma_list(v != nullptr ? std::string_view{v} : default_varying);
    return c;
  }();
  return *s;
}

domain& default_domain() {
  static domain* d = [] {
    auto* x = new domain;
    x->counted = domain_counted(config().domains, "", true);
    return x;
  }();
  return *d;
}

domain& domain_of(nvtxDomainHandle_t h) noexcept {
  auto* d = reinterpret_cast<domain*>(h);
  return d != nullptr && d->magic == domain::tag ? *d : default_domain();
}

domain* make_domain(std::string name) {
  handles& h = made();
  std::lock_guard<std::mutex> lock(h.m);
  domain& d = h.domains.emplace_back();
  d.counted = domain_counted(config().domains, name, false);
  d.prefix = domain_prefix(name);
  d.name = std::move(name);
  return &d;
}

registered* make_registered(domain& d, std::string text) {
  handles& h = made();
  std::lock_guard<std::mutex> lock(h.m);
  registered& r = h.strings.emplace_back();
  site_name(r.site, d.prefix, text, config().varying);
  r.text = std::move(text);
  return &r;
}

const registered* registered_of(nvtxStringHandle_t h) noexcept {
  const auto* r = reinterpret_cast<const registered*>(h);
  return r != nullptr && r->magic == registered::tag ? r : nullptr;
}

message message_of(const nvtxEventAttributes_t* a, std::string& buffer) noexcept {
  message m;
  // The message lies after version, size, category, colour and payload: an older or smaller
  // structure than that holds none.
  if (a == nullptr || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message)) return m;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      if (a->message.ascii != nullptr) m.text = a->message.ascii;
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      try {
        buffer.clear();
        append_utf8(buffer, a->message.unicode);
        m.text = buffer;
      } catch (...) {
      }
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      m.reg = registered_of(a->message.registered);
      break;
    default: break;
  }
  return m;
}

int push(domain& d, const message& m) noexcept {
  thread_ranges& t = here;
  int depth = 0;
  for (const frame& f : t.frames) depth += f.d == &d;
  try {
    t.frames.push_back({&d, {}});
  } catch (...) {
    return depth;  // out of memory: this range is not kept, and its pop will find none
  }
  troubles().open_pushes.fetch_add(1, std::memory_order_relaxed);
  // The buffer used for a wide message belongs to message_of's caller: the name is built apart.
  if (wd::named_site* n = site_of(d, m, t.name)) t.frames.back().call.begin(n->s, &n->slot);
  return depth;
}

int pop(domain& d) noexcept {
  thread_ranges& t = here;
  for (std::size_t i = t.frames.size(); i-- > 0;) {
    if (t.frames[i].d != &d) continue;
    t.frames[i].call.end();  // first: what follows is not the range's time
    int depth = 0;
    for (std::size_t j = 0; j < i; ++j) depth += t.frames[j].d == &d;
    t.frames.erase(t.frames.begin() + static_cast<std::ptrdiff_t>(i));
    troubles().open_pushes.fetch_sub(1, std::memory_order_relaxed);
    return depth;
  }
  if (troubles().bad_pops.fetch_add(1, std::memory_order_relaxed) == 0 &&
      !wd::notice_board().raised(wd::notice_kind::nvtx_range)) {
    try {
      wd::notice_board().raise(wd::notice_kind::nvtx_range,
                               "an NVTX pop with no range pushed on its thread in " +
                                   (d.name.empty() ? std::string("the default domain") : "domain '" + wd::printable(d.name, 80) + "'") +
                                   ": ignored (the pops with no push are counted at exit)");
    } catch (...) {
    }
  }
  return -1;
}

nvtxRangeId_t start(domain& d, const message& m, nvtxRangeId_t next_id) noexcept {
  started_table& s = started();
  const nvtxRangeId_t id = s.last.fetch_add(1, std::memory_order_relaxed) + 1;
  thread_ranges& t = here;
  try {
    std::unique_lock<std::mutex> lock(s.m);
    if (s.open.size() >= max_open_started) {
      lock.unlock();
      troubles().dropped_starts.fetch_add(1, std::memory_order_relaxed);
      return id;
    }
    s.open.emplace(id, started_range{&d, {}, next_id});
    lock.unlock();
    // With no shard slot: the range may end on another thread. Begun after the entry is made, so
    // that making it is not the range's time; only a program ending ids it never got could end
    // the entry meanwhile, and then the call is dropped.
    if (wd::named_site* n = site_of(d, m, t.name)) {
      wd::host_call c;
      c.begin(n->s, nullptr);
      std::lock_guard<std::mutex> again(s.m);
      if (const auto it = s.open.find(id); it != s.open.end()) it->second.call = c;
    }
  } catch (...) {
  }
  return id;
}

nvtxRangeId_t end(nvtxRangeId_t id) noexcept {
  started_table& s = started();
  wd::host_call c;
  nvtxRangeId_t next = 0;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(s.m);
    const auto it = s.open.find(id);
    if (it != s.open.end()) {
      c = it->second.call;
      next = it->second.next;
      s.open.erase(it);
      found = true;
    }
  }
  if (found) {
    c.end();
    return next;
  }
  if (troubles().bad_ends.fetch_add(1, std::memory_order_relaxed) == 0) {
    try {
      wd::notice_board().raise(wd::notice_kind::nvtx_range,
                               "an NVTX range end with an id never started, or ended before: ignored "
                               "(such ends are counted at exit)");
    } catch (...) {
    }
  }
  return 0;
}

void say_what_was_left() noexcept {
  trouble& t = troubles();
  std::uint64_t open_started = 0;
  std::string a_started;
  {
    started_table& s = started();
    std::lock_guard<std::mutex> lock(s.m);
    open_started = s.open.size();
    for (const auto& [id, r] : s.open)
      if (r.call.s != nullptr) {
        a_started = r.call.s->name;
        break;
      }
  }
  const std::uint64_t pushes = t.open_pushes.load(), bad_pops = t.bad_pops.load(), bad_ends = t.bad_ends.load(),
                      dropped = t.dropped_starts.load();
  if (pushes + open_started + bad_pops + bad_ends + dropped == 0) return;
  try {
    std::string name;
    {
      std::lock_guard<std::mutex> lock(t.m);
      name = t.first_unclosed;
    }
    if (name.empty()) name = a_started;
    std::string m = "NVTX ranges the program left unbalanced, none of them counted as calls: ";
    m += std::to_string(pushes) + " pushed and never popped, " + std::to_string(open_started) +
         " started and never ended";
    if (!name.empty()) m += " (one: '" + wd::printable(name, 80) + "')";
    m += ", " + std::to_string(bad_pops) + " pops with no push, " + std::to_string(bad_ends) + " ends of no open range";
    if (dropped != 0) m += ", " + std::to_string(dropped) + " starts past the " + std::to_string(max_open_started) + " open at once";
    wd::notice_board().raise(wd::notice_kind::nvtx_ranges_left, m);
  } catch (...) {
  }
}

void after_fork_in_child() noexcept {
  // The child starts clean (the library resets its sites): the parent's open ranges are no
  // calls of the child's, and its other threads' locks are gone with them.
  new (&started()) started_table;
  new (&made().m) std::mutex;
  new (&troubles()) trouble;
  here.frames.clear();
}

}  // namespace warmup_nvtx
