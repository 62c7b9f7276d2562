/// @file
/// @brief `warmup::snapshot()` compiled with the runtime: device measurements read back, every
/// site summarised, the run and its device described.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/process.hpp"

#include "warmup/report.hpp"
#include "warmup/snapshot.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>

#include <unistd.h>
#include <string_view>

#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/runtime/device_timer.hpp"
#include "warmup/detail/runtime/identity.hpp"
#include "warmup/detail/runtime/notices.hpp"
#include "warmup/detail/runtime/nvtx.hpp"
#include "warmup/detail/runtime/registry.hpp"
#include "warmup/detail/runtime/site.hpp"
#include "warmup/detail/record/site.hpp"
#include "warmup/detail/analysis/statistics.hpp"
#include "warmup/detail/io/text.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

WARMUP_DETAIL_RUNTIME void series::merge_buckets(std::vector<series_data::bucket>& b) {
  std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.lowest < y.lowest; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (out != 0 && b[out - 1].lowest == b[i].lowest)
      b[out - 1].count += b[i].count;
    else
      b[out++] = b[i];
  }
  b.resize(out);
}

/// The device description, made once and kept in storage that is never destroyed: the report
/// at exit reads it after static destructors have run.
struct described_device {
  std::mutex m;
  bool done = false;
  std::optional<device_description> d;
};

inline described_device& device_cache() noexcept {
  return shared<described_device, slot::device_cache>();
}

/// `ms` since 1970 as ISO 8601 UTC, to the millisecond: "2026-11-26T23:59:59.123Z".
inline std::string iso_utc(std::int64_t ms) {
  const std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm t{};
  if (ms < 0 || ::gmtime_r(&s, &t) == nullptr) return "unknown";
  char text[96];  // room for any int the format could be given, so no compiler warns of truncation
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

/// Who is writing the report, read now: the launcher's variables (a value that cannot be
/// trusted is said once, in the notices), the host's name, the pid.
inline run_identity read_identity() {
  run_identity id;
  const rank_reading rr = read_rank([](const char* n) { return std::getenv(n); });
  id.rank = rr.rank;
  id.local_rank = rr.local_rank;
  id.world_size = rr.world_size;
  id.launcher = rr.launcher;
  if (!rr.problems.empty() && !notice_board().raised(notice_kind::rank)) {
    std::string text = "the job's rank variables:";
    for (const std::string& p : rr.problems) text += " " + p + ";";
    text.pop_back();
    notice_board().raise(notice_kind::rank, text);
  }
  id.host = host_name();
  id.pid = static_cast<int>(::getpid());
  id.started = iso_utc(once().start_wall_ms.load(std::memory_order_relaxed));
  return id;
}

/// read_identity(), once per process: the host's name and the launcher's variables do not change
/// while it runs. A forked child has a pid of its own, so it reads its identity again (its notices
/// were cleared at the fork: a rank variable it cannot trust is said again, in its own report).
/// No lock, so a fork can never leave one held: an identity once published is never freed (one a
/// process, and one more in each forked child that takes a snapshot).
inline run_identity identity_now() {
  static std::atomic<const run_identity*> kept{nullptr};
  const int pid = static_cast<int>(::getpid());
  const run_identity* k = kept.load(std::memory_order_acquire);
  if (k != nullptr && k->pid == pid) return *k;
  const run_identity* fresh = new (std::nothrow) run_identity(read_identity());
  if (fresh == nullptr) return read_identity();  // out of memory: read now, keep nothing
  if (kept.compare_exchange_strong(k, fresh, std::memory_order_acq_rel)) return *fresh;
  run_identity id = k->pid == pid ? *k : *fresh;  // another thread published first
  delete fresh;
  return id;
}

/// A GPU's UUID as nvidia-smi writes it.
inline std::string uuid_text(const unsigned char (&b)[16]) {
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

/// Describes the current device once per process, with calls that create no context.
inline std::optional<device_description> describe_device(std::string& status) {
  described_device& c = device_cache();
  std::lock_guard<std::mutex> lock(c.m);
  const cuda_state& st = cuda();
  // At exit, a program that never asked for device timing is not made to initialise CUDA now.
  const bool probed = st.runtime.load() != cuda_state::unknown;
  if (!c.done && (probed || !st.closed.load())) {
    c.done = true;
    if (runtime_available()) {
      const cudaError_t before = cudaPeekAtLastError();
      device_description d;
      cudaDeviceProp p{};
      if (cudaGetDevice(&d.index) == cudaSuccess &&
          cudaGetDeviceProperties(&p, d.index) == cudaSuccess) {
        d.name = p.name;
        unsigned char uuid[16];
        std::memcpy(uuid, p.uuid.bytes, sizeof uuid);
        d.uuid = uuid_text(uuid);
        d.compute_major = p.major;
        d.compute_minor = p.minor;
        d.multiprocessors = p.multiProcessorCount;
        d.memory_bytes = p.totalGlobalMem;
        (void)cudaDriverGetVersion(&d.driver_version);
        (void)cudaRuntimeGetVersion(&d.runtime_version);
        c.d = d;
      }
      if (before == cudaSuccess) forget_own_error(cudaPeekAtLastError());
    }
  }
  if (st.runtime.load() == cuda_state::unavailable)
    status = st.why_unavailable;
  else if (c.d)
    status = "ok";
  else if (st.runtime.load() == cuda_state::unknown)
    status = "not described: no scope was given a stream, so the library never asked CUDA for a device";
  else if (st.closed.load())
    status = "not described: the program was exiting and CUDA may already be shut down";
  else
    status = "the current device could not be described";
  return c.d;
}

/// How the driver loads modules, as the environment tells it (LAZY unless set otherwise).
inline std::string module_loading_mode() {
  const char* v = std::getenv("CUDA_MODULE_LOADING");
  return v != nullptr && *v != '\0' ? printable(v, 40) : std::string("LAZY (the default)");
}

/// The JIT compute cache as the environment sets it.
inline std::string jit_cache_settings() {
  const char* disable = std::getenv("CUDA_CACHE_DISABLE");
  const char* path = std::getenv("CUDA_CACHE_PATH");
  const char* size = std::getenv("CUDA_CACHE_MAXSIZE");
  std::string out = disable != nullptr && std::string_view{disable} == "1" ? "disabled" : "enabled";
  if (path != nullptr && *path != '\0') out += ", path " + printable(path, 200);
  if (size != nullptr && *size != '\0') out += ", max size " + printable(size, 40);
  return out;
}

inline std::string format_ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r >= 10 ? "%.0fx" : "%.1fx", r);
  return buf;
}

