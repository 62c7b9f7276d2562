// Allocations that fail on demand: the library must count, never crash on, what it could not
// store. Each Catch2 test program replaces the nothrow forms of operator new (catch_main.cpp):
// the calling thread's next `plain` plain nothrow allocations fail, and its next `aligned`
// nothrow allocations aligned to a cache line or more (a histogram's blocks, a site's shards).
#pragma once

namespace support {
struct failing_news {
  int plain = 0;
  int aligned = 0;
};
inline thread_local failing_news failing;
}  // namespace support
