/// @file
/// @brief The site's calls detail/record/site.hpp declares (its members a call's fast path does not inline,
/// the registry's lookups, the light builds' start),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/runtime/site_state.hpp"
#include "warmup/detail/runtime/registry.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME timeline_settings& timeline_config() noexcept {
  return shared<timeline_settings, slot::timeline>();
}

WARMUP_DETAIL_RUNTIME recurrence_settings& recurrence() noexcept {
  return shared<recurrence_settings, slot::recurrence>();  // one per process, never destroyed
}

WARMUP_DETAIL_RUNTIME site::site(op_kind k, std::string_view n, std::uint32_t i)
    : name(n), op(k), id(i), time_(&host_time()), line_(timeline_config().first_calls.load(std::memory_order_relaxed)) {
  nvtx.set(name);
  past_at_ = std::max<std::uint64_t>(series::window, line_.first_calls());
}

WARMUP_DETAIL_RUNTIME site::~site() {
  delete device_.load(std::memory_order_relaxed);
  delete cold_.load(std::memory_order_relaxed);
  for (shard* s = shards_.load(std::memory_order_relaxed); s != nullptr;) delete std::exchange(s, s->link);
}

WARMUP_DETAIL_RUNTIME void site::first_call_begins(bool device_timed) noexcept {
  // A program of 10^5 sites pays the probe for its first few thousand only (start-up is where
  // libraries are loaded anyway).
  static std::atomic<std::uint32_t> probed{0};
  if (probed.fetch_add(1, std::memory_order_relaxed) >= max_probed_first_calls) return;
  const busy_section busy;
  WARMUP_TRY {
    cold_calls* c = cold();
    if (c == nullptr) return;
    std::lock_guard<std::mutex> lock(c->m);
    c->context_existed = device_timed ? current_context_exists() : std::nullopt;
    if (device_timed && c->context_existed != false) c->device_free_before = device_memory_free();
    c->objects_before = mark_objects();
    c->children_before = children_at_start();
    if (cause_records().collecting.load(std::memory_order_relaxed))
      cause_records().open_first_call(this_thread_id(), ns_since_epoch(clock::now()));
    c->begun_on = this_thread_id();
    c->before = read_thread_usage();  // the listing above is not the call's
    start_cpu_sampling(this);  // after: the samples' CPU time lies within `before`..`after`
  } WARMUP_CATCH_ALL {
  }
}

WARMUP_DETAIL_RUNTIME void site::first_call_clock_starts() noexcept {
  cold_calls* c = cold_.load(std::memory_order_acquire);
  if (c == nullptr) return;
  const busy_section busy;
  std::lock_guard<std::mutex> lock(c->m);
  if (!c->before.ok) return;
  c->before = read_thread_usage();
  if (thread_sampling == sampler_stage::armed) my_sampler().weigh_from(this, c->before.cpu_ns);
}

