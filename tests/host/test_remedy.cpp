// The remedies (remedy.hpp): a table every cause is in, each row sound for what `try` and
// `advise` do with it, and `remedies_for`, which ranks them by what they could save on a call.
#include "catch.hpp"

#include <chrono>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/remedy.hpp"
#include "warmup/detail/analysis/child_processes.hpp"
#include "warmup/detail/io/remedy_text.hpp"

using namespace std::chrono_literals;

namespace {
namespace d = warmup::detail;
using warmup::cause;

warmup::attribution why_of(std::chrono::nanoseconds excess, std::vector<warmup::cause_time> causes,
                           std::vector<warmup::cause_time> others = {}) {
  warmup::attribution a;
  a.calls = 1;
  a.call = a.excess = excess;
  a.causes = std::move(causes);
  for (const warmup::cause_time& c : a.causes) a.named += c.time;
  a.unattributed = a.excess - a.named;
  a.other_threads = std::move(others);
  return a;
}

std::string names(const std::vector<warmup::remedy_saving>& rs) {
  std::string out;
  for (const warmup::remedy_saving& r : rs) out += (out.empty() ? "" : " ") + r.remedy;
  return out;
}

std::chrono::nanoseconds saving(const std::vector<warmup::remedy_saving>& rs, std::string_view name) {
  for (const warmup::remedy_saving& r : rs)
    if (r.remedy == name) return r.could_save;
  return -1ns;
}
}  // namespace

TEST_CASE("every cause has a remedy or says why none is known, never both; every remedy names causes that exist") {
  for (std::size_t c = 0; c < warmup::cause_count; ++c) {
    const auto what = static_cast<cause>(c);
    bool remedied = false, none_known = false;
    for (const d::remedy_row& r : d::remedy_table) remedied = remedied || d::has_cause(r.causes, what);
    for (const d::no_remedy_row& n : d::no_remedy_known) none_known = none_known || (n.what == what && !n.why.empty());
    INFO(warmup::to_string(what));
    CHECK(remedied != none_known);
  }
  const d::cause_set known = (d::cause_set{1} << warmup::cause_count) - 1;
  std::set<std::string_view> seen;
  for (const d::remedy_row& r : d::remedy_table) {
    INFO(r.name);
    CHECK(r.causes != 0);
    CHECK((r.causes & ~known) == 0);
    CHECK(seen.insert(r.name).second);
    CHECK(warmup::remedy_named(r.name) == r.id);
    CHECK(warmup::to_string(r.id) == r.name);
    CHECK_FALSE(r.what.empty());
    CHECK_FALSE(r.moves.empty());
    CHECK_FALSE(r.source.empty());
    // What try applies: an environment row's settings are NAME=VALUE pairs; a cache row names
    // at least one folder variable; a code row has its snippet and no setting.
    switch (r.kind) {
      case warmup::remedy_kind::environment:
        CHECK_FALSE(d::joined_setting_words(r.setting, true, " ").empty());
        CHECK(d::joined_setting_words(r.setting, false, " ").empty());
        CHECK(r.snippet.empty());
        break;
      case warmup::remedy_kind::cache:
        CHECK_FALSE(d::joined_setting_words(r.setting, false, " ").empty());
        CHECK(r.snippet.empty());
        break;
      case warmup::remedy_kind::code:
        CHECK(r.setting.empty());
        CHECK_FALSE(r.snippet.empty());
        break;
    }
  }
  CHECK_FALSE(warmup::remedy_named("no_such_remedy"));
  // A setting's words, at its spaces, however many (what try and the report's lines both read).
  CHECK(d::setting_words(" TRITON_CACHE_DIR  A=1 ") == std::vector<std::string_view>{"TRITON_CACHE_DIR", "A=1"});
  CHECK(d::joined_setting_words("X A=1 Y B=2", false, ", ") == "X, Y");
}

TEST_CASE("remedies_for: the remedies a call's causes support, by what each could save on it, largest first") {
  const warmup::attribution a = why_of(200ms, {{cause::module_load, 50ms, 3, {}, {}},
                                               {cause::sync_wait, 30ms, 1, {}, {}},
                                               {cause::host_code, 20ms, 20, "libcublasLt.so.13", {}},
                                               {cause::waiting, 10ms, 0, {}, {}},
                                               {cause::lazy_kernel_load, 5ms, 4, {}, {}}});
  const std::vector<warmup::remedy_saving> r = warmup::remedies_for(a);
  // The sync wait has no remedy: nothing counts it. libcublasLt is cuBLAS's, not NCCL's.
  CHECK(saving(r, "until_steady") == 85ms);
  CHECK(saving(r, "cublas_prewarm") == 70ms);
  CHECK(saving(r, "prewarm_on_a_thread") == 60ms);
  CHECK(saving(r, "prewarm_kernels") == 55ms);
  CHECK(saving(r, "module_loading_eager") == 55ms);
  // Largest first; equal savings in the table's order.
  CHECK(names(r) == "until_steady cublas_prewarm prewarm_on_a_thread prewarm_kernels module_loading_eager");
}

