// The tool's bookkeeping (ranges.hpp), and the one file of the tool that compiles warmup's
// runtime: the tool's sites join the program's, if it measures too, in one report.
#include "ranges.hpp"

#include "device_time.hpp"
#include "known_name.hpp"
#include "late_ranges.hpp"
#include "run_status.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <warmup/runtime.hpp>
#include <warmup/detail/record/host_call.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <cstring>
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
constexpr std::size_t max_open_started = std::size_t{1} << 16;

/// The site of ranges that carry no message.
constexpr std::string_view no_message = "(no message)";

/// What went wrong, counted for the notice at exit (rare: atomics).
struct trouble {
  std::atomic<std::uint64_t> bad_pops{0}, bad_ends{0}, dropped_starts{0}, deep_pushes{0};
  std::atomic<bool> measured{false};  ///< a range was given a site (set where a message is first looked up)
};
trouble& troubles() {
  static trouble* t = new trouble;  // never destroyed: ranges end during static destruction
  return *t;
}

/// Push/pop ranges a thread keeps open at once, at most: a program that pushes and never pops
/// is bounded. Pushes beyond are counted, not measured; the pops that follow end them first.
constexpr std::size_t max_frames = std::size_t{1} << 16;

/// A push/pop range open on a thread, and its depth in its domain (NVTX's return value), kept so
/// that a push and a pop look no further than the latest range of their domain.
struct frame {
  const domain* d;
  int depth;
  wd::host_call call;
  std::uint64_t serial = 0;  ///< its device-time serial (device_time.hpp); 0 where not device-timed
  std::uint64_t parent = 0;  ///< the serial of the device-timed range it nests in, if any
};

struct thread_ranges;

/// The threads that pushed ranges, for the count at exit, and what ended threads left open.
struct pushing_threads {
  std::mutex m;
  std::vector<thread_ranges*> live;
  std::uint64_t left_by_ended = 0;
  std::uint64_t left_out_by_ended = 0;  ///< ranges WARMUP_NVTX_DOMAINS left out, of threads that ended
  std::string first_unclosed;  ///< a range that was never closed, to name in the notice
};
pushing_threads& pushers() {
  static pushing_threads* p = new pushing_threads;
  return *p;
}

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
  /// site's name (after the domain's prefix) are kept here.
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

  void list() noexcept {
    try {
      pushing_threads& p = pushers();
      std::lock_guard<std::mutex> lock(p.m);
      p.live.push_back(this);
      listed = true;
    } catch (...) {
    }
  }
  ~thread_ranges() {
    if (!listed) return;
    try {
      pushing_threads& p = pushers();
      std::lock_guard<std::mutex> lock(p.m);
      for (auto& t : p.live)
        if (t == this) {
          t = p.live.back();
          p.live.pop_back();
          break;
        }
      p.left_by_ended += frames.size() + beyond;
      p.left_out_by_ended += left_out.load(std::memory_order_relaxed);
      if (p.first_unclosed.empty() && !frames.empty() && frames.front().call.s != nullptr)
        p.first_unclosed = frames.front().call.s->name;
    } catch (...) {
    }
  }
};
/// The calling thread's ranges live behind one pointer per thread, made at the thread's first
/// range and freed, when the thread ends, by a key's destructor (the main thread's stays: exit
/// reads it). The pointer is libwarmup_nvtx_thread.so's static TLS slot where that library
/// loaded (one load from the thread pointer; thread_slot.cpp says why), else a thread_local here.
thread_local thread_ranges* here_fallback = nullptr;
/// The slot's offset from the thread pointer; 0 until load_thread_slot() found it (never a static
/// TLS block's: x86-64's lie below the thread pointer, AArch64's past its thread control block).
std::ptrdiff_t slot_offset = 0;

#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer) && (defined(__x86_64__) || defined(__aarch64__))
#define WARMUP_NVTX_THREAD_POINTER 1
#endif
#endif

inline thread_ranges*& here_ptr() noexcept {
#ifdef WARMUP_NVTX_THREAD_POINTER
  if (__builtin_expect(slot_offset != 0, 1))
    return *reinterpret_cast<thread_ranges**>(static_cast<char*>(__builtin_thread_pointer()) + slot_offset);
#endif
  return here_fallback;
}

