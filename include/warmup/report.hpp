/// @file
/// @brief The report: per-site first-call and steady-state figures (made by `warmup::snapshot()`).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/cause.hpp"
#include "warmup/op.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief Steady-state figures of a site: every call after its warm-up, cold recurrences apart.
///
/// Percentiles are nearest-rank. They are exact while the steady calls all fall among a site's
/// first 64 calls; beyond that, later calls are counted in a log-linear histogram and a
/// percentile is within 1/128 (0.78%) of the true value. `min`, `max` and `mean` are exact;
/// `stddev` (the sample standard deviation) is computed from exact sums. docs/reading-the-report.md
/// says how each figure is computed.
/// \code
///   if (s.host.steady && s.host.steady->enough_calls)
///     std::cout << s.host.steady->p50.count() << " ns\n";
/// \endcode
struct steady_state {
  /// Fewer steady calls than this and the report warns that the p50 is not to be trusted.
  static constexpr std::uint64_t enough = 20;
  std::uint64_t calls = 0;  ///< steady calls: every call after the warm-up, cold recurrences apart
  ///@{
  /// Nearest-rank percentiles of the steady calls: the median, the 90th, 99th and 99.9th.
  std::chrono::nanoseconds p50{}, p90{}, p99{}, p999{};
  ///@}
  ///@{
  /// The least and the greatest steady call, their mean and sample standard deviation (exact).
  std::chrono::nanoseconds min{}, max{}, mean{}, stddev{};
  ///@}
  ///@{
  /// Distribution-free 95% confidence interval of the p50 (order statistics); empty below 6
  /// calls, where no such interval exists.
  std::optional<std::chrono::nanoseconds> p50_low, p50_high;
  ///@}
  bool enough_calls = false;  ///< calls >= enough
};

/// @brief One Python function's share of a cause, in a Python process with CPU sampling on: the
/// time of the samples that found it the innermost Python frame, and how many did.
/// \code
///   for (const warmup::code_time& f : cause.functions)
///     std::cout << f.function << ": " << f.time.count() << " ns\n";
/// \endcode
struct code_time {
  /// For `python_code`: the rest of the module's name past `where`, and the function's qualified
  /// name ("symbolic_convert.InstructionTranslator.step"); for `host_code` and `waiting`: the
  /// module and the function that called into the object or waited ("torch._inductor.codecache.
  /// build_code_hash").
  std::string function;
  std::chrono::nanoseconds time{};  ///< the time of the samples that found it (CPU or waiting)
  std::uint64_t count = 0;          ///< code samples
};

/// @brief Time a cold call spent on one cause, and how many records of that cause it took.
/// \code
///   for (const warmup::cause_time& c : why.causes)
///     std::cout << warmup::describe(c.what) << ": " << c.time.count() << " ns\n";
/// \endcode
struct cause_time {
  cause what = cause::module_load;  ///< the cause
  std::chrono::nanoseconds time{};  ///< the call's time spent on it (each instant counted once)
  std::uint64_t count = 0;  ///< records, or for `host_code` and `python_code` CPU samples
  /// For `host_code`: the shared object the samples fell in ("libcudnn_heuristic.so.9"); for
  /// `python_code`: the Python module the code was in, to its second dotted name
  /// ("torch._dynamo"); empty for the other causes.
  std::string where;
  /// In a Python process: the Python code the cause's time was spent in, largest first (at most
  /// `functions_kept`): `python_code`'s functions, and what called `host_code`'s object or waited.
  std::vector<code_time> functions;
  static constexpr std::size_t functions_kept = 8;  ///< the most `functions` holds
};

/// @brief Where in a first call one cause's time went: a stretch of the call that cause's
/// records own (the innermost, where records nest), from the call's start.
///
/// The timeline (`to_trace`) draws these under the first call, so Perfetto shows the module
/// loads, lazy kernel loads, JIT and allocations where they happened inside it.
/// \code
///   for (const warmup::cause_span& p : why.spans)
///     std::cout << warmup::describe(p.what) << " at +" << p.at.count() << " ns\n";
/// \endcode
struct cause_span {
  cause what = cause::module_load;  ///< the cause whose records own the stretch
  std::chrono::nanoseconds at{};    ///< from the call's start
  std::chrono::nanoseconds time{};  ///< its length
};

