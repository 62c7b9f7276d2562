// The program check_change_lists.py compiles against a copy of the headers in which each kind of
// change docs/design.md lists has been made in the files that list names, and nowhere else: an
// operation kind, a report format, a statistic, a cause, a setting and a setting of the NVTX tool. It writes what each
// reached into files of the folder its argument names.
#include <warmup/profile.hpp>
#include <warmup/detail/runtime/environment.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace {
void save(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return std::fputs("usage: change_lists OUT_DIR\n", stderr), 2;
  const std::string out = argv[1];
  using namespace std::chrono_literals;

  // The kind: its alias, its name in the report.
  for (int i = 0; i < 3; ++i) warmup::prefetch_scope s{"planted kind"};

  // The setting: read from WARMUP_PLANTED before main, then set here.
  save(out + "/setting.txt", std::to_string(warmup::planted_setting()) + "\n");
  warmup::set_planted_setting(0);  // out of range: a message, the value kept
  save(out + "/setting_after.txt", std::to_string(warmup::planted_setting()) + "\n");
  // The NVTX tool's setting: read by its row, as the tool reads WARMUP_NVTX_DEVICE.
  const auto tool = warmup::detail::read_setting<warmup::detail::setting::planted_tool>();
  save(out + "/tool_setting.txt", std::to_string(tool.value) + "\n" + tool.message + "\n");

  warmup::report r = warmup::snapshot();
  // The cause: a first call's time on it, as the join would report it.
  for (warmup::site_report& s : r.sites) {
    if (s.name != "planted kind") continue;
    warmup::attribution why;
    why.call = 5ms;
    why.excess = 4ms;
    why.causes.push_back({warmup::cause::planted_cause, 3ms, 2, ""});
    why.named = 3ms;
    why.unattributed = 1ms;
    why.calls = 1;
    why.spans.push_back({warmup::cause::planted_cause, 0ms, 3ms});
    s.host.first_call_causes = why;
  }
  save(out + "/report.json", warmup::to_json(r));
  save(out + "/report.csv", warmup::to_csv(r));
  save(out + "/report.svg", warmup::to_svg(r));
  save(out + "/report.trace.json", warmup::to_trace(r));
  save(out + "/report.txt", warmup::detail::table_text(r));
  // The format: WARMUP_REPORT's and write_report's list, by its extension.
  return warmup::write_report(r, out + "/report.planted") ? 0 : 1;
}
