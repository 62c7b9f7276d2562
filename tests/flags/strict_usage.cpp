// Every public type and function instantiated, so that the strictest warnings users build with
// (check_flags.py strict) see the templates' bodies too, not only their declarations.
#include <warmup/profile.hpp>

#include <cstdint>
#include <sstream>
#include <string>

int main() {
  cudaStream_t stream = nullptr;
  const int small = 10;
  const long long large = 1LL << 33;
  const unsigned char tiny = 1;
  const std::size_t size = 64;
  for (int i = 0; i < 3; ++i) {
    warmup::context_scope c{"strict.context"};
    warmup::alloc_scope a{"strict.alloc", small};
    warmup::h2d_scope u{"strict.h2d", large, stream};
    warmup::d2h_scope d{"strict.d2h", tiny};
    warmup::d2d_scope x{"strict.d2d", size, stream};
    warmup::launch_scope l{"strict.launch", stream};
    warmup::region_scope r{"strict.region"};
    WARMUP_SCOPE("strict.macro");
    WARMUP_SCOPE("strict.macro_stream", stream);
    WARMUP_FUNC_SCOPE();
  }
  const int v = warmup::timed("strict.timed", [] { return 1; });
  warmup::timed<warmup::op::launch>("strict.timed_stream", stream, [] {});
  warmup::set_idle_threshold(std::chrono::milliseconds(5));
  warmup::set_timeline_calls(8);
  warmup::set_device_sampling(warmup::device_sampling::every_call);
  warmup::expect_cold();
  warmup::disable();
  warmup::enable();
  const warmup::report rep = warmup::snapshot(warmup::device_wait::no);
  std::ostringstream os;
  warmup::print(rep, os);
  std::string all = os.str() + warmup::to_json(rep) + warmup::to_csv(rep) + warmup::to_trace(rep) + warmup::to_svg(rep);
  for (auto f : {warmup::report_format::table, warmup::report_format::json, warmup::report_format::csv,
                 warmup::report_format::trace, warmup::report_format::svg})
    all += warmup::format_report(rep, f);
  std::vector<warmup::report_destination> dests;
  std::string error;
  (void)warmup::parse_destinations("stderr", dests, error);
  return all.empty() || v != 1 ? 1 : 0;
}
