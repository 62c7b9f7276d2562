// Misuses of scopes (and of a report) that must not compile. Each CASE is compiled on its own (-DCASE=n) by a test
// that expects the compiler to fail; CASE 0 adds nothing to the lawful code below and must
// compile, so a failing case fails because of its own line and not, say, a missing include.
#include <warmup/profile.hpp>

#include <cstddef>
#include <utility>

void lawful(cudaStream_t stream) {
  warmup::region_scope a{"x"};
  warmup::h2d_scope copy_with_bytes{"x", std::size_t{4}, stream};
  warmup::launch_scope launch_on_stream{"x", stream};
  const warmup::report kept = warmup::snapshot();
  (void)kept.find(warmup::op_kind::region, "x");

#if CASE == 1  // a scope times one call on one thread: no copies
  warmup::region_scope b{a};
#elif CASE == 2  // nor moves
  warmup::region_scope b{std::move(a)};
#elif CASE == 3  // nor a life on the heap
  auto* p = new warmup::region_scope{"x"};
  (void)p;
#elif CASE == 4  // a copy scope needs its byte count
  warmup::h2d_scope no_bytes{"x", stream};
#elif CASE == 5  // and a launch moves no bytes
  warmup::launch_scope bytes_on_launch{"x", std::size_t{4}, stream};
#elif CASE == 6  // a site of a report about to go away would dangle
  (void)warmup::snapshot().find(warmup::op_kind::region, "x");
#elif CASE != 0
#error "unknown CASE"
#endif
}
