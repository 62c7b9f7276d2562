// The NVTX tool's records of a run (tool_records.hpp).
#include "tool_records.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "child.hpp"

namespace {

/// A record's text (a few lines; at most 4 KB read).
std::string read_record(const std::string& path) {
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) text.assign(buf, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

/// The value of the line "key value" in a record; empty where it has none.
std::string field(const std::string& text, const std::string& key) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, key.size() + 1, key + " ") == 0) return text.substr(at + key.size() + 1, end - at - key.size() - 1);
    at = end + 1;
  }
  return {};
}

}  // namespace

std::string make_records_folder() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/warmup-run-XXXXXX";
  if (mkdtemp(path.data()) == nullptr) return {};
  return path;
}

void say_what_the_tool_recorded(const std::string& folder, const char* prefix, const std::string& program,
                                pid_t child, int status) {
  if (folder.empty()) return;
  std::map<std::pair<long, std::string>, std::string> began;  // by pid and image: the record's text
  std::set<std::string> reported;
  bool any = false;
  if (DIR* d = opendir(folder.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      any = true;
      const std::string path = folder + "/" + name;
      if (name.compare(0, 6, "began.") == 0) {
        const std::string text = read_record(path);
        began[{std::atol(field(text, "pid").c_str()), name.substr(6)}] = text;
      } else if (name.compare(0, 7, "report.") == 0) {
        reported.insert(name.substr(7));
      }
      unlink(path.c_str());
    }
    closedir(d);
  }
  rmdir(folder.c_str());
  if (!any) {
    std::cerr << prefix << "no report from " << program
              << ": none of its processes made an NVTX range under warmup's NVTX tool (it made no NVTX call, or "
                 "it set NVTX_INJECTION64_PATH itself, to another tool or none, before its first)\n";
    return;
  }
  for (const auto& [key, text] : began) {
    const auto& [pid, image] = key;
    if (reported.count(image) != 0) continue;
    std::string how = "it called exec or _exit, or a signal ended it";
    char words[64];
    if (pid == static_cast<long>(child) && WIFSIGNALED(status))
      how = std::string("it was ended by ") + signal_words(WTERMSIG(status), words);
    std::cerr << prefix << "process " << pid << " (" << field(text, "program")
              << ") made NVTX ranges and ended without writing its report (" << how << "): its ranges are in no report\n";
  }
}