WARMUP_DETAIL_RUNTIME void site::cold_call_ends(std::uint64_t index, std::uint64_t start, std::uint64_t stop, bool after_idle) noexcept {
  // The thread's CPU clock first, as the call's clock stopped just before; then the sampler
  // (a sample landing meanwhile stands for a few microseconds of the library's own).
  thread_usage after = index == 0 ? read_thread_usage() : thread_usage{};
  if (index == 0) stop_cpu_sampling(this);
  const busy_section busy;
  // In steady-clock ns, as CUPTI's records are: converted over the call's own length, from a
  // pair read now, which is kept where one is due, so the rate is known from the second call on.
  const time_base::converter now = static_cast<time_base&>(*time_).recent_calibrated();
  const std::uint64_t start_ns = now.to_ns(start), stop_ns = now.to_ns(stop);
  WARMUP_TRY {
    // A first call keeps its window where it was probed or attribution runs: a program of
    // 10^5 sites does not pay for 10^5 windows nobody reads.
    const bool collecting = cause_records().collecting.load(std::memory_order_relaxed);
    cold_calls* c = index == 0 && !collecting ? cold_.load(std::memory_order_acquire) : cold();
    if (c == nullptr) return;
    cold_window w{start_ns, stop_ns, this_thread_id()};
    std::lock_guard<std::mutex> lock(c->m);
    if (index == 0 && c->before.ok && c->begun_on != w.thread) {
      // Ended on another thread (its scope moved there): the two threads' CPU clocks and
      // fault counts do not subtract.
      after.ok = false;
      if (!notice_board().raised(notice_kind::sampling_moved))
        notice_board().raise(notice_kind::sampling_moved,
                             "the first call of '" + name + "' ended on a thread other than the one it began on: "
                             "its CPU time, faults and CPU samples are not known");
    }
    if (index == 0 && c->before.ok && after.ok) {
      w.cpu_start_ns = c->before.cpu_ns;
      w.cpu_end_ns = after.cpu_ns;
      w.major_faults = after.major_faults - c->before.major_faults;
    }
    if (index == 0) c->first = w;
    if (index == 0 && c->before.ok) {  // probed at its start (first_call_begins)
      host_signals h;
      if (after.ok) {
        h.cpu = std::chrono::nanoseconds{static_cast<long long>(after.cpu_ns - c->before.cpu_ns)};
        h.minor_faults = after.minor_faults - c->before.minor_faults;
        h.major_faults = after.major_faults - c->before.major_faults;
      }
      h.libraries_loaded = loaded_since(c->objects_before);
      h.context_existed = c->context_existed;
      if (c->device_free_before)
        if (const std::optional<std::uint64_t> free_now = device_memory_free())
          h.device_memory_taken = static_cast<std::int64_t>(*c->device_free_before) - static_cast<std::int64_t>(*free_now);
      c->first_host = std::move(h);
    }
    if (index == 0 && c->children_before.ok)  // read at its start (first_call_begins)
      c->first_children = children_at_end(std::exchange(c->children_before, children_reading{}));
    if (index != 0 && after_idle) {
      if (c->recent.size() == cold_calls::kept) c->recent.erase(c->recent.begin());
      c->recent.push_back(w);
    }
    if (collecting) cause_records().close_window(w, index == 0);
  } WARMUP_CATCH_ALL {
  }
}

WARMUP_DETAIL_RUNTIME site::cold_view site::cold_calls_seen() const {
  cold_view v;
  cold_calls* c = cold_.load(std::memory_order_acquire);
  if (c == nullptr) return v;
  std::lock_guard<std::mutex> lock(c->m);
  v.first = c->first;
  v.first_host = c->first_host;
  v.first_children = c->first_children;
  v.recent = c->recent;
  return v;
}

WARMUP_DETAIL_RUNTIME series_data site::host_data() const {
  std::vector<const later_lane*> lanes;
  for (const shard* s = shards_.load(std::memory_order_acquire); s != nullptr; s = s->link) lanes.push_back(&s->lane);
  return host_.read(lanes);
}

WARMUP_DETAIL_RUNTIME site_counts site::counts() const noexcept {
  site_counts c;
  c.exceptions = exceptions_.load(std::memory_order_relaxed);
  c.captured = captured_.load(std::memory_order_relaxed);
  c.unavailable = unavailable_.load(std::memory_order_relaxed);
  c.dropped = dropped_.load(std::memory_order_relaxed);
  c.sampled_out = sampled_out_.load(std::memory_order_relaxed);
  c.bytes_first = bytes_first_.load(std::memory_order_relaxed);
  c.bytes_total = bytes_total_.load(std::memory_order_relaxed);
  c.bytes_vary = bytes_vary_.load(std::memory_order_relaxed);
  c.bytes_overflow = bytes_overflow_.load(std::memory_order_relaxed);
  c.pool_read = pool_read_.load(std::memory_order_relaxed);
  c.pool_grew = pool_grew_.load(std::memory_order_relaxed);
  c.pool_grown = pool_grown_.load(std::memory_order_relaxed);
  c.pool_first_grown = pool_first_grown_.load(std::memory_order_relaxed);
  c.host_pinned = host_pinned_.load(std::memory_order_relaxed);
  c.host_pageable = host_pageable_.load(std::memory_order_relaxed);
  return c;
}

WARMUP_DETAIL_RUNTIME std::size_t site::shard_count() const noexcept {
  const busy_section busy;
  const shard_lock lock(shards_busy_);
  return shard_count_;
}