/// Loads the slot library from the tool's own folder, once, before any range: a static TLS
/// block is at one offset from every thread's pointer, those running now included.
void load_thread_slot() noexcept {
#ifdef WARMUP_NVTX_THREAD_POINTER
  try {
    std::string path = wd::this_copy_file();  // the tool's own file: this copy of the runtime is its
    path.erase(path.find_last_of('/') + 1);  // npos + 1 == 0: a bare name, its folder the search path's
    path += "libwarmup_nvtx_thread.so";
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return;  // kept open for the process: every thread reads the slot
    if (auto* offset = reinterpret_cast<long (*)()>(dlsym(h, "warmup_nvtx_thread_offset"))) slot_offset = offset();
  } catch (...) {
  }
#endif
}

void end_thread(void* p) {
  here_ptr() = nullptr;
  delete static_cast<thread_ranges*>(p);
}

struct ranges_key {
  pthread_key_t key{};
  bool made = pthread_key_create(&key, &end_thread) == 0;
};
ranges_key& key_of_ranges() {
  static ranges_key k;
  return k;
}
/// Set before the tool's handlers are installed (prepare()): the first range of a thread reads it.
const ranges_key* the_key = nullptr;

[[gnu::noinline]] thread_ranges* make_here() noexcept {
  if (the_key == nullptr || !the_key->made) return nullptr;  // no key: ranges go unmeasured
  auto* t = new (std::nothrow) thread_ranges;
  if (t == nullptr) return nullptr;  // out of memory: this thread's ranges go unmeasured
  t->list();
  (void)pthread_setspecific(the_key->key, t);
  here_ptr() = t;
  return t;
}

/// The calling thread's ranges; null only where memory ran out or no key could be made.
inline thread_ranges* here() noexcept {
  thread_ranges* t = here_ptr();
  return t != nullptr ? t : make_here();
}

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

struct handles {
  std::mutex m;
  std::deque<domain> domains;
  std::deque<registered> strings;
  handle_table<domain> domain_handles;
  handle_table<registered> string_handles;
};
handles& made() {
  static handles* h = new handles;
  return *h;
}

/// site_of() past the thread's recent messages: the name built and looked up, the entry filled.
[[gnu::noinline]] wd::named_site* site_of_slow(const domain& d, const message& m, thread_ranges& t, const void* key,
                                               thread_ranges::recent& r) noexcept {
  wd::named_site* n = nullptr;
  try {
    std::string_view text = m.ascii != nullptr ? std::string_view{m.ascii} : m.text;
    const registered* reg = m.registered != nullptr ? registered_of(m.registered) : nullptr;
    if (reg != nullptr && reg->owner == &d) {
      n = wd::lookup(op_kind::region, reg->site);
    } else if (reg != nullptr) {  // pushed in another domain than its own: the range is this one's
      site_name(t.name, d.prefix, reg->text, config().varying);
      n = wd::lookup(op_kind::region, t.name);
    } else if (text.empty()) {
      // No text: a null message, a registered handle NVTX never gave, attributes too small.
      return wd::lookup(op_kind::region, no_message);
    } else if (d.prefix.empty() && text.find(", ") == std::string_view::npos) {
      n = wd::lookup(op_kind::region, text);
    } else {
      site_name(t.name, d.prefix, text, config().varying);
      n = wd::lookup(op_kind::region, t.name);
    }
    if (n == nullptr) return n;
    if (!troubles().measured.load(std::memory_order_relaxed)) troubles().measured.store(true, std::memory_order_relaxed);
    if (key == nullptr) return n;
    // Kept where the message is the site's name after the prefix, a name not cut to its limit.
    const std::string& site = n->s->name;
    if (reg != nullptr) {
      r = {key, &d, n, {}};
    } else if (m.ascii != nullptr && site.size() == d.prefix.size() + text.size() &&
               site.compare(d.prefix.size(), std::string::npos, text) == 0) {
      r = {key, &d, n, known_name(site.c_str() + d.prefix.size(), text.size())};
    }
  } catch (...) {
    return nullptr;  // out of memory: the range goes unmeasured, the program on
  }
  return n;
}