/// Plain-language readings of a site's figures, for the table and for JSON.
inline std::vector<std::string> notes_for(const site_report& s) {
  std::vector<std::string> notes;
  const timing& h = s.host;
  if (h.steady && h.steady->p50.count() > 0 && h.first > 2 * h.steady->p50)
    notes.push_back("first call " + format_ratio(double(h.first.count()) / double(h.steady->p50.count())) +
                    " the steady p50 on the host");
  if (s.op == op_kind::launch && s.device && s.device->steady && h.steady) {
    const auto host_extra = h.first - h.steady->p50;
    const auto dev_extra = s.device->first - s.device->steady->p50;
    if (host_extra > 2 * std::max(dev_extra, std::chrono::nanoseconds{0}) &&
        host_extra > std::chrono::microseconds{20})
      notes.push_back("the first launch waited on the host, not the GPU: module loading or JIT at the call");
  }
  if (s.bytes && s.bytes->total_saturated)
    notes.push_back("the byte total passed 2^64 - 1 and is shown saturated; no mean bandwidth");
  if (s.bytes && s.bytes->gbps_clock == clock_domain::host)
    notes.push_back("bandwidth from host time (no call was device-timed): it includes launch and any wait");
  if (s.bytes && s.bytes->sizes_vary)
    notes.push_back("calls moved different numbers of bytes: read the mean bandwidth, not a steady one");
  if (s.bytes && s.bytes->host_pageable_calls != 0)
    notes.push_back(std::to_string(s.bytes->host_pageable_calls) + " of " +
                    std::to_string(s.bytes->host_pageable_calls + s.bytes->host_pinned_calls) +
                    " calls copied pageable host memory, which the driver stages through a pinned buffer: "
                    "pin it (cudaHostRegister) for full bandwidth and an asynchronous copy");
  if (s.pool && s.pool->grew_calls > 1)
    notes.push_back("the pool grew during " + std::to_string(s.pool->grew_calls) + " of " +
                    std::to_string(s.pool->calls_read) + " calls (" + format_bytes(s.pool->grown) +
                    " in all): it gives memory back between them; raise its release threshold "
                    "(cudaMemPoolAttrReleaseThreshold) to keep it");
  const untimed_calls& u = s.device_untimed;
  if (u.captured != 0)
    notes.push_back(std::to_string(u.captured) +
                    " calls ran inside a graph capture and were host-timed only");
  if (u.unavailable != 0)
    notes.push_back(std::to_string(u.unavailable) +
                    " calls asked for device timing that was unavailable (no GPU, a CUDA error, or no context yet)");
  if (u.sampled_out != 0)
    notes.push_back("once steady, device-timed on a sample: " + std::to_string(u.sampled_out) +
                    " calls host-timed only");
  if (u.dropped != 0)
    notes.push_back(std::to_string(u.dropped) + " device measurements dropped: too many in flight");
  if (s.exceptions != 0)
    notes.push_back(std::to_string(s.exceptions) + " calls ended by an exception");
  // Only where more calls would help: a site called once by design (a context, a handle) has its
  // first call and nothing to say about a steady state; the table counts those under itself.
  if (!h.steady && h.calls > 1) notes.push_back("no steady state yet: too few calls");
  if (h.steady && !h.steady->enough_calls)
    notes.push_back("only " + std::to_string(h.steady->calls) + (h.steady->calls == 1 ? " steady call" : " steady calls") +
                    ": the p50 is uncertain" +
                    (h.steady->p50_low ? " (95% interval " + format_duration(*h.steady->p50_low) + " to " +
                                             format_duration(*h.steady->p50_high) + ")"
                                       : std::string(" (too few for a 95% interval)")));
  if (h.cold_recurrences != 0)
    notes.push_back(std::to_string(h.cold_recurrences) + " calls were cold again after idling (" +
                    format_duration(h.cold_excess) + " in all), kept out of the steady figures");
  return notes;
}

