// In a mutation build only (tools/mutation's switch defines WARMUP_MUTATION_SWITCH): marks each
// test case's start and end in the record of which mutants' regions a process reaches, so that
// tools/mutate and tools/mutants can run, for a mutant, only the cases that reach it.
#pragma once
#include <chrono>

namespace warmup_test {
template <class Base, class Info, class Stats>
struct MutationReach : Base {
  using Base::Base;
  std::chrono::steady_clock::time_point started{};
  void testCaseStarting(Info const& info) override {
    Base::testCaseStarting(info);
    started = std::chrono::steady_clock::now();
    ::warmup_mutation::case_begins(info.name.c_str());
  }
  void testCaseEnded(Stats const& stats) override {
    ::warmup_mutation::case_ends(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count());
    Base::testCaseEnded(stats);
  }
};
}  // namespace warmup_test

#if defined(WARMUP_CATCH2_V3)
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
using WarmupMutationReach = warmup_test::MutationReach<Catch::EventListenerBase, Catch::TestCaseInfo, Catch::TestCaseStats>;
#else
using WarmupMutationReach = warmup_test::MutationReach<Catch::TestEventListenerBase, Catch::TestCaseInfo, Catch::TestCaseStats>;
#endif
CATCH_REGISTER_LISTENER(WarmupMutationReach)
