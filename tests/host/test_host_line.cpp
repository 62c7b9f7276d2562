// The table's host line under a first call (detail/io/table_writer.hpp): its words follow its figures.
// "working" alone only where the CPU time covers 90% of the call or more, else the shares of
// working and waiting; device memory taken or given back only from 1 MiB on (the threshold that
// decides whether the line is printed at all), never "took 0 B".
#include "catch.hpp"

#include <string>

#include "warmup/profile.hpp"
#include "warmup/detail/io/table_writer.hpp"

using namespace std::chrono_literals;

namespace {
std::string line_of(std::chrono::nanoseconds cpu, std::chrono::nanoseconds wall) {
  warmup::host_signals h;
  h.cpu = cpu;
  h.minor_faults = 5000;
  return warmup::detail::host_line(h, wall);
}

std::string line_with_memory(std::int64_t taken) {
  warmup::host_signals h;
  h.cpu = 60us;
  h.context_existed = true;
  h.device_memory_taken = taken;
  return warmup::detail::host_line(h, 100us);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("host line: 'working' only from 90% of the call on the CPU; below, how much was waiting") {
  CHECK(has(line_of(100ms, 100ms), "100 ms of 100 ms (working), "));
  CHECK(has(line_of(90ms, 100ms), "90.0 ms of 100 ms (working), "));        // at the threshold
  CHECK(has(line_of(89ms, 100ms), "(working 89%, waiting 11%), "));        // just below
  CHECK(has(line_of(91ms, 100ms), "(working), "));                         // just above
  CHECK(has(line_of(68ms, 100ms), "(working 68%, waiting 32%), "));        // the call
  CHECK(has(line_of(1ms, 5ms), "(working 20%, waiting 80%), "));
  CHECK(has(line_of(0ms, 21us), "(working 0%, waiting 100%), "));
  CHECK(has(line_of(101ms, 100ms), "(working), "));  // CPU time read a little past the wall time
  CHECK(has(line_of(0ms, 0ms), "(working), "));      // nothing to share out
  for (const auto cpu : {0ms, 1ms, 50ms, 68ms, 89ms, 90ms, 100ms}) {
    const std::string l = line_of(cpu, 100ms);
    CHECK_FALSE(has(l, "not waiting"));
    CHECK_FALSE(has(l, "mostly"));
  }
}

TEST_CASE("host line: device memory from 1 MiB on, either way; never 'took 0 B'") {
  const std::int64_t mib = std::int64_t{1} << 20;
  CHECK_FALSE(has(line_with_memory(0), "device memory"));
  CHECK_FALSE(has(line_with_memory(0), "0 B"));
  CHECK_FALSE(has(line_with_memory(mib - 1), "device memory"));   // just below
  CHECK_FALSE(has(line_with_memory(-(mib - 1)), "device memory"));
  CHECK_FALSE(has(line_with_memory(64 << 10), "device memory"));  // a page of the driver's
  CHECK(has(line_with_memory(mib), ", took 1.00 MiB of device memory"));  // at the threshold
  CHECK(has(line_with_memory(mib + 1), ", took 1.00 MiB of device memory"));  // just above
  CHECK(has(line_with_memory(-mib), ", gave back 1.00 MiB of device memory"));
  CHECK(has(line_with_memory(std::int64_t{350} << 20), "context existed, took 350 MiB of device memory"));
  // The same threshold decides whether the line is printed at all.
  warmup::host_signals h;
  h.context_existed = true;
  h.device_memory_taken = mib - 1;
  CHECK_FALSE(warmup::detail::host_signals_tell(h, 100us));
  h.device_memory_taken = mib;
  CHECK(warmup::detail::host_signals_tell(h, 100us));
}

TEST_CASE("host line: the libraries a first call loaded, six named, \"...\" only past six") {
  warmup::host_signals h;
  h.cpu = 60us;
  h.libraries_loaded = {"libA.so", "libB.so", "libC.so", "libD.so", "libE.so", "libF.so"};
  const std::string six = warmup::detail::host_line(h, 100us);
  CHECK(has(six, ", loaded 6 shared libraries: libA.so libB.so libC.so libD.so libE.so libF.so"));
  CHECK_FALSE(has(six, "..."));
  h.libraries_loaded.push_back("libG.so");
  const std::string seven = warmup::detail::host_line(h, 100us);
  CHECK(has(seven, ", loaded 7 shared libraries: libA.so libB.so libC.so libD.so libE.so libF.so ..."));
  CHECK_FALSE(has(seven, "libG.so"));
}