/// Joins cold windows with the cause records that overlap them (detail/analysis/attribution.hpp), and
/// what no record covers with the CPU samples taken there (detail/analysis/cpu_sampler.hpp).
inline attribution attribute(const std::vector<cold_window>& windows, const timing& t) {
  attribution a;
  const std::int64_t p50 = t.steady ? t.steady->p50.count() : 0;
  std::array<std::uint64_t, cause_count> ns{}, count{};
  std::vector<host_code_split::object> host;
  std::int64_t call = 0, excess = 0, named = 0;
  const cause_store& store = cause_records();
  for (const cold_window& w : windows) {
    const split sp = split_window(w, store.overlapping(w));
    for (std::size_t c = 0; c < cause_count; ++c) ns[c] += sp.ns[c], count[c] += sp.count[c];
    if (windows.size() == 1) {  // a first call: where in it each stretch lay
      const std::size_t kept = std::min(sp.pieces.size(), attribution::span_limit);
      const auto nanos = [](std::uint64_t v) { return std::chrono::nanoseconds{static_cast<long long>(v)}; };
      for (std::size_t i = 0; i < kept; ++i)
        a.spans.push_back({sp.pieces[i].what, nanos(sp.pieces[i].start_ns - w.start_ns), nanos(sp.pieces[i].end_ns - sp.pieces[i].start_ns)});
      a.spans_left_out = sp.pieces.size() - kept;
    }
    const std::vector<thread_sample> samples = store.samples_in(w);
    const host_code_split hc = split_samples(w, sp, samples, object_of);
    for (const auto& o : hc.objects) {
      auto it = std::find_if(host.begin(), host.end(), [&](const auto& h) { return h.where == o.where; });
      if (it == host.end()) host.push_back(o);
      else it->ns += o.ns, it->samples += o.samples;
    }
    const auto d = static_cast<std::int64_t>(w.end_ns - w.start_ns);
    const std::uint64_t span = w.end_ns - w.start_ns, taken = sp.named + hc.named;
    const std::uint64_t waited = waiting_in(w, sp, samples, span > taken ? span - taken : 0);
    ns[static_cast<std::size_t>(cause::waiting)] += waited;
    if (waited != 0) count[static_cast<std::size_t>(cause::waiting)] += w.major_faults;
    call += d;
    excess += d - p50;
    named += static_cast<std::int64_t>(taken + waited);
  }
  for (std::size_t c = 0; c < cause_count; ++c)
    if (ns[c] != 0)  // waiting's count: the major page faults meanwhile, its evidence
      a.causes.push_back({static_cast<cause>(c), std::chrono::nanoseconds{static_cast<long long>(ns[c])}, count[c], {}});
  for (auto& h : host)
    if (h.ns != 0)
      a.causes.push_back({cause::host_code, std::chrono::nanoseconds{static_cast<long long>(h.ns)}, h.samples, std::move(h.where)});
  std::sort(a.causes.begin(), a.causes.end(), [](const cause_time& x, const cause_time& y) { return x.time > y.time; });
  a.calls = windows.size();
  a.call = std::chrono::nanoseconds{call};
  a.excess = std::chrono::nanoseconds{excess};
  a.named = std::chrono::nanoseconds{named};
  a.unattributed = a.excess - a.named;
  return a;
}

