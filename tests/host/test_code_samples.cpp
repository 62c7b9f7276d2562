// Python code named in CPU samples (detail/analysis/code_samples.hpp): a module's reported name,
// the code sample that names a CPU sample, and the join that names a sample in the interpreter's
// code by it, on synthetic samples: no Python here (tests/python/test_python_names.py has it).
#include "catch.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "warmup/detail/analysis/attribution.hpp"
#include "warmup/detail/analysis/code_samples.hpp"
#include "warmup/detail/analysis/cpu_sampler.hpp"
#include "warmup/detail/runtime/cause_store.hpp"

using warmup::cause;
using warmup::detail::code_view;
using warmup::detail::cold_window;
using warmup::detail::split_module;
using warmup::detail::thread_sample;

TEST_CASE("a Python module is reported to its second name, the rest of it before the function") {
  const auto dynamo = split_module("torch._dynamo.symbolic_convert", "InstructionTranslator.step");
  CHECK(dynamo.module == "torch._dynamo");
  CHECK(dynamo.function == "symbolic_convert.InstructionTranslator.step");
  const auto two = split_module("pkg.sub", "f");
  CHECK(two.module == "pkg.sub");
  CHECK(two.function == "f");
  const auto main = split_module("__main__", "train.<locals>.step");
  CHECK(main.module == "__main__");
  CHECK(main.function == "train.<locals>.step");
  CHECK(split_module("", "f").module == "[unknown module]");
}

TEST_CASE("a CPU sample is named by the next code sample within a second, else the one before within reach") {
  code_view v;
  v.names = {{"a", "early"}, {"b", "late"}};
  const std::uint64_t t = 2'000'000'000, after = code_view::reach_after_ns, before = code_view::reach_ns;
  CHECK(v.at(t) == nullptr);  // no code sample at all
  v.samples = {{t, t + 1, 7, 0}, {t + 500'000'000, t + 500'000'001, 7, 1}};
  CHECK(v.at(t)->function == "early");           // one taken at that instant
  CHECK(v.at(t + 1)->function == "late");        // the next, though the one before is nearer
  CHECK(v.at(t - after)->function == "early");   // the next, a second on
  CHECK(v.at(t - after - 1) == nullptr);         // nothing within reach either way
  CHECK(v.at(t + 500'000'000 + before)->function == "late");  // none after: the one before
  CHECK(v.at(t + 500'000'000 + before + 1) == nullptr);
  v.samples = {{t, t + 1, 7, 0}, {t + 2 * after, t + 2 * after + 1, 7, 1}};
  CHECK(v.at(t + before)->function == "early");  // the next is past reach: the one before, within its
  CHECK(v.at(t + before + 1) == nullptr);
  v.samples.push_back({t + 3 * after, t + 3 * after + 1, 7, 9});  // a name out of the table names nothing
  CHECK(v.at(t + 3 * after) == nullptr);
  std::vector<std::string> seen;
  v.each_in(t, t + 2 * after + 1, [&](const warmup::detail::code_name& n) { seen.push_back(n.function); });
  CHECK(seen == std::vector<std::string>{"early", "late"});
}