/// A range of a domain WARMUP_NVTX_DOMAINS leaves out: counted for the notice at exit, which
/// says where the setting named no domain the program used. None for warmup's own domain.
[[gnu::noinline]] wd::named_site* left_out(const domain& d, thread_ranges& t) noexcept {
  if (d.own) return nullptr;
  t.left_out.store(t.left_out.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (!d.left_out.load(std::memory_order_relaxed)) d.left_out.store(true, std::memory_order_relaxed);
  return nullptr;
}

/// The site of a range's message in `d`, or none where the domain is not counted or the library
/// is not measuring. Inline: a message the thread passed lately costs no call at all.
inline wd::named_site* site_of(const domain& d, const message& m, thread_ranges& t) noexcept {
  if (!d.counted) return left_out(d, t);
  if (!wd::measuring.load(std::memory_order_relaxed)) return nullptr;
  const void* key = m.registered != nullptr ? static_cast<const void*>(m.registered) : static_cast<const void*>(m.ascii);
  thread_ranges::recent& r = t.seen[thread_ranges::slot_of(key)];
  // A handle's entry has no text; a C string's has its site's (a handle's value may equal an address).
  if (key != nullptr && r.key == key && r.d == &d &&
      (m.registered != nullptr ? !r.tail.known() : r.tail.known() && r.tail.matches(m.ascii)))
    return r.site;
  return site_of_slow(d, m, t, key, r);
}

}  // namespace

void prepare() noexcept {
  if (the_key == nullptr) {
    load_thread_slot();
    the_key = &key_of_ranges();
  }
}

settings& config() {
  static settings* s = [] {
    auto* c = new settings;
    const char* d = std::getenv("WARMUP_NVTX_DOMAINS");
    c->domains = d != nullptr ? d : "all";
    const char* v = std::getenv("WARMUP_NVTX_VARYING");
    c->varying = comma_list(v != nullptr ? std::string_view{v} : default_varying);
    const char* device = std::getenv("WARMUP_NVTX_DEVICE");
    c->device = device != nullptr ? device : "";
    return c;
  }();
  return *s;
}

domain& make_default_domain() {
  static domain* d = [] {
    auto* x = new domain;
    x->counted = domain_counted(config().domains, "", true);
    default_domain_made.store(x, std::memory_order_release);
    return x;
  }();
  return *d;
}

domain& domain_of(nvtxDomainHandle_t h) noexcept {
  if (h == nullptr) return default_domain();
  domain* d = made().domain_handles.find(reinterpret_cast<std::uintptr_t>(h));
  return d != nullptr ? *d : default_domain();
}

domain* make_domain(std::string name) {
  handles& h = made();
  std::lock_guard<std::mutex> lock(h.m);
  domain& d = h.domains.emplace_back();
  const std::uintptr_t handle = h.domain_handles.add(&d);
  if (handle == 0) return nullptr;  // the object stays, unused: handles are never taken back
  d.handle = reinterpret_cast<nvtxDomainHandle_t>(handle);
  d.counted = domain_counted(config().domains, name, false);
  d.own = name == "warmup";
  d.prefix = domain_prefix(name);
  d.name = std::move(name);
  return &d;
}

registered* make_registered(domain& d, std::string text) {
  handles& h = made();
  std::lock_guard<std::mutex> lock(h.m);
  registered& r = h.strings.emplace_back();
  r.owner = &d;
  site_name(r.site, d.prefix, text, config().varying);
  r.text = std::move(text);
  const std::uintptr_t handle = h.string_handles.add(&r);
  if (handle == 0) return nullptr;
  r.handle = reinterpret_cast<nvtxStringHandle_t>(handle);
  return &r;
}

const registered* registered_of(nvtxStringHandle_t h) noexcept {
  return h == nullptr ? nullptr : made().string_handles.find(reinterpret_cast<std::uintptr_t>(h));
}

message wide_message(const wchar_t* s, std::string& buffer) noexcept {
  message m;
  try {
    buffer.clear();
    append_utf8(buffer, s);
    m.text = buffer;
  } catch (...) {
  }
  return m;
}

message message_of(const nvtxEventAttributes_t* a, std::string& buffer) noexcept {
  message m;
  // The message lies after version, size, category, colour and payload: an older or smaller
  // structure than that holds none.
  if (a == nullptr || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message)) return m;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      m.ascii = a->message.ascii;
      break;
    case NVTX_MESSAGE_TYPE_UNICODE: return wide_message(a->message.unicode, buffer);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      m.registered = a->message.registered;
      break;
    default: break;
  }
  return m;
}