/// One site's report; `time` converts its host figures, recorded in ticks, to ns.
inline site_report read_site(const site& s, const time_map& time) {
  site_report r;
  r.name = s.name;
  r.op = s.op;
  series_data host_data = s.host_data();
  scale(host_data, time.rate);
  r.host = summarize(host_data);
  r.calls = r.host.calls;
  if (const series* d = s.device_series_if_any()) {
    timing t = summarize(d->read());
    if (t.calls != 0) r.device = t;
  }
  const site_counts n = s.counts();
  const std::uint64_t total = n.bytes_overflow ? UINT64_MAX : n.bytes_total;
  if (total != 0) {
    transfer x;
    x.first = n.bytes_first;
    x.total = total;
    x.total_saturated = n.bytes_overflow;
    const bool total_matches = r.calls != 0 && total % r.calls == 0 && total / r.calls == x.first;
    x.sizes_vary = n.bytes_vary || (!n.bytes_overflow && !total_matches);
    // Bandwidth for copies only: an allocation's bytes over its time is no rate of anything.
    if (is_copy(s.op)) {
      const timing& t = r.device ? *r.device : r.host;
      x.gbps_clock = r.device ? clock_domain::device : clock_domain::host;
      // Bytes per nanosecond are GB/s.
      if (t.first.count() > 0) x.first_gbps = double(x.first) / double(t.first.count());
      if (!x.sizes_vary && t.steady && t.steady->p50.count() > 0)
        x.steady_gbps = double(x.first) / double(t.steady->p50.count());
      if (!n.bytes_overflow && t.total.count() > 0 && t.calls == r.calls) x.mean_gbps = double(total) / double(t.total.count());
    }
    x.host_pinned_calls = n.host_pinned;
    x.host_pageable_calls = n.host_pageable;
    r.bytes = x;
  }
  if (n.pool_read != 0) r.pool = pool_growth{n.pool_read, n.pool_grew, n.pool_grown, n.pool_first_grown};
  for (const auto& c : host_data.first) r.first_calls.push_back(std::chrono::nanoseconds{static_cast<long long>(c.ns)});
  const std::uint64_t origin = ns_since_epoch(process_start());
  const auto since_origin = [&](std::uint64_t t) {
    return std::chrono::nanoseconds{static_cast<long long>(t) - static_cast<long long>(origin)};
  };
  for (const timeline_call& c : s.timeline_calls()) {
    call_record rec;
    rec.index = c.index;
    rec.host_start = since_origin(time.to_ns(c.host_start));
    rec.host = std::chrono::nanoseconds{static_cast<long long>(time.ns(c.host_ns))};
    if (c.device_start != 0) {
      rec.device_start = since_origin(c.device_start);
      rec.device = std::chrono::nanoseconds{static_cast<long long>(c.device_ns)};
    }
    r.timeline.push_back(rec);
  }
  std::sort(r.timeline.begin(), r.timeline.end(),
            [](const call_record& a, const call_record& b) { return a.index < b.index; });
  r.exceptions = n.exceptions;
  r.device_untimed = {n.captured, n.unavailable, n.dropped, n.sampled_out};
  const site::cold_view cold = s.cold_calls_seen();
  r.first_call_host = cold.first_host;
  // The CPU clock's two reads bracket the call and a few microseconds of the library's own
  // work: never more CPU time than the call lasted, as the report states it.
  if (r.first_call_host && r.first_call_host->cpu > r.host.first) r.first_call_host->cpu = r.host.first;
  const cause_store& store = cause_records();
  if (store.collecting.load(std::memory_order_acquire) || store.size() != 0) {
    if (cold.first) r.host.first_call_causes = attribute({*cold.first}, r.host);
    if (!cold.recent.empty()) r.host.cold_causes = attribute(cold.recent, r.host);
  }
  r.notes = notes_for(r);
  return r;
}