WARMUP_DETAIL_RUNTIME std::size_t site::bytes() const noexcept {
  const series* d = device_series_if_any();
  const char* p = name.data();
  const bool name_inside = p >= reinterpret_cast<const char*>(this) && p < reinterpret_cast<const char*>(this + 1);
  std::size_t shards = 0;
  for (const shard* s = shards_.load(std::memory_order_acquire); s != nullptr; s = s->link)
    shards += sizeof(shard) - sizeof(later_lane) + s->lane.bytes();
  return sizeof(*this) - sizeof(line_) - sizeof(host_) + line_.bytes() + host_.bytes() +
         (name_inside ? 0 : name.capacity() + 1) + (d != nullptr ? d->bytes() : 0) + cold_bytes() + shards;
}

WARMUP_DETAIL_RUNTIME std::size_t site::cold_bytes() const noexcept {
  cold_calls* c = cold_.load(std::memory_order_acquire);
  if (c == nullptr) return 0;
  std::lock_guard<std::mutex> lock(c->m);
  std::size_t n = sizeof(cold_calls) + c->recent.capacity() * sizeof(cold_window);
  if (c->first_host)
    for (const std::string& l : c->first_host->libraries_loaded) n += sizeof(std::string) + l.capacity();
  for (const child_cpu& k : c->first_children) n += sizeof(child_cpu) + k.command.capacity();
  return n;
}

WARMUP_DETAIL_RUNTIME void site::reset() noexcept {
  entered_.store(0, std::memory_order_relaxed);
  past_.store(false, std::memory_order_relaxed);
  spare_ = nullptr;  // every shard is free in the child: its one thread forgets those it held
  for (shard* s = shards_.load(std::memory_order_relaxed); s != nullptr; s = s->link) {
    s->next = s->end = 0;
    s->lane.reset();
    s->spare = std::exchange(spare_, s);
  }
  given_back_.fetch_add(1, std::memory_order_relaxed);  // a slot refused in the parent tries again
  shards_busy_.store(false, std::memory_order_relaxed);  // a thread the child does not have may have held it
  new (&idle_) idle_tracker{};
  new (&sampler_) device_sampler{};
  for (auto* a : {&sampled_out_, &exceptions_, &bytes_first_, &bytes_total_, &captured_, &unavailable_, &dropped_,
                  &pool_read_, &pool_grew_, &pool_grown_, &pool_first_grown_, &host_pinned_, &host_pageable_})
    a->store(0, std::memory_order_relaxed);
  bytes_vary_.store(false, std::memory_order_relaxed);
  bytes_overflow_.store(false, std::memory_order_relaxed);
  host_.reset();
  line_.reset();
  delete device_.exchange(nullptr, std::memory_order_acq_rel);
  delete cold_.exchange(nullptr, std::memory_order_acq_rel);
}