/// @brief A remedy that applies to a cold call (warmup/remedy.hpp), and what it could save on
/// it: the part of the call's excess its causes took.
/// \code
///   for (const warmup::remedy_saving& r : why.remedies)
///     std::cout << r.remedy << " could save " << r.could_save.count() << " ns\n";
/// \endcode
struct remedy_saving {
  std::string remedy;  ///< its name: "prewarm_kernels", "module_loading_eager", ...
  std::chrono::nanoseconds could_save{};  ///< at most the call's excess
};

/// @brief Why a cold call was slow: its excess over the steady p50, split among named causes
/// (from CUPTI, with `WARMUP_ATTRIBUTION=1`), and the remainder no record explains.
///
/// The causes are a partition of the call's time: where records nest (a JIT inside a module
/// load), each instant counts once, for the innermost. `named + unattributed == excess` exactly;
/// `unattributed` is negative when the named causes exceed the excess (the steady calls spend
/// time on the same causes, or the steady p50 is larger than the call's share of the work), and
/// the report says so instead of clamping it.
/// \code
///   if (const auto& why = s.host.first_call_causes)
///     for (const warmup::cause_time& c : why->causes) std::cout << warmup::describe(c.what) << '\n';
/// \endcode
struct attribution {
  std::chrono::nanoseconds call{};          ///< the call's host time (summed over the calls)
  std::chrono::nanoseconds excess{};        ///< call - steady p50 (the call, without a steady state)
  std::vector<cause_time> causes;           ///< largest first
  std::chrono::nanoseconds named{};         ///< the causes together
  std::chrono::nanoseconds unattributed{};  ///< excess - named
  std::uint64_t calls = 0;                  ///< calls joined (1 for a first call)
  /// A first call's record-named stretches, in order (at most `span_limit`); empty for the
  /// calls cold again, which are many calls apart. CPU samples and waiting have no stretch:
  /// they are spread over the call, and `causes` holds their totals.
  std::vector<cause_span> spans;
  std::uint64_t spans_left_out = 0;  ///< stretches after the first `span_limit`
  /// Enough for a first forward's module and kernel loads (a few hundred), bounded so that a
  /// report of many sites stays small.
  static constexpr std::size_t span_limit = 512;
  /// What the process's other threads did while the calls waited (CUPTI's records of theirs:
  /// PyTorch's backward loads its kernels on its engine thread; with CPU sampling, their samples
  /// as `host_code` by object), largest first. Kept apart from
  /// `causes`, which they do not add to: they say why the time `waiting` names was spent waiting,
  /// and only where the call was off the CPU, so that a thread working beside a busy call is not
  /// blamed for it.
  std::vector<cause_time> other_threads;
  /// The remedies its causes support, largest saving first (`remedies_for`, warmup/remedy.hpp).
  std::vector<remedy_saving> remedies;
};

/// @brief What a site's first call did on the host, measured around it by the library (always,
/// with or without CUPTI): the thread's CPU time against the wall (working or waiting), page
/// faults, and shared libraries the process loaded meanwhile.
/// \code
///   if (s.first_call_host && !s.first_call_host->libraries_loaded.empty())
///     std::cout << "the first call loaded " << s.first_call_host->libraries_loaded[0] << '\n';
/// \endcode
struct host_signals {
  std::chrono::nanoseconds cpu{};  ///< the thread's CPU time (user + system) during the call
  std::uint64_t minor_faults = 0;  ///< page faults served from memory
  std::uint64_t major_faults = 0;  ///< page faults that read from disk
  std::vector<std::string> libraries_loaded;  ///< shared objects that appeared, by file name
  /// For device-timed calls: whether the device's primary context existed when the call began
  /// (false: the call paid for creating it). Empty where not known.
  std::optional<bool> context_existed;
  /// For device-timed calls whose context existed: the device memory the call took, in bytes
  /// (free memory before less after, cudaMemGetInfo; negative where it gave some back). The
  /// device's, so another thread's or process's allocations meanwhile count too, and an
  /// allocation served from memory a caching allocator already holds does not. Read at first
  /// calls only. Empty where not read: no GPU, no context yet, host-timed.
  std::optional<std::int64_t> device_memory_taken;
};