int push(domain& d, const message& m) noexcept {
  if (__builtin_expect(run_status::armed.load(std::memory_order_relaxed), 0)) run_status::range_began();
  thread_ranges* const where = here();
  if (where == nullptr) return 0;
  thread_ranges& t = *where;
  if (t.frames.size() >= max_frames) {
    ++t.beyond;
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
    troubles().deep_pushes.fetch_add(1, std::memory_order_relaxed);
    return static_cast<int>(std::min<std::size_t>(t.frames.size() + t.beyond - 1, INT_MAX));
  }
  int depth = 0;
  for (std::size_t i = t.frames.size(); i-- > 0;)
    if (t.frames[i].d == &d) {
      depth = t.frames[i].depth + 1;
      break;
    }
  try {
    t.frames.push_back({&d, depth, {}});
  } catch (...) {
    return depth;  // out of memory: this range is not kept, and its pop will find none
  }
  t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
  // The buffer used for a wide message belongs to message_of's caller: the name is built apart.
  if (wd::named_site* n = site_of(d, m, t)) {
    frame& f = t.frames.back();
    f.call.begin(n->s, &n->slot);
    if (device::on()) {
      if (t.frames.size() > 1) {
        const frame& below = t.frames[t.frames.size() - 2];
        f.parent = below.serial != 0 ? below.serial : below.parent;
      }
      f.serial = device::opened(n->s, f.call.call.index, f.parent);
    }
  }
  return depth;
}

namespace {
/// Ends frame `i` of `t` for the device's side: its external id leaves the thread's stack,
/// with those of the ranges above it (a pop out of order across domains), which go back.
void close_device_side(thread_ranges& t, std::size_t i) noexcept {
  for (std::size_t k = t.frames.size(); k-- > i;)
    if (t.frames[k].serial != 0) device::pop_id();
  for (std::size_t k = i + 1; k < t.frames.size(); ++k)
    if (t.frames[k].serial != 0) device::push_id(t.frames[k].serial);
  device::closed(t.frames[i].serial);
}
}  // namespace

