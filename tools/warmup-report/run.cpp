// `warmup-report run -- PROGRAM ARGS...`: starts a program under warmup's NVTX tool
// (docs/nvtx-tool.md), so that its NVTX ranges are measured with no rebuild; once it has ended,
// says which of its processes wrote no report, and why where it can tell.
#include "run.hpp"

#include "child.hpp"
#include "tool_records.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

bool is_file(const std::string& p) { return !p.empty() && access(p.c_str(), R_OK) == 0; }

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) != nullptr ? std::string(buf) : p;
}

/// The tool: beside this program's install (../lib), where its build tree puts it relative to
/// this program (a tree copied whole), else where this build tree made it.
std::string find_tool(std::vector<std::string>& looked) {
  std::string self = real_path("/proc/self/exe");
  const std::string dir = self.substr(0, self.rfind('/'));
#ifdef WARMUP_NVTX_TOOL_INSTALLED
  looked.push_back(dir + "/../" WARMUP_NVTX_TOOL_INSTALLED);
#endif
#ifdef WARMUP_NVTX_TOOL_IN_TREE
  looked.push_back(dir + "/" WARMUP_NVTX_TOOL_IN_TREE);
#endif
#ifdef WARMUP_NVTX_TOOL_BUILT
  looked.emplace_back(WARMUP_NVTX_TOOL_BUILT);
#endif
  for (const std::string& p : looked)
    if (is_file(p)) return real_path(p);
  return {};
}

}  // namespace

int run_command(const std::vector<std::string>& args, const char* usage) {
  std::string report;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "--") {
      ++i;
      break;
    }
    if (args[i] == "-o") {
      if (i + 1 >= args.size() || args[i + 1] == "--") {
        std::cerr << "warmup-report: run: -o needs a value (a report: report.json, stderr, ...)\n\n" << usage;
        return 2;
      }
      report = args[++i];
      if (report.empty()) {
        std::cerr << "warmup-report: run: -o's value is empty; name a report (report.json, stderr, ...), or leave -o "
                     "out for WARMUP_REPORT's, else the table on stderr\n\n"
                  << usage;
        return 2;
      }
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << "warmup-report: unknown option " << args[i] << " for run\n\n" << usage;
      return 2;
    } else {
      break;
    }
  }
  if (i >= args.size()) {
    std::cerr << "warmup-report: run needs a program: warmup-report run [-o REPORT] -- PROGRAM [ARGS...]\n\n" << usage;
    return 2;
  }
  std::vector<std::string> looked;
  const std::string tool = find_tool(looked);
  if (tool.empty()) {
    std::cerr << "warmup-report: run: warmup's NVTX tool (libwarmup_nvtx.so) is not installed beside this program; "
                 "looked for";
    for (const std::string& p : looked) std::cerr << " " << p;
    std::cerr << " (build it with -DWARMUP_BUILD_NVTX_TOOL=ON)\n";
    return 2;
  }
  // NVTX loads one tool: one already named (Nsight's, a capture) gets every call through this one.
  if (const char* other = std::getenv("NVTX_INJECTION64_PATH"); other != nullptr && *other != '\0' && real_path(other) != tool) {
    if (const char* next = std::getenv("WARMUP_NVTX_NEXT"); next == nullptr || *next == '\0') {
      setenv("WARMUP_NVTX_NEXT", other, 1);
      std::cerr << "warmup-report: run: NVTX_INJECTION64_PATH named another NVTX tool (" << other
                << "); it sees every NVTX call through warmup's (WARMUP_NVTX_NEXT)\n";
    } else {
      std::cerr << "warmup-report: run: NVTX_INJECTION64_PATH named another NVTX tool (" << other
                << ") and WARMUP_NVTX_NEXT names " << next << ": the first is left out\n";
    }
  }
  setenv("NVTX_INJECTION64_PATH", tool.c_str(), 1);
  if (!report.empty()) setenv("WARMUP_REPORT", report.c_str(), 1);
  else if (const char* r = std::getenv("WARMUP_REPORT"); r == nullptr || *r == '\0') setenv("WARMUP_REPORT", "stderr", 1);
  // The tool's records of each process it is loaded into, in a folder of this run's own.
  const std::string records = make_records_folder();
  if (!records.empty()) setenv("WARMUP_NVTX_STATUS", records.c_str(), 1);
  std::vector<char*> argv;
  std::string program;
  for (std::size_t j = i; j < args.size(); ++j) {
    argv.push_back(const_cast<char*>(args[j].c_str()));
    program += (j == i ? "" : " ") + args[j];
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  int status = 0;
  if (const int e = start_and_wait(argv.data(), pid, status); e != 0) {
    if (!records.empty()) rmdir(records.c_str());
    std::cerr << "warmup-report: run: cannot start " << args[i] << ": " << std::strerror(e) << "\n";
    return e == ENOENT ? 127 : 126;  // as a shell says it
  }
  say_what_the_tool_recorded(records, "warmup-report: run: ", program, pid, status);
  return exit_as(status);
}
