/// @file
/// @brief What to do about a slow first call: the remedies, one row each, the causes each applies
/// to, and `remedies_for`, which ranks them by what they could save on one call.
///
/// docs/remedies.md has the same table in words, with `warmup-report advise` (the remedies of a
/// report already written) and `warmup-report try` (each remedy that needs no code, measured on the
/// user's own program).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/cause.hpp"
#include "warmup/config.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE

/// @brief A way to pay for a first call's cost ahead of time, or not at all.
///
/// `to_string` gives the name the report, `advise` and `try` use; `detail::remedy_table` holds
/// what each is and the causes it applies to.
/// \code
///   for (const warmup::remedy_saving& r : why.remedies)
///     std::cout << r.remedy << " could save " << r.could_save.count() << " ns\n";
/// \endcode
enum class remedy : std::uint8_t {
  prewarm_kernels,       ///< load (or JIT) the kernels before their first launch
  module_loading_eager,  ///< `CUDA_MODULE_LOADING=EAGER`: every module loaded with the context
  jit_cache_kept,        ///< the driver's JIT cache in a folder kept between runs
  build_for_the_gpu,     ///< SASS for the GPU in the build, so that nothing is JIT-compiled
  prewarm_pool,          ///< the stream-ordered pool grown once and kept
  pinned_buffer,         ///< host memory pinned once, before the work
  allocator_kept,        ///< memory allocated once at its high-water size and reused
  cublas_prewarm,        ///< each cuBLAS GEMM variant called once ahead
  compile_caches_kept,   ///< Inductor's and Triton's caches in folders kept between runs
  compile_artifacts,     ///< `torch.compile`'s caches saved once and loaded before the first call
  nccl_connect_at_init,  ///< `NCCL_RUNTIME_CONNECT=0`: NCCL connects its peers at init
  prewarm_on_a_thread,   ///< context, libraries and kernels made ready while the program reads its input
  until_steady,          ///< the call itself, called until it is steady before the real work
};

/// @brief How a remedy is applied: what `warmup-report try` can do with it.
enum class remedy_kind : std::uint8_t {
  environment,  ///< environment settings: `try` runs the program with them
  cache,        ///< folders kept between runs: `try` fills them with one run, then measures
  code,         ///< a change to the program: shown with its snippet, never measured by `try`
};

