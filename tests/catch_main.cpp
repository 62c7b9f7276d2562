// One Catch2 main shared by the Catch2 test programs (compiled once: Catch2's header is slow).
#if defined(WARMUP_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif
#include "catch_run.hpp"
#include "support/failing_new.hpp"

#include <cstddef>
#include <new>

// The nothrow forms, failing where support::failing asks (support/failing_new.hpp); each calls
// its throwing form, so that delete matches it (sanitizers check).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (support::failing.plain > 0) return --support::failing.plain, nullptr;
  try {
    return ::operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  if (support::failing.aligned > 0 && static_cast<std::size_t>(a) >= 64) return --support::failing.aligned, nullptr;
  try {
    return ::operator new(n, a);
  } catch (...) {
    return nullptr;
  }
}

// The default: run the tests. A program that may skip (tests/gpu, tests/no_gpu) defines its own.
__attribute__((weak)) int warmup_test::before_tests() noexcept { return -1; }

int main(int argc, char* argv[]) {
  if (const int status = warmup_test::before_tests(); status >= 0) return status;
  return warmup_test::exit_status(Catch::Session().run(argc, argv));
}
