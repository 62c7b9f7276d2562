/// @file
/// @brief Joining cause records to cold calls: each call's time split among its causes.
///
/// A cold call (a site's first call, or a call after idling or `expect_cold()`) leaves a window
/// (its start, end and thread). Cause records (detail/causes.hpp) come later, from CUPTI's
/// buffers, into the process's cause store (detail/runtime/cause_store.hpp); `snapshot()` joins
/// each window with the records of its thread that overlap it (`attribute`, below). Records
/// nest (a JIT inside a module load, a load inside an API call): each instant of the window
/// belongs to the innermost record covering it, so no time is counted twice, and what no record
/// covers is the unattributed remainder.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/causes.hpp"
#include "warmup/detail/analysis/code_samples.hpp"
#include "warmup/detail/analysis/cpu_samples.hpp"
#include "warmup/report.hpp"
#include "warmup/remedy.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A cold call's span on its thread, in steady-clock ns.
struct cold_window {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint64_t thread = 0;  ///< gettid
  /// The thread's CPU clock at the call's start and end (CLOCK_THREAD_CPUTIME_ID), where read
  /// (first calls): what the call spent off the CPU. 0 and 0 where not read.
  std::uint64_t cpu_start_ns = 0, cpu_end_ns = 0;
  std::uint64_t major_faults = 0;  ///< page faults that read from disk, where read
};

/// How a window's time splits among causes.
struct split {
  std::array<std::uint64_t, cause_count> ns{};
  std::array<std::uint64_t, cause_count> count{};  ///< records that own some of the time
  std::uint64_t named = 0;                         ///< the sum of `ns`: never more than the window
  /// The spans some record owns, in order, adjacent ones merged: where CPU samples are not needed.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> covered;
  /// The same spans by owner's cause, in order, adjacent ones of one cause merged: where in the
  /// call each cause's time went (the timeline draws them).
  struct piece {
    cause what;
    std::uint64_t start_ns, end_ns;
  };
  std::vector<piece> pieces;

  bool covers(std::uint64_t t) const noexcept {
    auto it = std::upper_bound(covered.begin(), covered.end(), t,
                               [](std::uint64_t v, const std::pair<std::uint64_t, std::uint64_t>& c) { return v < c.first; });
    return it != covered.begin() && t < std::prev(it)->second;
  }
};

/// Splits window `w` among `records`: records of another thread are left out (a record of thread
/// 0 says no thread and joins any), each is clipped to the window, and each instant goes to the
/// innermost record covering it: the one that began last, or of two that began together the one
/// that ends first.
inline split split_window(const cold_window& w, const std::vector<cause_record>& records) {
  split out;
  std::vector<cause_record> mine;
  for (const cause_record& r : records) {
    if (r.thread != 0 && w.thread != 0 && r.thread != w.thread) continue;
    const std::uint64_t a = std::max(r.start_ns, w.start_ns), b = std::min(r.end_ns, w.end_ns);
    if (a >= b) continue;
    mine.push_back({r.what, a, b, r.thread});
  }
  if (mine.empty()) return out;
  std::vector<std::uint64_t> cuts;
  cuts.reserve(2 * mine.size());
  for (const cause_record& r : mine) cuts.push_back(r.start_ns), cuts.push_back(r.end_ns);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<bool> owns(mine.size(), false);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::uint64_t a = cuts[i], b = cuts[i + 1];
    std::size_t best = mine.size();
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const cause_record& r = mine[k];
      if (r.start_ns > a || r.end_ns < b) continue;
      if (best == mine.size() || r.start_ns > mine[best].start_ns ||
          (r.start_ns == mine[best].start_ns && r.end_ns < mine[best].end_ns))
        best = k;
    }
    if (best == mine.size()) continue;
    out.ns[static_cast<std::size_t>(mine[best].what)] += b - a;
    out.named += b - a;
    owns[best] = true;
    if (!out.covered.empty() && out.covered.back().second == a) out.covered.back().second = b;
    else out.covered.emplace_back(a, b);
    if (!out.pieces.empty() && out.pieces.back().end_ns == a && out.pieces.back().what == mine[best].what)
      out.pieces.back().end_ns = b;
    else out.pieces.push_back({mine[best].what, a, b});
  }
  for (std::size_t k = 0; k < mine.size(); ++k)
    if (owns[k]) ++out.count[static_cast<std::size_t>(mine[k].what)];
  return out;
}