namespace detail {

/// A set of causes, one bit each.
using cause_set = std::uint32_t;
constexpr cause_set causes_of(std::initializer_list<cause> cs) noexcept {
  cause_set s = 0;
  for (const cause c : cs) s |= cause_set{1} << static_cast<unsigned>(c);
  return s;
}
constexpr bool has_cause(cause_set s, cause c) noexcept { return ((s >> static_cast<unsigned>(c)) & 1u) != 0; }

/// One remedy: what it is, what it applies to, and what it did on our examples.
struct remedy_row {
  remedy id;
  std::string_view name;  ///< the report's and the tools' name
  remedy_kind kind;
  cause_set causes;       ///< the causes it removes or moves out of the call
  /// For causes named by object (host code, Python code, child processes): the names it applies
  /// to, comma-separated, each matched anywhere in `cause_time::where`; empty: any. Where it names
  /// some, they are also its evidence: a call with none of them gets no such remedy, whatever its
  /// other causes (module loads alone do not say they were cuBLAS's).
  std::string_view where;
  std::string_view what;   ///< the remedy, in a few words
  std::string_view moves;  ///< what it moves or removes, and what it costs instead
  /// `environment`: NAME=VALUE pairs, space-separated; `cache`: the variables naming its folders,
  /// space-separated, then NAME=VALUE pairs that turn the caches on; `code`: empty.
  std::string_view setting;
  std::string_view snippet;  ///< `code`: the change, C++ or Python as it applies
  /// Where it was measured on our examples: a page and its row's first words (or a section). The
  /// figures stay there; warmup-report quotes them from tools/warmup-report/remedy_figures.cpp,
  /// which tests/docs/check_readme.py remedies holds to this row.
  std::string_view source;
};

inline constexpr cause_set any_cold_work =
    causes_of({cause::context_init, cause::module_load, cause::lazy_kernel_load, cause::jit_compile,
               cause::jit_cache_load, cause::device_alloc, cause::pinned_alloc, cause::pool_growth,
               cause::library_load, cause::host_code, cause::python_code, cause::waiting, cause::child_process});

inline constexpr remedy_row remedy_table[] = {
    {remedy::prewarm_kernels, "prewarm_kernels", remedy_kind::code,
     causes_of({cause::lazy_kernel_load, cause::module_load, cause::jit_compile}), "",
     "load the kernels before their first launch",
     "each kernel's module load, lazy load and JIT move into the prewarm; only those kernels", "",
     "warmup::prewarm_kernels(&my_kernel, &other_kernel);",
     "docs/folklore.md: Kernels are loaded lazily"},
    {remedy::module_loading_eager, "module_loading_eager", remedy_kind::environment,
     causes_of({cause::lazy_kernel_load, cause::module_load}), "", "load every module when the context is made",
     "first launches load nothing; the context's creation loads every module of the process, used or not",
     "CUDA_MODULE_LOADING=EAGER", "",
     "docs/folklore.md: Kernels are loaded lazily"},
    {remedy::jit_cache_kept, "jit_cache_kept", remedy_kind::cache, causes_of({cause::jit_compile}), "",
     "keep the driver's JIT cache between runs",
     "PTX compiled once, loaded from the cache by later processes (a JIT cache load instead)",
     "CUDA_CACHE_PATH CUDA_CACHE_DISABLE=0 CUDA_CACHE_MAXSIZE=4294967296", "",
     "docs/folklore.md: Kernels are compiled on the first run"},
    {remedy::build_for_the_gpu, "build_for_the_gpu", remedy_kind::code,
     causes_of({cause::jit_compile, cause::jit_cache_load}), "", "build SASS for the GPU, not PTX alone",
     "nothing left to JIT-compile or to load from the JIT cache", "",
     "set(CMAKE_CUDA_ARCHITECTURES native)  # or nvcc -arch=sm_90 for the GPU it runs on",
     "docs/folklore.md: Kernels are compiled on the first run"},
    {remedy::prewarm_pool, "prewarm_pool", remedy_kind::code, causes_of({cause::pool_growth}), "",
     "grow the stream's pool once and keep it", "the pool's growth moves into the prewarm; later allocations map nothing",
     "", "warmup::prewarm_pool(std::size_t{1} << 30, stream);",
     "docs/folklore.md: `cudaMallocAsync` is cheap"},
    {remedy::pinned_buffer, "pinned_buffer", remedy_kind::code, causes_of({cause::pinned_alloc}), "",
     "pin host memory once, before the work", "pinning moves out of the call, once", "",
     "warmup::pinned_buffer staging{64 << 20};", "docs/folklore.md: Pinning memory is expensive"},
    {remedy::allocator_kept, "allocator_kept", remedy_kind::code, causes_of({cause::device_alloc}), "",
     "allocate the high-water size once and reuse it",
     "the driver's allocations move out of the call; PyTorch: free into its cache, no empty_cache()", "",
     "torch.empty(high_water_bytes, dtype=torch.uint8, device=\"cuda\")  # then del it: the cache keeps it",
     "docs/folklore.md: Seed 002's Example 3"},
    {remedy::cublas_prewarm, "cublas_prewarm", remedy_kind::code, causes_of({cause::module_load, cause::host_code}),
     "libcublas", "call each GEMM variant once ahead", "cuBLAS loads each variant's kernels in the prewarm", "",
     "warmup::cublas::prewarm(blas.get(), {warmup::cublas::gemm::fp32(m, n, k)});",
     "docs/folklore.md: cuBLAS warms up"},
    {remedy::compile_caches_kept, "compile_caches_kept", remedy_kind::cache,
     causes_of({cause::python_code, cause::host_code, cause::child_process}),
     "torch._inductor,torch._dynamo,triton,compile_worker,cc1,ptxas",
     "keep Inductor's and Triton's caches between runs",
     "a later process loads the compiled graphs and kernels; the imports, the tracing and Triton's cache key stay",
     "TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1", "",
     "docs/folklore.md: ...warm caches make the next process fast"},
    {remedy::compile_artifacts, "compile_artifacts", remedy_kind::code,
     causes_of({cause::python_code, cause::host_code, cause::child_process}),
     "torch._inductor,torch._dynamo,triton,compile_worker,cc1,ptxas", "save torch.compile's caches and load them first",
     "the compile's artefacts travel with the program (a container, another machine)", "",
     "torch.compiler.load_cache_artifacts(open(\"compiled.bin\", \"rb\").read())  # saved by save_cache_artifacts()",
     "docs/folklore.md: ...warm caches make the next process fast"},
    {remedy::nccl_connect_at_init, "nccl_connect_at_init", remedy_kind::environment, causes_of({cause::host_code}),
     "libnccl", "connect NCCL's peers at init", "the first collective connects nothing; init takes longer",
     "NCCL_RUNTIME_CONNECT=0", "",
     "docs/folklore.md: Distributed jobs pay for NCCL at init"},
    {remedy::prewarm_on_a_thread, "prewarm_on_a_thread", remedy_kind::code,
     causes_of({cause::context_init, cause::module_load, cause::library_load, cause::waiting}), "",
     "prewarm on a thread while the program reads its input",
     "the context, the libraries and their kernels get ready behind the program's own reads", "",
     "std::thread t([] { warmup::prewarm_context(0); }); load_weights(); t.join();",
     "BENCHMARKS.md: Time to the first result"},
    {remedy::until_steady, "until_steady", remedy_kind::code, any_cold_work, "",
     "call it until it is steady before the real work", "every first-call cost moves into the prewarm, which says when it is warm",
     "", "warmup::warmup_until_steady(\"forward (prewarm)\", [&] { forward(stream); }, stream);",
     "docs/folklore.md: The first inference of a real model is slow"},
};

/// The causes no remedy applies to, and why (every cause is in a row or here, never both:
/// `every_cause_answered`).
struct no_remedy_row {
  cause what;
  std::string_view why;
};
inline constexpr no_remedy_row no_remedy_known[] = {
    {cause::sync_wait, "the GPU's own work, which the call waits for: its device time says whether that work was cold"},
};

/// Whether every cause is in a remedy's row or in `no_remedy_known`, and none in both: a cause
/// added without either does not compile.
constexpr bool every_cause_answered() noexcept {
  for (std::size_t c = 0; c < cause_count; ++c) {
    bool remedied = false, none = false;
    for (const remedy_row& r : remedy_table) remedied = remedied || has_cause(r.causes, static_cast<cause>(c));
    for (const no_remedy_row& n : no_remedy_known) none = none || n.what == static_cast<cause>(c);
    if (remedied == none) return false;
  }
  return true;
}
static_assert(every_cause_answered(), "warmup: each cause needs a remedy in remedy_table or its line in no_remedy_known");

constexpr std::size_t remedy_count_of() noexcept { return sizeof remedy_table / sizeof remedy_table[0]; }

/// Whether every row names its remedy, in the enum's order.
constexpr bool in_remedy_order() noexcept {
  for (std::size_t i = 0; i < remedy_count_of(); ++i)
    if (static_cast<std::size_t>(remedy_table[i].id) != i) return false;
  return true;
}
static_assert(in_remedy_order(), "warmup: remedy_table must list every remedy, in order");

/// Whether `where` (a `cause_time::where`) matches one of `names` (comma-separated; empty: any).
constexpr bool where_matches(std::string_view names, std::string_view where) noexcept {
  if (names.empty()) return true;
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (!name.empty() && where.find(name) != std::string_view::npos) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

/// Whether row `r` applies to cause time `c`.
constexpr bool applies(const remedy_row& r, const cause_time& c) noexcept {
  return has_cause(r.causes, c.what) && (!by_object(c.what) || where_matches(r.where, c.where));
}

/// A row's setting, word by word (at its spaces): NAME=VALUE pairs, environment settings, and
/// bare names, the variables a cache row points at folders kept between runs.
inline std::vector<std::string_view> setting_words(std::string_view setting) {
  std::vector<std::string_view> out;
  for (std::string_view rest = setting; !rest.empty();) {
    const std::size_t space = rest.find(' ');
    if (space != 0) out.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return out;
}
}  // namespace detail

/// @brief Number of remedies.
inline constexpr std::size_t remedy_count = detail::remedy_count_of();

/// @brief A remedy's name: "prewarm_kernels", "module_loading_eager", ...
constexpr std::string_view to_string(remedy r) noexcept { return detail::remedy_table[static_cast<std::size_t>(r)].name; }

/// @brief The remedy of that name, or none.
constexpr std::optional<remedy> remedy_named(std::string_view name) noexcept {
  for (const detail::remedy_row& r : detail::remedy_table)
    if (r.name == name) return r.id;
  return std::nullopt;
}

/// @brief The remedies whose causes took part of a cold call's time, each with what it could save
/// on that call: the time of its causes in the call (for the time the call waited, the other
/// threads' and processes' work it applies to, up to that wait), at most the call's excess.
/// Largest first; a remedy none of whose causes the call shows, or that names objects (cuBLAS,
/// NCCL, Inductor) none of the call's causes is in, is never listed.
/// \code
///   if (const auto& why = s.host.first_call_causes)
///     for (const warmup::remedy_saving& r : warmup::remedies_for(*why)) std::cout << r.remedy << '\n';
/// \endcode
inline std::vector<remedy_saving> remedies_for(const attribution& a) {
  std::vector<remedy_saving> out;
  if (a.excess.count() <= 0) return out;
  std::chrono::nanoseconds waited{};
  for (const cause_time& c : a.causes)
    if (c.what == cause::waiting) waited += c.time;
  for (const detail::remedy_row& r : detail::remedy_table) {
    std::chrono::nanoseconds own{}, others{};
    bool evidence = r.where.empty();
    for (const cause_time& c : a.causes)
      if (detail::applies(r, c)) own += c.time, evidence = evidence || detail::by_object(c.what);
    for (const cause_time& c : a.other_threads)
      if (detail::applies(r, c)) others += c.time, evidence = evidence || detail::by_object(c.what);
    if (!evidence) continue;
    // The other threads' work counts only as the wait it made: a remedy that names the waiting
    // itself has counted it already.
    if (!detail::has_cause(r.causes, cause::waiting)) own += std::min(others, waited);
    if (own.count() > 0) out.push_back({std::string(r.name), std::min(own, a.excess)});
  }
  std::stable_sort(out.begin(), out.end(), [](const remedy_saving& x, const remedy_saving& y) { return x.could_save > y.could_save; });
  return out;
}

WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