TEST_CASE("remedies_for shows no remedy its causes do not support") {
  // A call that only waited for the GPU: nothing to advise.
  CHECK(warmup::remedies_for(why_of(40ms, {{cause::sync_wait, 40ms, 1, {}, {}}})).empty());
  // Host code in an object no remedy names: only the general one.
  CHECK(names(warmup::remedies_for(why_of(40ms, {{cause::host_code, 40ms, 9, "libmine.so", {}}}))) == "until_steady");
  // NCCL's own code: its setting, and the general one.
  CHECK(names(warmup::remedies_for(why_of(40ms, {{cause::host_code, 30ms, 9, "libnccl.so.2", {}}}))) ==
        "nccl_connect_at_init until_steady");
  // Module loads alone do not say whose: no cuBLAS prewarm without cuBLAS's code among the causes.
  CHECK(names(warmup::remedies_for(why_of(40ms, {{cause::module_load, 30ms, 2, {}, {}}}))) ==
        "prewarm_kernels module_loading_eager prewarm_on_a_thread until_steady");
  // No excess (faster than the steady calls): nothing to save.
  CHECK(warmup::remedies_for(why_of(-1ms, {{cause::module_load, 5ms, 1, {}, {}}})).empty());
  CHECK(warmup::remedies_for(why_of(0ms, {{cause::module_load, 5ms, 1, {}, {}}})).empty());
}

TEST_CASE("remedies_for: never more than the excess; other threads' work only as the wait it made") {
  // The named causes exceed the excess (the steady calls pay some too): at most the excess.
  CHECK(saving(warmup::remedies_for(why_of(10ms, {{cause::module_load, 40ms, 2, {}, {}}})), "prewarm_kernels") == 10ms);
  // The call waited 25 ms while autograd's engine thread loaded modules for 40 ms: the kernels'
  // prewarm could save the 25 ms waited; a remedy of the waiting itself counts it once.
  const std::vector<warmup::remedy_saving> r =
      warmup::remedies_for(why_of(30ms, {{cause::waiting, 25ms, 0, {}, {}}}, {{cause::module_load, 40ms, 3, {}, {}}}));
  CHECK(saving(r, "prewarm_kernels") == 25ms);
  CHECK(saving(r, "prewarm_on_a_thread") == 25ms);
  CHECK(saving(r, "until_steady") == 25ms);
  // Only the other threads' work a remedy applies to: their module loads are no pool's growth.
  CHECK(saving(r, "prewarm_pool") == -1ns);
  CHECK(names(r) == "prewarm_kernels module_loading_eager prewarm_on_a_thread until_steady");
  // Another thread's work while the call did not wait: no remedy of this call.
  CHECK(warmup::remedies_for(why_of(30ms, {{cause::sync_wait, 30ms, 1, {}, {}}}, {{cause::module_load, 40ms, 3, {}, {}}}))
            .empty());
  // Compile workers (processes) while the call waited: the compile caches apply.
  const std::vector<warmup::remedy_saving> compile = warmup::remedies_for(
      why_of(9s, {{cause::waiting, 6s, 0, {}, {}}, {cause::python_code, 1s, 900, "torch._inductor", {}}},
             {{cause::child_process, 20s, 17, "python -m torch._inductor.compile_worker", {}}}));
  CHECK(saving(compile, "compile_caches_kept") == 7s);
  CHECK(saving(compile, "until_steady") == 7s);
}

TEST_CASE("the report's lines: a remedy a line under the causes, at most four and how many more") {
  warmup::attribution a = why_of(200ms, {{cause::module_load, 50ms, 3, {}, {}},
                                         {cause::host_code, 20ms, 20, "libcublasLt.so.13", {}},
                                         {cause::waiting, 10ms, 0, {}, {}},
                                         {cause::lazy_kernel_load, 5ms, 4, {}, {}}});
  a.remedies = warmup::remedies_for(a);
  const std::vector<std::string> lines = d::remedy_lines(a);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "    remedies, by what they could save on this call (warmup-report advise: how):");
  CHECK(lines[1] == "        until_steady          up to 85.0 ms  call it until it is steady before the real work (code)");
  CHECK(lines[4].find("prewarm_kernels") != std::string::npos);
  CHECK(lines[5] == "        1 more");
  CHECK(d::remedy_lines(why_of(1ms, {})).empty());
  // How each kind is applied, in the line's parentheses.
  CHECK(d::remedy_how(d::remedy_table[std::size_t(warmup::remedy::module_loading_eager)]) == "CUDA_MODULE_LOADING=EAGER");
  CHECK(d::remedy_how(d::remedy_table[std::size_t(warmup::remedy::compile_caches_kept)]) ==
        "folders kept: TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR");
  CHECK(d::remedy_how(d::remedy_table[std::size_t(warmup::remedy::until_steady)]) == "code");
}

TEST_CASE("a first call's child processes, added after its causes, are its remedies' evidence too") {
  // Inductor's first compile: the call's own Python code, and a wait for its compile workers.
  warmup::attribution a = why_of(3s, {{cause::waiting, 400ms, 0, {}, {}}, {cause::python_code, 300ms, 300, "torch._inductor", {}}});
  a.remedies = warmup::remedies_for(a);
  CHECK(saving(a.remedies, "compile_caches_kept") == 300ms);
  d::add_child_processes(a, {{"python compile_worker/__main__.py --pickler=x", 4'000'000'000, 1}});
  // The workers' 4 s count as the 400 ms the call waited for them.
  CHECK(saving(a.remedies, "compile_caches_kept") == 700ms);
}