/// A CPU sample of a cold call (detail/analysis/cpu_sampler.hpp), with the thread that took it and the
/// CPU time it stands for. An interval of one instant, for the store's `interval_set`
/// (detail/runtime/cause_store.hpp).
struct thread_sample {
  std::uint64_t start_ns = 0, end_ns = 0;  ///< end = start + 1
  std::uintptr_t pc = 0;
  std::uint64_t thread = 0;
  std::uint64_t weight_ns = 0;  ///< the thread's CPU time since the sample before
  std::uint64_t cpu_ns = 0;     ///< the thread's CPU clock when it was taken
  /// The tick's period where it samples user mode only (a task clock), else 0 (cpu_samples.hpp).
  std::uint64_t user_period_ns = 0;
  /// The call's ticks went uncounted after this, its last sample (sampled_call::cut_short): the
  /// CPU time after it is unknown.
  bool cut_after = false;
  /// Taken by another call's timer on this thread (cpu_sampler.hpp, `arm_others`): what the
  /// thread did while that call waited, never one of this thread's own calls' samples (its own
  /// tick samples those), so that no CPU time counts twice.
  bool for_others = false;
};

/// The CPU time of a window that no record covers, by shared object, or by Python module where
/// a sample fell in the interpreter and a code sample names what it ran: each sample outside the
/// records' spans stands for the CPU time since the sample before, and the total is held to the
/// uncovered wall time (a thread cannot spend more CPU than wall). Objects by cause and name, with
/// their samples and, for Python code, the functions.
struct host_code_split {
  struct function {
    std::string name;
    std::uint64_t ns = 0;
    std::uint64_t samples = 0;
  };
  struct object {
    cause what = cause::host_code;
    std::string where;
    std::uint64_t ns = 0;
    std::uint64_t samples = 0;
    std::vector<function> functions;  ///< python_code's

    void add(std::uint64_t n, std::uint64_t count, const std::string* fn) {
      ns += n, samples += count;
      if (fn != nullptr) add_function(*fn, n, count);
    }
    void merge(const object& o) {
      ns += o.ns, samples += o.samples;
      for (const function& f : o.functions) add_function(f.name, f.ns, f.samples);
    }
    /// Adds to function `fn`'s share alone (the object's own is added apart).
    void add_function(const std::string& fn, std::uint64_t n, std::uint64_t count) {
      auto it = std::find_if(functions.begin(), functions.end(), [&](const function& f) { return f.name == fn; });
      if (it == functions.end()) functions.push_back({fn, n, count});
      else it->ns += n, it->samples += count;
    }
  };
  std::vector<object> objects;
  std::uint64_t named = 0;

  /// The object of cause `what` named `where`, made if new.
  object& of(cause what, const std::string& where) {
    auto it = std::find_if(objects.begin(), objects.end(), [&](const object& o) { return o.what == what && o.where == where; });
    if (it == objects.end()) it = objects.insert(objects.end(), object{what, where, 0, 0, {}});
    return *it;
  }
};

/// What names CPU sample `x` of a thread whose Python code is `code`: where it ran the
/// interpreter and a code sample names it, the Python module (`python_code`), with the function
/// in `function`; elsewhere its shared object (`host_code`), with the Python code that called
/// into it in `function` ("module.function"), or none.
template <class NameOf>
host_code_split::object& object_named(host_code_split& out, const thread_sample& x, const code_view& code,
                                      NameOf&& name_of, std::string& function) {
  const code_name* py = code.at(x.start_ns);
  function.clear();
  if (py != nullptr && code.runs_python(x.pc)) {
    function = py->function;
    return out.of(cause::python_code, py->module);
  }
  if (py != nullptr) function = py->module + "." + py->function;
  return out.of(cause::host_code, name_of(x.pc));
}