TEST_CASE("a CPU sample in the interpreter is Python code where a code sample is near, else its object's; one elsewhere names its caller") {
  const cold_window w{1'000'000'000, 1'100'000'000, 7};
  const warmup::detail::split none;  // no record covers anything
  code_view v;
  v.lo = 0x1000, v.hi = 0x2000;
  v.names = {{"torch._dynamo", "convert_frame._compile"}, {"torch._dynamo", "utils.tree_map"}};
  v.samples = {{1'010'000'000, 1'010'000'001, 7, 0}, {1'030'000'000, 1'030'000'001, 7, 1}};
  const auto at = [](std::uint64_t t, std::uintptr_t pc) { return thread_sample{t, t + 1, pc, 7, 1'000'000}; };
  const std::vector<thread_sample> samples = {
      at(1'009'000'000, 0x1800),  // in the interpreter, before _compile's code sample
      at(1'010'000'000, 0x1000),  // the range's first byte, at it
      at(1'029'000'000, 0x1fff),  // its last, before tree_map's
      at(1'031'000'000, 0x2000),  // past it: the object's, called by tree_map (the one before)
      at(1'090'000'000, 0x1800),  // in the interpreter, no code sample within reach
  };
  const auto hc = warmup::detail::split_samples(w, none, samples, v, [](std::uintptr_t pc) {
    return pc >= 0x1000 && pc < 0x2000 ? std::string("python3.12") : std::string("libtorch_cpu.so");
  });
  REQUIRE(hc.objects.size() == 3);
  const auto& py = hc.objects[0];
  CHECK(py.what == cause::python_code);
  CHECK(py.where == "torch._dynamo");
  CHECK(py.ns == 3'000'000);
  CHECK(py.samples == 3);
  REQUIRE(py.functions.size() == 2);
  CHECK(py.functions[0].name == "convert_frame._compile");
  CHECK(py.functions[0].ns == 2'000'000);
  CHECK(py.functions[1].name == "utils.tree_map");
  CHECK(py.functions[1].samples == 1);
  CHECK(hc.objects[1].what == cause::host_code);
  CHECK(hc.objects[1].where == "libtorch_cpu.so");
  REQUIRE(hc.objects[1].functions.size() == 1);  // the Python code that called into it
  CHECK(hc.objects[1].functions[0].name == "torch._dynamo.utils.tree_map");
  CHECK(hc.objects[2].functions.empty());
  CHECK(hc.objects[2].what == cause::host_code);
  CHECK(hc.objects[2].where == "python3.12");
  CHECK(hc.named == 5'000'000);
}

TEST_CASE("the store names a first call's Python code: one cause per module, its hottest functions first") {
  using warmup::detail::cause_records;
  auto& store = cause_records();
  const std::uint64_t t0 = (std::uint64_t{1} << 62) + (std::uint64_t{1} << 44);
  const std::uint64_t thread = 4343;  // no thread of this process
  static const char interpreter_code[64] = {};
  const auto lo = reinterpret_cast<std::uintptr_t>(interpreter_code);
  store.set_interpreter(lo, lo + sizeof interpreter_code);
  warmup::detail::sampled_call call;
  const std::size_t n = warmup::cause_time::functions_kept + 2;
  std::uint64_t cpu = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t at = t0 + 1'000'000 * (i + 1);
    // function i runs i + 1 samples' worth: f9 is the hottest
    store.add_code_sample(thread, at, "model.layers", "f" + std::to_string(i));
    cpu += 1'000 * (i + 1);
    call.samples.push_back({at, lo + 8, cpu, {}});
  }
  // Another thread's code sample, nearer a CPU sample than this thread's nearest: never its name.
  const std::uint64_t between = t0 + 1'000'000 * n + 500'000;
  store.add_code_sample(thread + 1, between, "other.thread", "g");
  call.samples.push_back({between, lo + 8, cpu, {}});  // no CPU time since the one before
  store.add_samples(thread, call);
  warmup::timing t;
  const warmup::attribution a =
      warmup::detail::attribute({{t0, t0 + 1'000'000 * (n + 1), thread}}, t, store, warmup::detail::object_of);
  store.set_interpreter(0, 0);
  REQUIRE(a.causes.size() == 1);
  const warmup::cause_time& py = a.causes[0];
  CHECK(py.what == cause::python_code);
  CHECK(py.where == "model.layers");
  CHECK(py.count == n + 1);
  REQUIRE(py.functions.size() == warmup::cause_time::functions_kept);
  CHECK(py.functions[0].function == "f" + std::to_string(n - 1));
  CHECK(py.functions[0].time.count() == 1'000 * static_cast<long long>(n));
  CHECK(py.functions.back().function == "f2");  // f0 and f1, the coolest, left out
}

TEST_CASE("time off the CPU goes to the Python code found waiting in each stretch, else to the next") {
  const std::uint64_t ms = 1'000'000, t0 = 1'000 * ms;
  cold_window w{t0, t0 + 100 * ms, 7};
  w.cpu_start_ns = 5 * ms, w.cpu_end_ns = 15 * ms;  // 10 ms on the CPU, 90 ms off it
  thread_sample reading{t0 + 50 * ms, t0 + 50 * ms + 1, 0x9000, 7, 10 * ms};
  reading.cpu_ns = 15 * ms;  // all of its CPU time in the first half
  code_view v;
  v.names = {{"a.b", "wait_x"}, {"c.d", "join"}, {"e.f", "after"}};
  v.samples = {{t0 + 20 * ms, t0 + 20 * ms + 1, 7, 0},  // the first stretch: 40 ms off the CPU
               {t0 + 60 * ms, t0 + 60 * ms + 1, 7, 1},  // the second: 50 ms, in one function twice
               {t0 + 70 * ms, t0 + 70 * ms + 1, 7, 1}};
  warmup::detail::host_code_split::object in;
  const std::uint64_t waited = warmup::detail::waiting_in(w, {}, {reading}, 100 * ms, v, &in);
  CHECK(waited == 90 * ms);
  REQUIRE(in.functions.size() == 2);
  CHECK(in.functions[0].name == "a.b.wait_x");
  CHECK(in.functions[0].ns == 40 * ms);
  CHECK(in.functions[1].name == "c.d.join");
  CHECK(in.functions[1].ns == 50 * ms);
  CHECK(in.functions[1].samples == 2);
  // No code sample inside a stretch: the next one names it; held to less room, scaled with it.
  v.samples = {{t0 + 101 * ms, t0 + 101 * ms + 1, 7, 2}};
  warmup::detail::host_code_split::object later;
  CHECK(warmup::detail::waiting_in(w, {}, {reading}, 45 * ms, v, &later) == 45 * ms);
  REQUIRE(later.functions.size() == 1);
  CHECK(later.functions[0].name == "e.f.after");
  CHECK(later.functions[0].ns == 45 * ms);
  // A CPU clock read going back (not this call's readings): no waiting, and no code named for it.
  cold_window back = w;
  back.cpu_end_ns = back.cpu_start_ns - 1;
  warmup::detail::host_code_split::object none;
  CHECK(warmup::detail::waiting_in(back, {}, {}, 100 * ms, v, &none) == 0);
  CHECK(none.functions.empty());
}

TEST_CASE("the code samples in a stretch: from its start, up to but not at its end") {
  code_view v;
  v.names = {{"a", "at_start"}, {"b", "inside"}, {"c", "at_end"}};
  v.samples = {{1'000, 1'001, 7, 0}, {1'200, 1'201, 7, 9}, {1'500, 1'501, 7, 1}, {2'000, 2'001, 7, 2}};  // 9: no name
  std::vector<std::string> seen;
  v.each_in(1'000, 2'000, [&](const warmup::detail::code_name& n) { seen.push_back(n.function); });
  CHECK(seen == std::vector<std::string>{"at_start", "inside"});
}

TEST_CASE("Python code samples past the store's bound are thinned, never cut: a call's both ends still named") {
  using warmup::detail::cause_store;
  const auto store = std::make_unique<cause_store>();
  const std::uint64_t t0 = 1'000'000'000, gap = 2'000'000;  // the module's sampler notes every 2 ms
  // One and a half times the bound for one thread (196 s of notes), and a second thread's notes
  // between them, which thinning the first must leave their own spacing.
  const std::size_t n = cause_store::code_cap + cause_store::code_cap / 2;
  for (std::size_t i = 0; i < n; ++i) {
    store->add_code_sample(7, t0 + gap * i, "model", i < n / 2 ? "early" : "late");
    if (i % 64 == 0) store->add_code_sample(8, t0 + gap * i + 1, "other", "thread");
  }
  CHECK(store->samples_lost() == 0);
  CHECK(store->code_gap_ns() == 2 * gap);  // filled once: one note in two kept, from then on too
  const std::uint64_t end = t0 + gap * n;
  const warmup::detail::code_view all = store->code_in(cold_window{t0, end, 7});
  CHECK(all.samples.size() <= cause_store::code_cap);
  CHECK(all.samples.size() >= n / 2 - 1);
  std::size_t off_gap = 0;  // every other note kept, before the store filled and after
  for (std::size_t i = 1; i < all.samples.size(); ++i)
    off_gap += all.samples[i].start_ns - all.samples[i - 1].start_ns != 2 * gap;
  CHECK(off_gap == 0);
  REQUIRE(all.at(t0) != nullptr);
  CHECK(all.at(t0)->function == "early");
  REQUIRE(all.at(end - gap) != nullptr);
  CHECK(all.at(end - gap)->function == "late");
  const warmup::detail::code_view other = store->code_in(cold_window{t0, end, 8});
  CHECK(other.samples.size() == (n + 63) / 64);  // 128 ms apart: over the gap, none thinned
}
