// Where a report path points, read as the shell's `>` reads it (docs/reports.md, "The report at
// exit"): /dev/stdout and /dev/fd/N written through the descriptor, links followed and never
// replaced, and two processes given one path each keeping their report.
#include "catch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/io/report_destinations.hpp"

#include "../support/scratch_files.hpp"

namespace {

using warmup_test::entries_of;
using warmup_test::read_all;
using warmup_test::scratch_dir;

namespace d = warmup::detail;

// /dev's entries with their kind and inode: what no report may change.
std::string dev_listing() {
  std::string out;
  for (const std::string& e : entries_of("/dev")) {
    struct stat st {};
    if (::lstat(("/dev/" + e).c_str(), &st) == 0)
      out += e + " " + std::to_string(st.st_mode & S_IFMT) + " " + std::to_string(st.st_ino) + "\n";
  }
  return out;
}

warmup::report small_report(int pid) {
  warmup::report r;
  r.identity.pid = pid;
  r.identity.host = "paths";
  return r;
}

// Runs `body` in a forked child whose descriptor `fd` is `to` (the child's own: the test's
// descriptors stay as they were); returns the child's exit status (0: body returned true).
template <class Body>
int in_child_with(int fd, int to, Body&& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::dup2(to, fd) < 0) ::_exit(3);
    ::_exit(body() ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// `fd` moved above the descriptors a test redirects (a pipe made while 3 is free is 3 and 4).
int above_redirects(int fd) {
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 20);
  ::close(fd);
  return high;
}

std::string drain(int fd) {
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  return got;
}

}  // namespace

TEST_CASE("target_of: a path read as the shell's > reads it") {
  scratch_dir dir;
  CHECK(d::target_of("/dev/stdout").kind == d::path_target::descriptor);
  CHECK(d::target_of("/dev/stdout").fd == 1);
  CHECK(d::target_of("/dev/stderr").fd == 2);
  CHECK(d::target_of("/dev/fd/2").fd == 2);
  CHECK(d::target_of("/proc/self/fd/1").fd == 1);
  CHECK(d::target_of("/proc/" + std::to_string(::getpid()) + "/fd/2").fd == 2);
  CHECK(d::target_of("/dev/null").kind == d::path_target::in_place);
  // A descriptor that is not open is refused, never made a file in /proc.
  const d::path_target closed = d::target_of("/dev/fd/987");
  CHECK(closed.kind == d::path_target::failed);
  CHECK(closed.error == EBADF);
  // A link is followed to its target, relative links from the link's own folder.
  REQUIRE(::mkdir((dir.path + "/sub").c_str(), 0700) == 0);
  REQUIRE(::symlink("sub/real.json", (dir.path + "/rel.json").c_str()) == 0);
  const d::path_target rel = d::target_of(dir.path + "/rel.json");
  CHECK(rel.kind == d::path_target::file);
  CHECK(rel.path == dir.path + "/sub/real.json");
  REQUIRE(::symlink((dir.path + "/loop_b").c_str(), (dir.path + "/loop_a").c_str()) == 0);
  REQUIRE(::symlink((dir.path + "/loop_a").c_str(), (dir.path + "/loop_b").c_str()) == 0);
  CHECK(d::target_of(dir.path + "/loop_a").error == ELOOP);
  CHECK(d::target_of(dir.path + "/sub").error == EISDIR);
  CHECK(d::descriptor_number("/dev/fd/12") == 12);
  CHECK(d::descriptor_number("/dev/fd/1x") == -1);
  CHECK(d::fd_folder_owner("/dev/fd/") == ::getpid());
  CHECK(d::fd_folder_owner("/proc/1/fd") == 1);
  CHECK(d::fd_folder_owner("/proc/self/") == 0);
  CHECK(d::fd_folder_owner(dir.path) == 0);
}