/// @brief One clock domain (host or device) of one site.
///
/// `steady` is empty when no call came after the warm-up (a site called once, say), and so is
/// `first_call_excess`: the report never invents a number.
/// \code
///   const warmup::timing& t = site.host;
///   std::cout << t.first.count() << " ns first, " << t.warmup_calls << " warm-up calls\n";
/// \endcode
struct timing {
  std::uint64_t calls = 0;            ///< measured calls in this domain
  std::chrono::nanoseconds first{};   ///< the first measured call
  std::uint64_t warmup_calls = 0;     ///< leading calls found slower than the steady state
  std::chrono::nanoseconds total{};   ///< all measured calls together
  std::optional<steady_state> steady;  ///< the calls after the warm-up; empty: none came
  std::optional<std::chrono::nanoseconds> first_call_excess;  ///< first - steady p50
  /// What the whole warm-up cost: the sum over warm-up calls of (call - steady p50).
  std::chrono::nanoseconds warmup_excess{};
  /// Calls after idling (or after warmup::expect_cold()) that ran above the steady band: counted
  /// here and kept out of the steady figures.
  std::uint64_t cold_recurrences = 0;
  std::chrono::nanoseconds cold_excess{};  ///< their total excess over the steady p50
  /// Why the first call was slow (host clock, with attribution on); empty otherwise.
  std::optional<attribution> first_call_causes;
  /// The same for the calls made after idling or `expect_cold()`, together.
  std::optional<attribution> cold_causes;
};

/// @brief Which clock a figure was read from.
enum class clock_domain {
  host,    ///< the host's clock: the cycle counter or steady_clock
  device   ///< the GPU's, through CUDA events
};

namespace detail {
inline constexpr std::size_t clock_domain_count = 2;
static_assert(static_cast<std::size_t>(clock_domain::device) + 1 == clock_domain_count,
              "warmup: clock_domain_count must follow the last clock domain");
}  // namespace detail

/// @brief The name of a clock domain as written in reports: "host" or "device".
constexpr std::string_view to_string(clock_domain c) noexcept { return c == clock_domain::host ? "host" : "device"; }

/// @brief Bytes moved by a copy site (or allocated by an allocation site), and for copies the
/// bandwidth they give.
///
/// Bandwidth is in GB/s (1e9 bytes a second), from device time when the site has it, host time
/// otherwise (`gbps_clock` says which). Allocation sites report bytes and no bandwidth. The steady figure needs every call to move the same number of bytes; where sizes
/// vary it is empty and `mean_gbps` (all bytes over all time) is the figure to read.
/// \code
///   if (s.bytes && s.bytes->steady_gbps) std::cout << *s.bytes->steady_gbps << " GB/s\n";
/// \endcode
struct transfer {
  std::uint64_t first = 0;            ///< bytes of the first call
  std::uint64_t total = 0;            ///< bytes of all calls
  bool sizes_vary = false;            ///< calls moved different numbers of bytes
  bool total_saturated = false;       ///< the total passed 2^64 - 1 and stays there
  std::optional<clock_domain> gbps_clock;  ///< the clock the bandwidth is from; empty: no bandwidth
  std::optional<double> first_gbps;   ///< the first call
  std::optional<double> steady_gbps;  ///< bytes per call over the steady p50 (equal sizes only)
  std::optional<double> mean_gbps;    ///< all bytes over the time of all calls
  ///@{
  /// Copies given their host pointer: calls from pinned memory, and from pageable memory (which
  /// the driver stages through a pinned buffer of its own, synchronously to the host).
  std::uint64_t host_pinned_calls = 0;
  std::uint64_t host_pageable_calls = 0;
  ///@}
};

/// @brief What an allocation site's stream-ordered pool did (allocation scopes given a stream;
/// no CUPTI needed): the device's current pool's reserved bytes read before and after each call.
/// A pool with a release threshold of 0 gives its memory back at every synchronisation, so each
/// allocation after one grows it again: `grew_calls` close to `calls_read` says so.
/// \code
///   if (s.pool && s.pool->grew_calls > 1) std::cout << "raise the pool's release threshold\n";
/// \endcode
struct pool_growth {
  std::uint64_t calls_read = 0;   ///< calls whose pool could be read
  std::uint64_t grew_calls = 0;   ///< calls during which the pool reserved more memory
  std::uint64_t grown = 0;        ///< bytes reserved by those calls together
  std::uint64_t first_call = 0;   ///< bytes the first call made it reserve
};