WARMUP_DETAIL_RUNTIME series* site::device_series() noexcept {
  series* s = device_.load(std::memory_order_acquire);
  if (s != nullptr) return s;
  const busy_section busy;
  auto* fresh = new (std::nothrow) series{};
  if (fresh == nullptr) return nullptr;
  if (device_.compare_exchange_strong(s, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;
  return s;
}

WARMUP_DETAIL_RUNTIME call_ticket site::begin_call_slow(shard_slot* slot) noexcept {
  // A thread refused a shard (all were taken) tries again once one has been given back.
  if (slot != nullptr && slot->refused && slot->seen != given_back_.load(std::memory_order_relaxed)) slot->refused = false;
  if (slot != nullptr && !slot->ended && !slot->refused && past_.load(std::memory_order_relaxed)) {
    if (slot->p == nullptr) {
      const std::uint32_t seen = given_back_.load(std::memory_order_relaxed);  // before: a shard freed meanwhile is seen
      if ((slot->p = take_shard()) == nullptr) {
        slot->refused = true;
        slot->seen = seen;
      } else if (!hold_shard(this, slot)) {
        give_back(slot->p);  // no room to note it: it could not be given back at the thread's end
        slot->p = nullptr;
        slot->ended = true;
      }
    }
    if (shard* sh = slot->p) {
      const std::uint64_t i = entered_.fetch_add(index_block, std::memory_order_relaxed);
      sh->next = i + 1;
      sh->end = i + index_block;
      return {i, sh};
    }
  }
  const std::uint64_t i = entered_.fetch_add(1, std::memory_order_relaxed);
  if (i + 1 >= past_at_ && !past_.load(std::memory_order_relaxed)) past_.store(true, std::memory_order_relaxed);
  return {i, nullptr};
}

WARMUP_DETAIL_RUNTIME shard* site::take_shard() noexcept {
  const busy_section busy;
  const shard_lock lock(shards_busy_);
  if (shard* s = spare_) {
    spare_ = s->spare;
    return s;
  }
  if (shard_count_ == max_shards) return nullptr;
  auto* s = new (std::nothrow) shard{};
  if (s == nullptr) return nullptr;
  s->link = shards_.load(std::memory_order_relaxed);
  shards_.store(s, std::memory_order_release);
  ++shard_count_;
  return s;
}

WARMUP_DETAIL_RUNTIME void site::give_back(shard* s) noexcept {
  const busy_section busy;
  const shard_lock lock(shards_busy_);
  s->next = s->end = 0;
  s->spare = spare_;
  spare_ = s;
  given_back_.fetch_add(1, std::memory_order_relaxed);
}

WARMUP_DETAIL_RUNTIME cold_calls* site::cold() noexcept {
  cold_calls* c = cold_.load(std::memory_order_acquire);
  if (c != nullptr) return c;
  auto* fresh = new (std::nothrow) cold_calls{};
  if (fresh == nullptr) return nullptr;
  if (cold_.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) return fresh;
  delete fresh;
  return c;
}

WARMUP_DETAIL_RUNTIME void negative_bytes(long long bytes) noexcept {
  WARMUP_TRY {
    notice_board().raise(notice_kind::negative_bytes,
                         "a scope was given a negative byte count (" + std::to_string(bytes) + "); it counts as 0 bytes");
  } WARMUP_CATCH_ALL {
  }
}

WARMUP_DETAIL_RUNTIME site* find_or_add_site(op_kind k, std::string_view name) noexcept {
  return sites().find_or_add(k, name);
}

WARMUP_DETAIL_RUNTIME named_site* lookup_slow(recent_name& r, op_kind k, std::string_view name) noexcept {
  if (names_gone) {
    // The thread is ending and its table is gone: the site without a shard of this thread's.
    thread_local named_site late;
    late.s = measuring.load(std::memory_order_relaxed) ? sites().find_or_add(k, name) : nullptr;
    late.slot = shard_slot{};
    late.slot.ended = true;
    return late.s != nullptr ? &late : nullptr;
  }
  WARMUP_TRY {
    name_cache& c = my_names();
    auto& names = c.by_kind[static_cast<std::size_t>(k)];
    const std::string_view kept = bounded_name(name);
    auto it = names.find(kept);
    if (it == names.end()) {
      // A name this thread has not seen: starting the library (record/site.hpp's lookup did)
      // may have applied WARMUP_ENABLE=0.
      if (!measuring.load(std::memory_order_relaxed)) return nullptr;
      const busy_section busy;
      site* s = sites().find_or_add(k, name);
      if (s == nullptr) return nullptr;
      it = names.emplace(std::string_view{s->name}, named_site{s, {}}).first;
    }
    // The small table compares the caller's characters with as many of the site's own copy: a
    // site whose name is not as long (a name cut short, the site cap's) is found through the
    // thread's table each time, never read past its end.
    if (it->second.s->name.size() == name.size()) r = {name.data(), name.size(), k, &it->second, it->second.s->name.data()};
    return &it->second;
  } WARMUP_CATCH_ALL {
    return nullptr;  // out of memory: the scope measures nothing rather than failing
  }
}

// Weak, not inline: files built light (WARMUP_LIGHT) call it having only its declaration
// (detail/record/site.hpp); each file that compiles the runtime defines it, and the linker keeps one.
// Used: light_link.hpp's assembly refers to it, which link-time optimisation does not see.
WARMUP_DETAIL_RUNTIME __attribute__((used)) void start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file() noexcept { ensure_started(); }

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