TEST_CASE("/dev/stdout and /dev/fd/N redirected to a file: written after the program's output, never replaced") {
  scratch_dir dir;
  const std::string before = dev_listing();
  const warmup::report r = small_report(11);
  const std::string json = warmup::to_json(r) + "\n";
  for (const char* spec : {"/dev/stdout:json", "/proc/self/fd/1:json", "/dev/fd/3:json"}) {
    CAPTURE(spec);
    const int fd = std::strstr(spec, "/3:") != nullptr ? 3 : 1;
    const std::string out = dir.path + "/out" + std::to_string(fd) + ".json";
    const int file = above_redirects(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    REQUIRE(file >= 0);
    CHECK(in_child_with(fd, file, [&] {
      if (fd == 1) std::printf("the program's own line\n");  // buffered: flushed before the report
      return d::write_report_to(r, spec, false, d::spec_errors::say, 0);
    }) == 0);
    ::close(file);
    CHECK(read_all(out) == (fd == 1 ? "the program's own line\n" : "") + json);
    struct stat st {};
    REQUIRE(::lstat("/dev/stdout", &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
  }
  CHECK(entries_of(dir.path) == std::vector<std::string>{"out1.json", "out3.json"});
  CHECK(dev_listing() == before);
}

TEST_CASE("/dev/stdout and /dev/fd/N redirected to a pipe: the report comes through the pipe") {
  const std::string before = dev_listing();
  const warmup::report r = small_report(12);
  for (const char* spec : {"/dev/stdout:csv", "/dev/fd/3:csv"}) {
    CAPTURE(spec);
    int p[2];
    REQUIRE(::pipe(p) == 0);
    p[0] = above_redirects(p[0]);
    p[1] = above_redirects(p[1]);
    const int fd = std::strstr(spec, "/3:") != nullptr ? 3 : 1;
    const int status = in_child_with(fd, p[1], [&] {
      ::close(p[0]);
      return d::write_report_to(r, spec, true, d::spec_errors::say, 0);  // a forked child: no tag on a stream
    });
    ::close(p[1]);
    CHECK(drain(p[0]) == warmup::to_csv(r));
    ::close(p[0]);
    CHECK(status == 0);
  }
  CHECK(dev_listing() == before);
}

TEST_CASE("a report path that is a link is written through to its target, in the target's folder") {
  scratch_dir links, elsewhere, shm("/dev/shm");
  const warmup::report r = small_report(13);
  const std::string json = warmup::to_json(r) + "\n";
  // To a file in another folder, and to one on another file system (/dev/shm is tmpfs): the
  // temporary file is made beside the target, so the rename never crosses file systems.
  for (const std::string& target : {elsewhere.path + "/real.json", shm.path + "/real.json"}) {
    CAPTURE(target);
    { std::ofstream(target) << "an earlier run's"; }
    struct stat old {};
    REQUIRE(::stat(target.c_str(), &old) == 0);
    const timespec long_ago[2] = {{0, 0}, {0, 0}};
    REQUIRE(::utimensat(AT_FDCWD, target.c_str(), long_ago, 0) == 0);
    const std::string link = links.path + "/report.json";
    ::unlink(link.c_str());
    REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
    CHECK(d::write_report_to(r, link, false, d::spec_errors::say, 1000));
    struct stat st {};
    REQUIRE(::lstat(link.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));
    CHECK(read_all(target) == json);
    CHECK(entries_of(links.path) == std::vector<std::string>{"report.json"});
    CHECK(entries_of(d::folder_of(target)) == std::vector<std::string>{"real.json"});
  }
  // A dangling link: its target is made, as the shell's > makes it.
  const std::string dangling = links.path + "/dangling.json";
  REQUIRE(::symlink((elsewhere.path + "/new.json").c_str(), dangling.c_str()) == 0);
  CHECK(d::write_report_to(r, dangling, false, d::spec_errors::say, 1000));
  CHECK(read_all(elsewhere.path + "/new.json") == json);
  // A loop: a message, the table on stderr in its place, the links as they were.
  const std::string loop = links.path + "/loop.json";
  REQUIRE(::symlink(loop.c_str(), loop.c_str()) == 0);
  CHECK_FALSE(d::write_report_to(r, loop, false, d::spec_errors::say, 1000));
  struct stat st {};
  REQUIRE(::lstat(loop.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  // write_file_atomically keeps the same rule.
  CHECK(warmup::write_file_atomically(dangling, "again").empty());
  REQUIRE(::lstat(dangling.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(read_all(elsewhere.path + "/new.json") == "again");
}

TEST_CASE("a report path another process of this run wrote is kept, and this report goes beside it") {
  scratch_dir dir;
  const std::string path = dir.path + "/report.json";
  const std::int64_t started = 1000;  // wall-clock ms: every file written today is since then
  // An earlier run's file (written before this process started) is replaced.
  { std::ofstream(path) << "yesterday"; }
  const timespec long_ago[2] = {{0, 0}, {0, 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), long_ago, 0) == 0);
  std::string moved;
  CHECK(d::write_own_report(path, "mine", started, 77, moved).empty());
  CHECK(moved.empty());
  CHECK(read_all(path) == "mine");
  // Its own file, this process replaces.
  CHECK(d::write_own_report(path, "mine again", started, 77, moved).empty());
  CHECK(moved.empty());
  CHECK(read_all(path) == "mine again");
  // Another process's, written since this one started: kept; this report goes beside it.
  const std::string theirs = dir.path + "/theirs.json";
  { std::ofstream(theirs) << "theirs"; }
  REQUIRE(std::rename(theirs.c_str(), path.c_str()) == 0);
  CHECK(d::write_own_report(path, "mine, third", started, 77, moved).empty());
  CHECK(moved == dir.path + "/report.77.json");
  CHECK(read_all(path) == "theirs");
  CHECK(read_all(dir.path + "/report.77.json") == "mine, third");
  // The same process again: the path is still the other's, and the tagged file its own.
  moved.clear();
  CHECK(d::write_own_report(path, "mine, fourth", started, 77, moved).empty());
  CHECK(moved == dir.path + "/report.77.json");
  CHECK(read_all(dir.path + "/report.77.json") == "mine, fourth");
  CHECK(entries_of(dir.path) == std::vector<std::string>{"report.77.json", "report.json"});
  // Without a start (started_ms < 0) the path is replaced, as a tool's output is.
  CHECK(d::write_own_report(path, "tool", -1, 77, moved).empty());
  CHECK(read_all(path) == "tool");
}

TEST_CASE("a file another process writes just after this one started is kept: starts and files on one clock") {
  // The kernel dates a file by its coarse clock, up to a tick behind the precise one: a start read
  // on the precise clock dates some files written within that tick before it (here, a few in a
  // hundred), which would then be replaced.
  scratch_dir dir;
  const std::string path = dir.path + "/report.json", beside = dir.path + "/report.77.json";
  int replaced = 0;
  for (int i = 0; i < 500; ++i) {
    const std::int64_t started = d::file_clock_ms();
    { std::ofstream(path) << "theirs"; }
    std::string moved;
    REQUIRE(d::write_own_report(path, "mine", started, 77, moved).empty());
    replaced += moved != beside || read_all(path) != "theirs";
    std::remove(beside.c_str());
  }
  CHECK(replaced == 0);
}

TEST_CASE("two and eight processes given one report path at once: every report kept, each said") {
  for (const int processes : {2, 8}) {
    CAPTURE(processes);
    scratch_dir dir;
    const std::string path = dir.path + "/report.json";
    const std::string errors = dir.path + "/stderr.txt";
    const int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    REQUIRE(err >= 0);
    int gate[2];
    REQUIRE(::pipe(gate) == 0);
    std::set<int> pids;
    std::fflush(nullptr);
    for (int i = 0; i < processes; ++i) {
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        ::close(gate[1]);
        char c;
        while (::read(gate[0], &c, 1) < 0) {  // all start writing when the gate closes
        }
        ::dup2(err, 2);
        const warmup::report r = small_report(::getpid());
        ::_exit(d::write_report_to(r, path, false, d::spec_errors::say, 1000) ? 0 : 1);
      }
      pids.insert(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);
    for (int i = 0; i < processes; ++i) {
      int status = 0;
      const pid_t pid = ::wait(&status);
      CHECK(pids.count(pid) == 1);
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    ::close(err);
    // One file a process, each a whole report naming its writer, and one message for each
    // process that went beside the first.
    std::set<int> found;
    for (const std::string& e : entries_of(dir.path)) {
      if (e == "stderr.txt") continue;
      const std::string text = read_all(dir.path + "/" + e);
      const std::size_t at = text.find("\"pid\":");
      REQUIRE(at != std::string::npos);
      const int pid = std::atoi(text.c_str() + at + 6);
      CHECK(found.insert(pid).second);
      CHECK((e == "report.json" || e == "report." + std::to_string(pid) + ".json"));
      CHECK(text.back() == '\n');
    }
    CHECK(found == pids);
    const std::string said = read_all(errors);
    std::size_t messages = 0;
    for (std::size_t at = 0; (at = said.find("another process wrote", at)) != std::string::npos; ++at) ++messages;
    CHECK(messages == static_cast<std::size_t>(processes - 1));
  }
}

TEST_CASE("write_report's bad destination list is blamed on write_report, not on WARMUP_REPORT") {
  scratch_dir dir;
  const std::string errors = dir.path + "/stderr.txt";
  const int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(err >= 0);
  CHECK(in_child_with(2, err, [] { return !warmup::write_report(small_report(14), ""); }) == 0);
  ::close(err);
  const std::string said = read_all(errors);
  CHECK(said.rfind("warmup: write_report: '' names no destination", 0) == 0);
  CHECK(said.find("WARMUP_REPORT") == std::string::npos);
}

TEST_CASE("a report the disk cuts short leaves no temporary file behind, and the file it would replace whole") {
  // RLIMIT_FSIZE stands in for a full disk, in a child, whose limit is its own: the temporary
  // file is made and written in part, the write fails, and it is removed.
  scratch_dir dir;
  const std::string target = dir.path + "/report.json";
  { std::ofstream(target) << "the good report"; }
  CHECK(in_child_with(2, 2, [&] {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1000, 1000};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return false;
    const std::string why = warmup::write_file_atomically(target, std::string(5000, 'x'));
    return why.rfind("cannot write (File too large) ", 0) == 0;
  }) == 0);
  CHECK(entries_of(dir.path) == std::vector<std::string>{"report.json"});
  CHECK(read_all(target) == "the good report");
}