template <class NameOf>
host_code_split split_samples(const cold_window& w, const split& records, const std::vector<thread_sample>& samples,
                              const code_view& code, NameOf&& name_of) {
  host_code_split out;
  std::uint64_t weight = 0;
  // A task clock's ticks after its last sample all found the thread in the kernel (or there
  // would be a later sample): a period each, put on the kernel at that last sample's instant.
  // Not where ticks went uncounted (a full buffer): that time is unknown, left unattributed.
  // The last tick may stand as two samples at one instant (its kernel share kept apart,
  // cause_store.hpp): a cut on either is the call's.
  const thread_sample* last = nullptr;
  for (const thread_sample& x : samples)
    if (x.pc != clock_reading_pc && x.start_ns >= w.start_ns && x.start_ns < w.end_ns &&
        (last == nullptr || x.start_ns > last->start_ns || (x.start_ns == last->start_ns && x.cut_after)))
      last = &x;
  std::vector<thread_sample> tail;
  if (last != nullptr && !last->cut_after && last->user_period_ns != 0 && w.cpu_end_ns > last->cpu_ns) {
    const std::uint64_t p = last->user_period_ns, missed = (w.cpu_end_ns - last->cpu_ns) / p;
    if (missed != 0) tail.push_back({last->start_ns, last->end_ns, kernel_pc, last->thread, missed * p, w.cpu_end_ns, p});
  }
  const auto take = [&](const thread_sample& x) {
    if (x.pc == clock_reading_pc || x.start_ns < w.start_ns || x.start_ns >= w.end_ns || records.covers(x.start_ns))
      return;
    // Python code ran where the interpreter did; elsewhere it is what called the object's code.
    std::string function;
    object_named(out, x, code, name_of, function).add(x.weight_ns, 1, function.empty() ? nullptr : &function);
    weight += x.weight_ns;
  };
  for (const thread_sample& x : samples) take(x);
  for (const thread_sample& x : tail) take(x);
  const std::uint64_t span = w.end_ns - w.start_ns;
  const std::uint64_t room = span > records.named ? span - records.named : 0;
  if (weight > room) {  // scale down, keeping the sum exact
    const auto scaled = [&](std::uint64_t v) { return static_cast<std::uint64_t>(double(v) * double(room) / double(weight)); };
    std::uint64_t given = 0;
    for (auto& o : out.objects) {
      given += (o.ns = scaled(o.ns));
      for (auto& f : o.functions) f.ns = scaled(f.ns);
    }
    if (!out.objects.empty()) out.objects.front().ns += room - std::min(room, given);
    weight = room;
  }
  out.named = weight;
  return out;
}

/// The time a window's thread spent off the CPU where no record covers, from its CPU clock read
/// at the window's ends and at each sample: between two readings, wall time less CPU time is
/// time off the CPU, put on the uncovered part of that stretch in proportion to its length (a
/// record owns what it covers, waiting or not). Held to `room`, the window's time nothing else
/// named; 0 where the window's CPU clock was not read. Where the thread ran Python code, each
/// stretch's waiting goes to the functions its code samples found it in (else to the next one's):
/// `in->functions`, "module.function", scaled as the total is.
/// A stretch of a window between two readings of its thread's CPU clock, and the share of it
/// the thread spent off the CPU.
struct off_cpu_stretch {
  std::uint64_t start_ns, end_ns;
  double off;  ///< (wall - CPU) / wall, in (0, 1]
};

