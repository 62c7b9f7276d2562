// Compiled with WARMUP_DISABLE: every scope, constructor and macro must still compile (so
// instrumented code builds unchanged), and the report must say that nothing was measured.
#include <warmup/profile.hpp>
// Every public header the umbrella leaves out, each after it and so an outermost header of its
// own: the helper macros come back for each (tests/flags, one_file, runs this program too).
#include <warmup/compare.hpp>
#include <warmup/merge.hpp>
#include <warmup/merge_formats.hpp>
#include <warmup/read.hpp>
#include <warmup/runtime.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#if !defined(WARMUP_DISABLE)
#error "this test must be compiled with WARMUP_DISABLE"
#endif
static_assert(!warmup::enabled_at_compile_time);

static void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    std::abort();
  }
}

static void every_form(cudaStream_t stream) {
  const std::size_t bytes = 4096;
  const std::string_view view_name{"view"};

  warmup::context_scope c1{"context"};
  warmup::context_scope c2{"context", stream};
  warmup::launch_scope l1{"launch"};
  warmup::launch_scope l2{"launch", stream};
  warmup::region_scope r1{"region"};
  warmup::region_scope r2{"region", stream};

  warmup::alloc_scope a1{"alloc"};
  warmup::alloc_scope a2{"alloc", bytes};
  warmup::alloc_scope a3{"alloc", bytes, stream};
  warmup::h2d_scope h1{"h2d"};
  warmup::h2d_scope h2{"h2d", bytes};
  warmup::h2d_scope h3{"h2d", bytes, stream};
  warmup::d2h_scope dh1{"d2h"};
  warmup::d2h_scope dh2{"d2h", bytes};
  warmup::d2h_scope dh3{"d2h", bytes, stream};
  warmup::d2d_scope dd1{"d2d"};
  warmup::d2d_scope dd2{"d2d", bytes};
  warmup::d2d_scope dd3{"d2d", bytes, stream};

  // Names that are not string literals.
  warmup::region_scope from_temporary{std::string("tempo") + "rary"};
  warmup::launch_scope from_view{view_name, stream};
  warmup::scope<warmup::op::h2d> spelled_out{view_name, bytes, stream};

  WARMUP_SCOPE("macro");
  WARMUP_SCOPE("macro", stream);
  WARMUP_FUNC_SCOPE();
}

int main() {
  every_form(nullptr);

  // Prewarm changes what the program does, so it does its work with measurement compiled out:
  // the loop runs its calls and judges them; only the report has no sites.
  int calls = 0;
  warmup::steady_limits limits;
  limits.max_calls = 30;
  const warmup::steady_result steady = warmup::warmup_until_steady("prewarm", [&] { ++calls; }, limits);
  check(steady.calls == std::size_t(calls) && calls > 0, "warmup_until_steady calls the function");
  check(steady.why != warmup::steady_stop::error, "warmup_until_steady works");
  // The settings keep every function; measurement compiled out, there is nothing to keep.
  warmup::set_timeline_calls(100);
  check(warmup::timeline_calls() == 0, "timeline_calls() is 0: no site keeps a call");
  const warmup::prewarm_status refused = warmup::prewarm_pool(0);
  check(!refused.ok() && refused.message.find("0 bytes") != std::string::npos, "prewarm_pool(0) is refused");

  const warmup::report r = warmup::snapshot();
  check(!r.enabled, "snapshot().enabled is false");
  check(r.device_status == "warmup was compiled with WARMUP_DISABLE", "snapshot().device_status says why nothing was measured");
  check(r.sites.empty(), "snapshot().sites is empty");

  std::ostringstream table;
  warmup::print(r, table);
  check(table.str().find("disabled") != std::string::npos, "print() says warmup is disabled");

  const std::string json = warmup::to_json(r);
  check(json.find(R"("enabled":false)") != std::string::npos, R"(to_json() has "enabled":false)");
  check(json.find(R"("sites":[])") != std::string::npos, R"(to_json() has "sites":[])");
  std::puts("ok");
}