/// @brief One call placed in time, for timelines: a site's first calls and a sample after.
///
/// Times count from when the library was loaded. Device times come from the call's events,
/// placed on the host clock through one reference event per device (within tens of
/// microseconds).
/// \code
///   for (const warmup::call_record& c : site.timeline)
///     std::cout << "call " << c.index << " at " << c.host_start.count() << " ns took " << c.host.count() << " ns\n";
/// \endcode
struct call_record {
  std::uint64_t index = 0;  ///< 0 = the site's first call
  ///@{
  /// When the call began on the host clock, and its host time.
  std::chrono::nanoseconds host_start{}, host{};
  ///@}
  ///@{
  /// When its device work began, and its device time; empty where not device-timed.
  std::optional<std::chrono::nanoseconds> device_start, device;
  ///@}
};

/// @brief Calls of a site that asked for device timing and were host-timed only, by reason.
/// \code
///   if (s.device_untimed.captured != 0) std::cout << "some calls ran inside a graph capture\n";
/// \endcode
struct untimed_calls {
  std::uint64_t captured = 0;     ///< their stream was being captured into a graph
  std::uint64_t unavailable = 0;  ///< no GPU, a CUDA error, or no context yet
  std::uint64_t dropped = 0;      ///< too many device measurements in flight
  std::uint64_t sampled_out = 0;  ///< warm and steady: device-timed on a sample only
};

/// @brief Everything measured at one site: a (kind, name) pair.
/// \code
///   for (const warmup::site_report& s : warmup::snapshot().sites)
///     std::cout << s.name << ": " << s.calls << " calls\n";
/// \endcode
struct site_report {
  std::string name;              ///< the name its scopes gave
  op_kind op = op_kind::region;  ///< the kind of its scopes
  std::uint64_t calls = 0;  ///< calls that have ended
  timing host;  ///< host-clock figures: every call
  std::optional<timing> device;  ///< empty when no call of the site was device-timed
  std::optional<transfer> bytes;  ///< copies and allocations given a byte count
  std::uint64_t exceptions = 0;   ///< calls left by an exception (still measured)
  untimed_calls device_untimed;   ///< calls that asked for device timing and got none
  std::optional<host_signals> first_call_host;  ///< what the first call did on the host
  std::optional<pool_growth> pool;  ///< allocation scopes given a stream, where the pool could be read
  std::vector<std::string> notes;        ///< plain-language reading of the figures
  // For the timeline and the picture (trace, SVG); in the JSON, not in the CSV (one cell a value):
  std::vector<std::chrono::nanoseconds> first_calls;  ///< host time of the first 64 calls, in order
  std::vector<call_record> timeline;     ///< the first calls and a thinning sample, in call order
};

/// @brief Who wrote a report: the process's place in a job, as its launcher's variables say
/// (`OMPI_COMM_WORLD_*`, `PMI_*`, `SLURM_*`, torchrun's `RANK` / `LOCAL_RANK` / `WORLD_SIZE`),
/// its host, pid and start, and the library's version. Empty ranks: not launched as a job, or
/// a value the library could not trust (said in the notices).
/// \code
///   const warmup::report r = warmup::snapshot();
///   if (r.identity.rank) std::cout << "rank " << *r.identity.rank << " on " << r.identity.host << '\n';
/// \endcode
struct run_identity {
  ///@{
  /// The process's rank in the job, its rank on this host, and the job's number of processes.
  std::optional<int> rank, local_rank, world_size;
  ///@}
  std::string launcher;  ///< "Open MPI", "PMI", "Slurm" or "torchrun": whose variables; empty: none
  std::string host;      ///< the machine's name
  int pid = 0;            ///< the process's id
  std::string started;   ///< when the library started, ISO 8601 UTC ("2026-11-26T23:59:59.123Z")
  std::string library_version = WARMUP_VERSION_STRING;  ///< warmup's, `WARMUP_VERSION_STRING`
};