int pop(domain& d) noexcept {
  thread_ranges* const where = here();
  if (where != nullptr && where->beyond > 0) {  // the latest pushes were not kept: they end first
    --where->beyond;
    where->open.store(where->frames.size() + where->beyond, std::memory_order_relaxed);
    return static_cast<int>(std::min<std::size_t>(where->frames.size() + where->beyond, INT_MAX));
  }
  // The common case: the latest range is this domain's and is not device-timed (what the loop
  // below does for it, with pop_back for the erase of the last element).
  if (where != nullptr && !where->frames.empty() && where->frames.back().d == &d && where->frames.back().serial == 0) {
    thread_ranges& t = *where;
    frame& f = t.frames.back();
    const bool measured = f.call.s != nullptr;
    f.call.end();  // first: what follows is not the range's time
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
    const int depth = f.depth;
    t.frames.pop_back();
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
    return depth;
  }
  for (std::size_t i = where != nullptr ? where->frames.size() : 0; i-- > 0;) {
    thread_ranges& t = *where;
    if (t.frames[i].d != &d) continue;
    const bool measured = t.frames[i].call.s != nullptr;
    t.frames[i].call.end();  // first: what follows is not the range's time
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
    if (t.frames[i].serial != 0) close_device_side(t, i);
    const int depth = t.frames[i].depth;
    t.frames.erase(t.frames.begin() + static_cast<std::ptrdiff_t>(i));
    t.open.store(t.frames.size() + t.beyond, std::memory_order_relaxed);
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
  if (__builtin_expect(run_status::armed.load(std::memory_order_relaxed), 0)) run_status::range_began();
  started_table& s = started();
  const nvtxRangeId_t id = s.last.fetch_add(1, std::memory_order_relaxed) + 1;
  thread_ranges* const t = here();
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
    if (wd::named_site* n = t != nullptr ? site_of(d, m, *t) : nullptr) {
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
    const bool measured = c.s != nullptr;
    c.end();
    if (__builtin_expect(late::counting.load(std::memory_order_relaxed), 0) && measured) late::ended();
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

namespace {
void say_how_ranges_were_timed() noexcept {
  try {
    const device::summary d = device::what_was_timed();
    if (!d.watching) {
      if (!d.asked)
        wd::notice_board().raise(wd::notice_kind::nvtx_host_timed,
                                 "the NVTX ranges' sites were measured by warmup's NVTX tool, on the host: a "
                                 "range's device time is measured with WARMUP_NVTX_DEVICE=on (docs/nvtx-tool.md, "
                                 "\"Device time\")");
      return;  // asked and refused: start() said why
    }
    std::string m = "the NVTX ranges' sites were measured by warmup's NVTX tool: " + std::to_string(d.timed) +
                    " push/pop calls device-timed from the kernels, copies and memsets they launched (CUPTI); "
                    "ranges with no device work and start/end ranges are host-timed";
    if (d.lost + d.late != 0)
      m += "; " + std::to_string(d.lost) + " calls not timed (their entries reused by later ranges, or too many waiting), " +
           std::to_string(d.late) + " records that came after their call's time was given";
    wd::notice_board().raise(wd::notice_kind::nvtx_host_timed, m);
  } catch (...) {
  }
}
}  // namespace

void say_what_was_left() noexcept {
  trouble& t = troubles();
  if (t.measured.load(std::memory_order_relaxed)) say_how_ranges_were_timed();
  std::uint64_t open_started = 0, pushes = 0;
  std::string name;
  try {
    {
      pushing_threads& p = pushers();
      std::lock_guard<std::mutex> lock(p.m);
      pushes = p.left_by_ended;
      for (const thread_ranges* r : p.live) pushes += r->open.load(std::memory_order_relaxed);
      name = p.first_unclosed;
      // The exiting thread's own ranges, which it alone touches: one to name.
      if (const thread_ranges* mine = here_ptr(); name.empty() && mine != nullptr)
        for (const frame& f : mine->frames)
          if (name.empty() && f.call.s != nullptr) name = f.call.s->name;
    }
    {
      started_table& s = started();
      std::lock_guard<std::mutex> lock(s.m);
      open_started = s.open.size();
      for (const auto& [id, r] : s.open)
        if (name.empty() && r.call.s != nullptr) name = r.call.s->name;
    }
    const std::uint64_t bad_pops = t.bad_pops.load(), bad_ends = t.bad_ends.load(), dropped = t.dropped_starts.load(),
                        deep = t.deep_pushes.load();
    if (pushes + open_started + bad_pops + bad_ends + dropped + deep == 0) return;
    std::string m = "NVTX ranges the program left unbalanced, none of them counted as calls: ";
    m += std::to_string(pushes) + " pushed and never popped, " + std::to_string(open_started) +
         " started and never ended";
    if (!name.empty()) m += " (one: '" + wd::printable(name, 80) + "')";
    m += ", " + std::to_string(bad_pops) + " pops with no push, " + std::to_string(bad_ends) + " ends of no open range";
    if (dropped != 0) m += ", " + std::to_string(dropped) + " starts past the " + std::to_string(max_open_started) + " open at once";
    if (deep != 0)
      m += ", " + std::to_string(deep) + " pushes past the " + std::to_string(max_frames) + " open on a thread (not measured)";
    wd::notice_board().raise(wd::notice_kind::nvtx_ranges_left, m);
  } catch (...) {
  }
}

bool ranges_measured() noexcept { return troubles().measured.load(std::memory_order_relaxed); }

std::uint64_t ranges_left_out(std::vector<std::string>& domains) {
  std::uint64_t n = 0;
  {
    pushing_threads& p = pushers();
    std::lock_guard<std::mutex> lock(p.m);
    n = p.left_out_by_ended;
    for (const thread_ranges* r : p.live) n += r->left_out.load(std::memory_order_relaxed);
  }
  if (default_domain().left_out.load(std::memory_order_relaxed)) domains.emplace_back("default");
  handles& h = made();
  std::lock_guard<std::mutex> lock(h.m);
  for (const domain& d : h.domains)
    if (d.left_out.load(std::memory_order_relaxed)) domains.push_back(d.name);
  return n;
}

void after_fork_in_child() noexcept {
  // The child starts clean (the library resets its sites): the parent's open ranges are no
  // calls of the child's, and its other threads (and their locks) are gone.
  new (&started()) started_table;
  new (&made().m) std::mutex;
  new (&troubles()) trouble;
  new (&pushers()) pushing_threads;
  device::after_fork_in_child();
  if (thread_ranges* t = here_ptr()) {
    t->frames.clear();
    t->beyond = 0;
    t->open.store(0, std::memory_order_relaxed);
    t->left_out.store(0, std::memory_order_relaxed);
    t->list();
  }
}

}  // namespace warmup_nvtx