inline std::uint64_t waiting_in(const cold_window& w, const split& records, const std::vector<thread_sample>& samples,
                                std::uint64_t room, const code_view& code = {},
                                host_code_split::object* in = nullptr, std::vector<off_cpu_stretch>* stretches = nullptr) {
  if (w.cpu_end_ns == 0 || w.cpu_end_ns < w.cpu_start_ns || w.end_ns <= w.start_ns) return 0;
  host_code_split::object python;  // where the Python code waited, before scaling
  // Stretches come in order and the covered spans are sorted and apart: one walk over both, not a
  // scan of every span per stretch (a first forward has thousands of each).
  std::size_t next = 0;
  const auto uncovered = [&](std::uint64_t a, std::uint64_t b) {
    const auto& spans = records.covered;
    while (next < spans.size() && spans[next].second <= a) ++next;
    std::uint64_t covered = 0;
    for (std::size_t i = next; i < spans.size() && spans[i].first < b; ++i)
      covered += std::min(b, spans[i].second) - std::max(a, spans[i].first);
    return b - a - std::min(b - a, covered);
  };
  double waiting = 0;
  std::uint64_t t = w.start_ns, cpu = w.cpu_start_ns;
  const auto stretch = [&](std::uint64_t t2, std::uint64_t cpu2) {
    if (t2 <= t) return;
    const std::uint64_t wall = t2 - t, on_cpu = cpu2 > cpu ? cpu2 - cpu : 0;
    if (wall > on_cpu) {
      const double here = double(wall - on_cpu) * double(uncovered(t, t2)) / double(wall);
      waiting += here;
      if (stretches != nullptr) stretches->push_back({t, t2, double(wall - on_cpu) / double(wall)});
      if (in != nullptr && here >= 1 && !code.samples.empty()) {
        std::vector<const code_name*> seen;
        code.each_in(t, t2, [&](const code_name& n) { seen.push_back(&n); });
        if (seen.empty())
          if (const code_name* later = code.at(t2)) seen.push_back(later);
        for (const code_name* n : seen) {
          const std::string where = n->module + "." + n->function;
          python.add(static_cast<std::uint64_t>(here / double(seen.size())), 1, &where);
        }
      }
    }
    t = t2;
    cpu = std::max(cpu, cpu2);
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> readings;  // (when, CPU clock), in order
  for (const thread_sample& x : samples)
    if (x.start_ns > w.start_ns && x.start_ns < w.end_ns && x.cpu_ns >= w.cpu_start_ns && x.cpu_ns <= w.cpu_end_ns)
      readings.emplace_back(x.start_ns, x.cpu_ns);
  std::sort(readings.begin(), readings.end());
  for (const auto& [when, cpu_then] : readings) stretch(when, cpu_then);
  stretch(w.end_ns, w.cpu_end_ns);
  // Samples' times come from the steady clock, the window's from the scopes' clock converted:
  // a few microseconds apart, never to make more waiting than the call spent off the CPU.
  const std::uint64_t span = w.end_ns - w.start_ns, on_cpu = w.cpu_end_ns - w.cpu_start_ns;
  const std::uint64_t off_cpu = span > on_cpu ? span - on_cpu : 0;
  const std::uint64_t kept = std::min({room, off_cpu, static_cast<std::uint64_t>(waiting)});
  if (in != nullptr && waiting > 0) {
    for (auto& f : python.functions) f.ns = static_cast<std::uint64_t>(double(f.ns) * double(kept) / waiting);
    in->merge(python);
  }
  return kept;
}

/// What other threads' records explain of a window's waiting: the records of threads other than
/// the window's, as one timeline (each instant to the innermost record, split_window's rule),
/// counted only where the window's thread was off the CPU (each stretch by its share off it) and
/// where no record of its own covers, held to `waited`, the waiting the window was named.
inline std::array<std::uint64_t, cause_count> others_while_waiting(const split& own, const split& theirs,
                                                                    const std::vector<off_cpu_stretch>& stretches,
                                                                    std::uint64_t waited,
                                                                    std::array<std::uint64_t, cause_count>& count) {
  std::array<std::uint64_t, cause_count> out{};
  if (theirs.pieces.empty() || stretches.empty() || waited == 0) return out;
  std::array<double, cause_count> ns{};
  double total = 0;
  for (const split::piece& p : theirs.pieces) {
    auto s = std::lower_bound(stretches.begin(), stretches.end(), p.start_ns,
                              [](const off_cpu_stretch& x, std::uint64_t v) { return x.end_ns <= v; });
    for (; s != stretches.end() && s->start_ns < p.end_ns; ++s) {
      const std::uint64_t a = std::max(p.start_ns, s->start_ns), b = std::min(p.end_ns, s->end_ns);
      if (a >= b) continue;
      std::uint64_t mine = 0;  // of [a, b), what the window's own records cover (sorted, apart)
      auto c = std::lower_bound(own.covered.begin(), own.covered.end(), a,
                                [](const std::pair<std::uint64_t, std::uint64_t>& x, std::uint64_t v) { return x.second <= v; });
      for (; c != own.covered.end() && c->first < b; ++c) mine += std::min(b, c->second) - std::max(a, c->first);
      const double here = double(b - a - std::min(b - a, mine)) * s->off;
      ns[static_cast<std::size_t>(p.what)] += here;
      total += here;
    }
  }
  const double scale = total > double(waited) ? double(waited) / total : 1.0;
  for (std::size_t c = 0; c < cause_count; ++c) {
    out[c] = static_cast<std::uint64_t>(ns[c] * scale);
    if (out[c] != 0) count[c] += theirs.count[c];
  }
  return out;
}

/// What other threads' CPU samples explain of a window's waiting, by shared object or, where a
/// thread ran Python code, by Python module and function as the window's own samples are
/// (`code_of(thread)`: that thread's code samples, a code_view): each sample taken while the
/// window's thread was off the CPU (by that stretch's share off it), where no record of that time
/// names it (theirs or the window's own), held to `room`: the waiting their records left.
template <class NameOf, class CodeOf>
host_code_split others_samples_while_waiting(const split& own, const split& theirs,
                                             const std::vector<thread_sample>& samples,
                                             const std::vector<off_cpu_stretch>& stretches, std::uint64_t room,
                                             NameOf&& name_of, CodeOf&& code_of) {
  host_code_split out;
  if (samples.empty() || stretches.empty() || room == 0) return out;
  double total = 0;
  struct share {
    std::size_t object;  // an index: objects may move
    std::string function;
    double ns;
  };
  std::vector<share> taken;
  for (const thread_sample& x : samples) {
    // The stretch the sample's CPU time ran in: the one that ends at it where one does (the
    // waiting call's clock is read at each of its workers' samples).
    const auto s = std::lower_bound(stretches.begin(), stretches.end(), x.start_ns,
                                    [](const off_cpu_stretch& v, std::uint64_t t) { return v.end_ns < t; });
    if (s == stretches.end() || s->start_ns > x.start_ns || own.covers(x.start_ns) || theirs.covers(x.start_ns)) continue;
    const double here = double(x.weight_ns) * s->off;
    std::string function;
    host_code_split::object& o = object_named(out, x, code_of(x.thread), name_of, function);
    o.add(0, 1, nullptr);
    taken.push_back({static_cast<std::size_t>(&o - out.objects.data()), std::move(function), here});
    total += here;
  }
  const double scale = total > double(room) ? double(room) / total : 1.0;
  for (share& t : taken) {
    const auto ns = static_cast<std::uint64_t>(t.ns * scale);
    host_code_split::object& o = out.objects[t.object];
    o.ns += ns;
    if (!t.function.empty()) o.add_function(t.function, ns, 1);
  }
  for (const auto& o : out.objects) out.named += o.ns;
  return out;
}

/// Joins cold windows with the cause records that overlap them, and what no record covers with
/// the CPU samples taken there: the causes of `windows`, against the steady p50 of `t`. `store`
/// hands each window's evidence (`overlapping(w)`: the records that may fall in it,
/// `samples_in(w)`: its thread's CPU samples, `code_in(w)`: the Python code it ran (`code_in(w,
/// thread)`: another thread's),
/// `others_overlapping(w)` and `others_samples_in(w)`: other threads' records and CPU samples, for
/// `other_threads`; the process's
/// cause store, detail/runtime/cause_store.hpp); `name_of` names a sample's shared object (object_of, detail/analysis/cpu_sampler.hpp).
/// What a cause's count holds is its row's (`cause_evidence`, cause.hpp).
template <class Store, class NameOf>
attribution attribute(const std::vector<cold_window>& windows, const timing& t, const Store& store, NameOf&& name_of) {
  constexpr std::size_t off_cpu = static_cast<std::size_t>(cause_counting(cause_evidence::major_faults));
  attribution a;
  const std::int64_t p50 = t.steady ? t.steady->p50.count() : 0;
  std::array<std::uint64_t, cause_count> ns{}, count{};
  host_code_split host;              // every window's samples, by object or module
  host_code_split::object waited_in;  // where Python code waited: the functions of waiting's cause
  std::array<std::uint64_t, cause_count> others_ns{}, others_count{};  // other threads' records, while it waited
  host_code_split others_host;                                         // and their CPU samples
  std::int64_t call = 0, excess = 0, named = 0;
  for (const cold_window& w : windows) {
    std::vector<std::pair<std::uint64_t, code_view>> others_code;  // each other thread's, read once
    const auto code_of = [&](std::uint64_t thread) -> const code_view& {
      for (const auto& [seen, v] : others_code)
        if (seen == thread) return v;
      return others_code.emplace_back(thread, store.code_in(w, thread)).second;
    };
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
    const code_view code = store.code_in(w);
    const host_code_split hc = split_samples(w, sp, samples, code, name_of);
    for (const auto& o : hc.objects) host.of(o.what, o.where).merge(o);
    const auto d = static_cast<std::int64_t>(w.end_ns - w.start_ns);
    const std::uint64_t span = w.end_ns - w.start_ns, taken = sp.named + hc.named;
    std::vector<off_cpu_stretch> stretches;
    const std::uint64_t waited =
        waiting_in(w, sp, samples, span > taken ? span - taken : 0, code, &waited_in, &stretches);
    cold_window any = w;
    any.thread = 0;  // other threads' records, as one timeline
    const split theirs = split_window(any, store.others_overlapping(w));
    const auto by_records = others_while_waiting(sp, theirs, stretches, waited, others_count);
    std::uint64_t left = waited;
    for (std::size_t c = 0; c < cause_count; ++c) others_ns[c] += by_records[c], left -= std::min(left, by_records[c]);
    const host_code_split by_samples =
        others_samples_while_waiting(sp, theirs, store.others_samples_in(w), stretches, left, name_of, code_of);
    for (const auto& o : by_samples.objects) others_host.of(o.what, o.where).merge(o);
    ns[off_cpu] += waited;
    if (waited != 0) count[off_cpu] += w.major_faults;
    call += d;
    excess += d - p50;
    named += static_cast<std::int64_t>(taken + waited);
  }
  const auto nanos = [](std::uint64_t v) { return std::chrono::nanoseconds{static_cast<long long>(v)}; };
  const auto hottest = [&](std::vector<host_code_split::function>& from, std::vector<code_time>& to) {
    std::sort(from.begin(), from.end(), [](const auto& x, const auto& y) { return x.ns > y.ns; });
    for (std::size_t i = 0; i < from.size() && i < cause_time::functions_kept; ++i)
      if (from[i].ns != 0) to.push_back({std::move(from[i].name), nanos(from[i].ns), from[i].samples});
  };
  for (std::size_t c = 0; c < cause_count; ++c) {
    if (ns[c] == 0) continue;
    // The time off the CPU's count: the major page faults meanwhile, its evidence.
    a.causes.push_back({static_cast<cause>(c), nanos(ns[c]), count[c], {}, {}});
    if (c == off_cpu) hottest(waited_in.functions, a.causes.back().functions);
  }
  for (auto& h : host.objects) {
    if (h.ns == 0) continue;
    a.causes.push_back({h.what, nanos(h.ns), h.samples, std::move(h.where), {}});
    hottest(h.functions, a.causes.back().functions);
  }
  for (std::size_t c = 0; c < cause_count; ++c)
    if (others_ns[c] != 0) a.other_threads.push_back({static_cast<cause>(c), nanos(others_ns[c]), others_count[c], {}, {}});
  for (auto& h : others_host.objects) {
    if (h.ns == 0) continue;
    a.other_threads.push_back({h.what, nanos(h.ns), h.samples, std::move(h.where), {}});
    hottest(h.functions, a.other_threads.back().functions);
  }
  const auto largest_first = [](const cause_time& x, const cause_time& y) { return x.time > y.time; };
  std::sort(a.causes.begin(), a.causes.end(), largest_first);
  std::sort(a.other_threads.begin(), a.other_threads.end(), largest_first);
  a.calls = windows.size();
  a.call = std::chrono::nanoseconds{call};
  a.excess = std::chrono::nanoseconds{excess};
  a.named = std::chrono::nanoseconds{named};
  a.unattributed = a.excess - a.named;
  a.remedies = remedies_for(a);
  return a;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
