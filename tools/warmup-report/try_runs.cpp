// `warmup-report try`'s runs (try_runs.hpp).
#include "try_runs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include <warmup/detail/io/text.hpp>
#include <warmup/read.hpp>

#include "child.hpp"

extern char** environ;

namespace try_tool {

void split_setting(std::string_view setting, std::vector<std::string>& variables, std::vector<env_setting>& pairs) {
  for (std::string_view word : warmup::detail::setting_words(setting)) {
    if (const std::size_t eq = word.find('='); eq != std::string_view::npos)
      pairs.push_back({std::string(word.substr(0, eq)), std::string(word.substr(eq + 1))});
    else
      variables.emplace_back(word);
  }
}

std::vector<std::string> cache_variables() {
  std::vector<std::string> out;
  for (const warmup::detail::remedy_row& r : warmup::detail::remedy_table) {
    if (r.kind != warmup::remedy_kind::cache) continue;
    std::vector<std::string> vars;
    std::vector<env_setting> pairs;
    split_setting(r.setting, vars, pairs);
    for (const std::string& v : vars)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::string make_private_folder(const char* prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
  if (mkdtemp(path.data()) == nullptr) return {};
  return path;
}

bool make_folder(const std::string& path) { return mkdir(path.c_str(), 0700) == 0 || errno == EEXIST; }

namespace {
int remove_one(const char* path, const struct stat*, int type, struct FTW*) {
  if (type == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;  // on: what cannot be removed is left, the rest still goes
}
}  // namespace

void remove_tree(const std::string& path) {
  if (!path.empty()) nftw(path.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

bool can_drop_page_cache(std::string& error) {
  const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("/proc/sys/vm/drop_caches cannot be opened for writing (") + std::strerror(errno) +
            "): dropping the page cache needs root (run try as root, or leave --drop-caches out)";
    return false;
  }
  close(fd);
  return true;
}

bool drop_page_cache() {
  sync();
  const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, "1", 1) == 1;
  close(fd);
  return ok;
}

namespace {

/// The program's figures from its report: per site, the first call and the time to the first
/// result. False, with `why`, where the report is missing or unreadable.
bool read_figures(const std::string& path, std::vector<site_figures>& out, std::string& why, warmup::report* whole) {
  if (access(path.c_str(), F_OK) != 0) {
    why = "no report: the program wrote none (it does not use warmup, or did not read WARMUP_REPORT)";
    return false;
  }
  std::string error;
  const std::optional<std::string> text = warmup::read_text_file(path, error);
  if (!text) {
    why = "no report: " + error;
    return false;
  }
  std::optional<warmup::report> r = warmup::read_report(*text, error);
  if (!r) {
    why = "no report: " + path + ": " + error;
    return false;
  }
  for (const warmup::site_report& s : r->sites) {
    if (s.calls == 0) continue;
    site_figures f;
    f.op = std::string(warmup::to_string(s.op));
    f.name = s.name;
    f.first = s.host.first.count();
    if (!s.timeline.empty() && s.timeline.front().index == 0)
      f.first_result = (s.timeline.front().host_start + s.timeline.front().host).count();
    out.push_back(std::move(f));
  }
  if (whole != nullptr) *whole = std::move(*r);
  return true;
}

/// The last lines of a run's output (at most `lines`, each cut to 200 bytes, made printable).
std::string output_tail(const std::string& path, int lines = 6) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (!in || size <= 0) return {};
  const std::streamoff from = std::max<std::streamoff>(0, size - 4096);
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  std::vector<std::string> kept;
  std::size_t end = text.size();
  while (end > 0 && static_cast<int>(kept.size()) < lines) {
    const std::size_t start = text.rfind('\n', end - 1);
    const std::size_t first = start == std::string::npos ? 0 : start + 1;
    if (end > first) kept.push_back(warmup::detail::printable(std::string_view(text).substr(first, end - first), 200));
    if (start == std::string::npos || (from > 0 && start == 0)) break;
    end = start;
  }
  std::string out;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) out += (out.empty() ? "" : "\n") + *it;
  return out;
}

}  // namespace

int run_once(const std::vector<std::string>& program, const std::vector<env_setting>& env, const std::string& report,
             run_result& out, warmup::report* whole) {
  // try's environment, each of `env` replacing a variable of its name or added.
  std::map<std::string, std::string> set;
  for (const env_setting& e : env) set[e.name] = e.value;
  std::vector<std::string> texts;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const std::string name(entry.substr(0, entry.find('=')));
    if (set.count(name) == 0) texts.emplace_back(entry);
  }
  for (const auto& [name, value] : set) texts.push_back(name + "=" + value);
  std::vector<char*> envp, argv;
  for (std::string& t : texts) envp.push_back(t.data());
  envp.push_back(nullptr);
  for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  out.env = env;
  unlink(report.c_str());
  pid_t pid = 0;
  int status = 0;
  sigset_t mask;
  sigprocmask(SIG_SETMASK, nullptr, &mask);
  const auto start = std::chrono::steady_clock::now();
  const std::string output = report.substr(0, report.rfind('.')) + ".out";
  const int e = start_and_wait(argv.data(), pid, status, envp.data(), output.c_str());
  // start_and_wait leaves the signals it waits for blocked (for exit_as): the next run's child
  // would inherit them blocked.
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (e != 0) return e;
  out.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  out.wait_status = status;
  char words[64];
  if (WIFSIGNALED(status)) out.status = std::string("ended by ") + signal_words(WTERMSIG(status), words);
  else if (!WIFEXITED(status)) out.status = "ended, not by exit";
  else if (WEXITSTATUS(status) != 0) out.status = "exit " + std::to_string(WEXITSTATUS(status));
  else if (std::string why; !read_figures(report, out.sites, why, whole)) out.status = why;
  else out.status = "ok", out.ok = true;
  if (!out.ok) out.output_tail = output_tail(output);
  unlink(report.c_str());
  unlink(output.c_str());
  return 0;
}

}  // namespace try_tool
