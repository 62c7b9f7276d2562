// Built in tools/mutate's builds only (WARMUP_MUTATION_LISTENER, with its switch on every
// file): marks each Catch2 test case's start and end in the record of which mutants' regions a
// process reaches, so that a mutant runs only the cases that reach it (tools/mutation/schema.py).
#if defined(WARMUP_CATCH2_V3)
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#else
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // Catch2 2's listener base, outside its runner's file
#include <catch2/catch.hpp>
#endif

#include <chrono>

#if !defined(WARMUPTEST_MUTATION_SWITCH)
#error "tests/support/mutation_listener.cpp needs tools/mutation's switch (-include warmup_mutation_switch.hpp)"
#endif

namespace {
#if defined(WARMUP_CATCH2_V3)
using listener_base = Catch::EventListenerBase;
#else
using listener_base = Catch::TestEventListenerBase;
#endif

struct mutation_reach : listener_base {
  using listener_base::listener_base;
  std::chrono::steady_clock::time_point started{};
  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    listener_base::testCaseStarting(info);
    started = std::chrono::steady_clock::now();
    ::warmup_mutation::case_begins(info.name.c_str());
  }
  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    ::warmup_mutation::case_ends(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count());
    listener_base::testCaseEnded(stats);
  }
};
}  // namespace

CATCH_REGISTER_LISTENER(mutation_reach)