/// Says, once, where a report does not hold the whole process's sites: this copy of the library
/// kept an anchor apart from another release's (process.hpp), or copies of another release kept
/// theirs apart from this one. Each such copy writes its own report, its files tagged with the pid.
inline void say_what_is_apart() {
  notices& board = notice_board();
  if (board.raised(notice_kind::copies_apart)) return;
  if (const char* why = kept_apart()) {
    board.raise(notice_kind::copies_apart,
                "this is the report of a second copy of warmup in this process (" + this_copy_file() + "), kept apart: " +
                    why + "; the sites of the process's copy are not here, nor this copy's there (at exit this copy's "
                    "files are tagged with the pid)");
    return;
  }
  const std::string apart = copies_kept_apart();
  if (apart.empty()) return;
  std::string files;
  for (std::size_t at = 0; at < apart.size();) {
    const std::size_t end = std::min(apart.find('\n', at), apart.size());
    if (end > at) files += (files.empty() ? "" : ", ") + apart.substr(at, end - at);
    at = end + 1;
  }
  board.raise(notice_kind::copies_apart,
              "a second copy of warmup in this process, of another release (" + files +
                  "), kept its sites apart: they are not in this report but in that copy's own (at exit its files are "
                  "tagged with the pid)");
}

}  // namespace detail

WARMUP_DETAIL_RUNTIME report snapshot(device_wait wait) {
  const detail::busy_section busy;
  report r;
  const bool closed = detail::cuda().closed.load(std::memory_order_acquire);
  const std::size_t pending =
      closed ? 0 : detail::rings().drain_all(wait == device_wait::yes ? detail::read_mode::wait : detail::read_mode::poll);
  r.device_pending = pending;
  r.identity = detail::identity_now();
  if (const auto flush = detail::cause_records().flush.load(std::memory_order_acquire)) flush();
  r.attribution_source = detail::cause_records().source_now();
  r.cpu_sampling = detail::sampling_line(detail::cause_records().sampling_status(), detail::cause_records().samples_lost());
  r.module_loading = detail::module_loading_mode();
  r.jit_cache = detail::jit_cache_settings();
  r.device = detail::describe_device(r.device_status);
  if (r.device && r.device->index >= 0 && r.device->index < detail::max_devices) {
    const std::uint64_t floor =
        detail::cuda().pair_floor_ns[static_cast<std::size_t>(r.device->index)].load(std::memory_order_relaxed);
    if (floor != 0) r.device->event_pair_floor = std::chrono::nanoseconds{static_cast<long long>(floor - 1)};
  }
  // A pair of clock readings now: the rate that converts every host figure comes from the
  // longest stretch the run has.
  detail::time_base& time = detail::host_time();
  time.calibrate(true);
  const detail::time_map conversion = time.map();
  r.host_clock = time.describe();
  for (detail::site* s : detail::sites().all()) {
    r.sites.push_back(detail::read_site(*s, conversion));
    r.library.site_bytes += s->bytes();
  }
  const detail::cuda_state& st = detail::cuda();
  r.library.nvtx_init = std::chrono::nanoseconds{detail::nvtx().init_ns};
  r.library.event_pools = std::chrono::nanoseconds{st.event_pool_ns.load()};
  r.library.event_pairs = st.event_pairs.load();
  r.library.device_probe = std::chrono::nanoseconds{static_cast<long long>(st.probe_ns.load())};
  detail::say_what_is_apart();
  r.notices = detail::notice_board().all();
  return r;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