/// @brief The GPU the report describes (the current device at snapshot time).
/// \code
///   const warmup::report r = warmup::snapshot();
///   if (const auto& d = r.device)
///     std::cout << d->name << ", compute capability " << d->compute_major << '.' << d->compute_minor << '\n';
/// \endcode
struct device_description {
  int index = 0;      ///< the CUDA device number
  std::string name;   ///< "NVIDIA H100 80GB HBM3"
  std::string uuid;  ///< as nvidia-smi writes it: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  ///@{
  /// The compute capability, major and minor (9 and 0 for an H100).
  int compute_major = 0, compute_minor = 0;
  ///@}
  int multiprocessors = 0;         ///< streaming multiprocessors
  std::uint64_t memory_bytes = 0;  ///< total device memory
  int driver_version = 0;   ///< e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  ///< e.g. 13000
  /// What an event pair with nothing between its events reads on this device, measured once
  /// when the library first times work there: every device duration includes it, so device
  /// times of short kernels read high by this much. Empty until measured.
  std::optional<std::chrono::nanoseconds> event_pair_floor;
};

/// @brief The library's own costs, kept apart from every measurement.
/// \code
///   const warmup::report r = warmup::snapshot();
///   const warmup::library_costs& c = r.library;
///   std::cout << c.event_pairs << " event pairs, " << c.site_bytes << " bytes of sites\n";
/// \endcode
struct library_costs {
  std::chrono::nanoseconds nvtx_init{};   ///< NVTX initialisation, paid before main
  std::chrono::nanoseconds event_pools{};  ///< making CUDA events (outside every scope's time)
  std::uint64_t event_pairs = 0;           ///< CUDA event pairs made
  std::uint64_t site_bytes = 0;            ///< memory held by all sites
  /// Looking for a GPU where none could be used (no device, no driver): charged here, not to
  /// the scope that looked, whose body could do no GPU work.
  std::chrono::nanoseconds device_probe{};
};

/// @brief A summary of every site, as returned by `warmup::snapshot()`.
/// \code
///   const warmup::report r = warmup::snapshot();
///   warmup::print(r, std::cout);
/// \endcode
struct report {
  bool enabled = enabled_at_compile_time;  ///< false when built with WARMUP_DISABLE
  run_identity identity;  ///< who wrote it
  std::optional<device_description> device;  ///< the GPU; empty: none described
  std::string device_status;  ///< "ok", or why device times are missing
  std::uint64_t device_pending = 0;  ///< device measurements not yet finished by the GPU
  /// "cupti", "off", or why attribution fell back to host signals (CUPTI missing, its slot taken):
  /// "host signals only: <why>", or with CPU sampling on "CPU samples and host signals, no CUPTI: <why>".
  std::string attribution_source = "off";
  /// "off", "every N us of CPU time in first calls (the tick that ran)" (`WARMUP_CPU_SAMPLING`), or
  /// why not.
  std::string cpu_sampling = "off";
  ///@{
  /// CUDA_MODULE_LOADING as the driver reads it ("LAZY" unless set), and the JIT cache settings
  /// (CUDA_CACHE_DISABLE, CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE), for reading first calls.
  std::string module_loading;
  std::string jit_cache;
  ///@}
  /// The clock host times were read with: "cycle counter (x86 TSC), 2.0950 GHz against
  /// steady_clock over 12.300 s (9 pairs)", or "steady_clock (why)" (`WARMUP_CLOCK=steady`, a
  /// CPU without an invariant counter, a counter that disagreed with steady_clock mid-run).
  std::string host_clock;
  library_costs library;  ///< the library's own costs
  std::vector<std::string> notices;  ///< the one-time messages the library printed
  std::vector<site_report> sites;  ///< in order of first use
  /// Whether the sites' `first_calls` and `timeline` were recorded: false for a report read
  /// back from a `warmup.report/2` document, which did not carry them, so that the trace and
  /// the picture say they are missing instead of drawing nothing. Not written to JSON.
  bool call_times_recorded = true;

  /// @brief The site of kind `op` named `name`, or nullptr.
  /// \code
  ///   if (const warmup::site_report* f = r.find(warmup::op_kind::region, "forward"))
  ///     std::cout << f->host.first.count() << " ns\n";
  /// \endcode
  const site_report* find(op_kind op, std::string_view name) const& noexcept {
    for (const site_report& s : sites)
      if (s.op == op && s.name == name) return &s;
    return nullptr;
  }
  /// A pointer into a report that is about to go away would dangle: keep the report first
  /// (`const warmup::report r = warmup::snapshot(); r.find(...)`).
  const site_report* find(op_kind op, std::string_view name) const&& = delete;
};

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
