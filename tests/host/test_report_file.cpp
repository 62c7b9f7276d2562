// Report files under hostile conditions: a shared directory with planted links, files and FIFOs;
// two writers of one path; concurrent snapshots (issue 12).
#include "catch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>  // signgam
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "warmup/profile.hpp"
#include "warmup/detail/io/report_destinations.hpp"
#include "warmup/detail/runtime/notices.hpp"

#include "../support/scratch_files.hpp"

namespace {

using warmup_test::entries_of;
using warmup_test::read_all;
using warmup_test::scratch_dir;

}  // namespace

TEST_CASE("the temporary report file is never a planted link, file or FIFO") {
  scratch_dir d;
  const std::string target = d.path + "/report.json";
  const std::string secret = d.path + "/secret";
  { std::ofstream(secret) << "root only"; }
  // What 0.1 opened: <path>.tmp.<pid>. Plant a link to the secret there, and a FIFO beside it
  // under the other predictable name a writer might choose.
  const std::string old_tmp = target + ".tmp." + std::to_string(::getpid());
  REQUIRE(::symlink(secret.c_str(), old_tmp.c_str()) == 0);
  REQUIRE(::mkfifo((d.path + "/report.json.tmp").c_str(), 0666) == 0);
  const std::string why = warmup::write_file_atomically(target, "{\"report\":1}\n");
  CHECK(why.empty());
  CHECK(read_all(secret) == "root only");
  CHECK(read_all(target) == "{\"report\":1}\n");
  struct stat st {};
  REQUIRE(::lstat(target.c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  // No temporary file is left behind (the library's own is .warmup-<hex>.tmp): only the target,
  // the secret, the link and the FIFO.
  const std::string link_name = "report.json.tmp." + std::to_string(::getpid());
  std::vector<std::string> expected = {"report.json", "report.json.tmp", link_name, "secret"};
  std::sort(expected.begin(), expected.end());
  CHECK(entries_of(d.path) == expected);
}

TEST_CASE("a write that fails leaves no temporary file behind") {
  scratch_dir d;
  // The target is a folder: the temporary file is written, and the rename over it fails.
  const std::string target = d.path + "/taken";
  REQUIRE(::mkdir(target.c_str(), 0700) == 0);
  const std::string why = warmup::write_file_atomically(target, "{\"report\":1}\n");
  CHECK_FALSE(why.empty());
  CHECK(entries_of(d.path) == std::vector<std::string>{"taken"});
  CHECK(entries_of(target).empty());
}

TEST_CASE("a write the disk cuts short is a failure with the disk's reason, never a short file called done") {
  // RLIMIT_FSIZE stands in for a full disk: the first write stops at the limit (a partial
  // write), the next fails with EFBIG. In a child, whose limit is its own.
  char path[] = "/tmp/warmup-short-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1000, 1000};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    ::_exit(warmup::detail::write_all(fd, std::string(5000, 'x')) == EFBIG ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  ::close(fd);
  struct stat st {};
  REQUIRE(::stat(path, &st) == 0);
  ::unlink(path);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(st.st_size == 1000);  // the partial write did happen: the reason is the second one's
}

TEST_CASE("a report file gets the permissions any new file of the program gets") {
  scratch_dir d;
  const mode_t old = ::umask(027);
  const std::string target = d.path + "/r.txt";
  CHECK(warmup::write_file_atomically(target, "x").empty());
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
}

TEST_CASE("a legal long file name is written: the temporary name does not grow it") {
  scratch_dir d;
  const std::string target = d.path + "/" + std::string(250, 'r') + ".txt";  // 254 bytes: legal
  CHECK(warmup::write_file_atomically(target, "long").empty());
  CHECK(read_all(target) == "long");
}

TEST_CASE("two threads writing one path: one complete report always wins") {
  scratch_dir d;
  const std::string target = d.path + "/race.txt";
  const std::string a(200'000, 'a'), b(100'000, 'b');
  std::atomic<int> failures{0};
  for (int round = 0; round < 200; ++round) {
    std::thread t1([&] { failures += !warmup::write_file_atomically(target, a).empty(); });
    std::thread t2([&] { failures += !warmup::write_file_atomically(target, b).empty(); });
    t1.join();
    t2.join();
    const std::string got = read_all(target);
    REQUIRE((got == a || got == b));
  }
  CHECK(failures == 0);
}

TEST_CASE("snapshots from two threads over a site with a p50 interval race on nothing") {
  for (int i = 0; i < 200; ++i) warmup::region_scope s{"hostile.interval"};  // 6..2000 steady calls
  signgam = -7;  // the program's own: lgamma would set it to 1
  std::thread t1([] {
    for (int i = 0; i < 20; ++i) (void)warmup::snapshot();
  });
  std::thread t2([] {
    for (int i = 0; i < 20; ++i) (void)warmup::snapshot();
  });
  t1.join();
  t2.join();
  CHECK(signgam == -7);
  const auto r = warmup::snapshot();
  bool interval = false;
  for (const auto& s : r.sites)
    if (s.name == "hostile.interval") interval = s.host.steady && s.host.steady->p50_low.has_value();
  CHECK(interval);
}

TEST_CASE("bad values through the API: the variables' limits, one notice each kind") {
  // The ends of the idle threshold's range are in it: no notice (the board forgets its notices
  // first, as in a forked child; one of a kind is said once).
  auto& board = warmup::detail::notice_board();
  board.lock();
  board.reset_locked();
  board.unlock();
  warmup::set_idle_threshold(std::chrono::hours(1));
  warmup::set_idle_threshold(std::chrono::milliseconds(1));
  CHECK_FALSE(board.raised(warmup::detail::notice_kind::bad_setting));
  warmup::set_timeline_calls(UINT32_MAX);  // a -1 passed: 172 GB a site in 0.1
  { warmup::region_scope s{"hostile.timeline_after_bad_value"}; }
  warmup::set_timeline_calls(16);
  warmup::set_idle_threshold(std::chrono::nanoseconds{0});
  CHECK(warmup::idle_threshold() == std::chrono::milliseconds(1));
  warmup::set_idle_threshold(std::chrono::hours(5));
  CHECK(warmup::idle_threshold() == std::chrono::hours(1));
  warmup::set_idle_threshold(std::chrono::seconds(1));
  const auto r = warmup::snapshot();
  bool measured = false, said = false;
  for (const auto& s : r.sites) measured = measured || (s.name == "hostile.timeline_after_bad_value" && s.calls == 1);
  for (const auto& n : r.notices) said = said || n.find("is outside") != std::string::npos;
  CHECK(measured);
  CHECK(said);
  // The site made under the bad value holds a bounded timeline.
  CHECK(r.library.site_bytes < (std::size_t{1} << 30));
}

TEST_CASE("a report file's temporary is made in the file's own folder") {
  using warmup::detail::folder_of;
  CHECK(folder_of("/tmp/ab/report.json") == "/tmp/ab/");
  CHECK(folder_of("out/r.json") == "out/");
  CHECK(folder_of("/r.json") == "/");
  CHECK(folder_of("r.json").empty());
}

TEST_CASE("WARMUP_REPORT: capitals, an explicit format, and lists that name nothing") {
  std::vector<warmup::report_destination> d;
  std::string error;
  CHECK(warmup::parse_destinations("out/report.JSON, /dev/stdout:json ,/dev/fd/3:CSV", d, error));
  REQUIRE(d.size() == 3);
  CHECK((d[0].target == "out/report.JSON" && d[0].format == warmup::report_format::json));
  CHECK((d[1].target == "/dev/stdout" && d[1].format == warmup::report_format::json));
  CHECK((d[2].target == "/dev/fd/3" && d[2].format == warmup::report_format::csv));
  d.clear();
  CHECK_FALSE(warmup::parse_destinations(" ,,, ", d, error));
  CHECK(error.find("names no destination") != std::string::npos);
  error.clear();
  CHECK_FALSE(warmup::parse_destinations("report.jsn,stderr", d, error));
  CHECK(error.find("'report.jsn'") != std::string::npos);
  CHECK(d.size() == 1);  // stderr still parsed
}

TEST_CASE("a failure message keeps its reason however long the path") {
  const std::string path = "/nonexistent-" + std::string(2000, 'd') + "/r.json";
  const std::string why = warmup::write_file_atomically(path, "x");
  CHECK(why.rfind("cannot write (File name too long) ", 0) == 0);  // the reason first
}

TEST_CASE("every report format is picked by its extension and by its name, and writes") {
  const warmup::report r = warmup::snapshot();
  for (const warmup::report_format_info& f : warmup::report_formats) {
    CAPTURE(f.name);
    std::vector<warmup::report_destination> d;
    std::string error;
    REQUIRE(warmup::parse_destinations("out/r" + std::string(f.extension) + ",pipe:" + std::string(f.name), d, error));
    REQUIRE(d.size() == 2);
    CHECK(d[0].format == f.format);
    CHECK((d[1].target == "pipe" && d[1].format == f.format));
    CHECK(&warmup::info(f.format) == &f);
    CHECK(!warmup::format_report(r, f.format).empty());
  }
  std::vector<warmup::report_destination> d;
  std::string error;
  CHECK_FALSE(warmup::parse_destinations("out/report.xml", d, error));
  for (const warmup::report_format_info& f : warmup::report_formats) {
    CHECK(error.find(std::string(f.extension)) != std::string::npos);
    CHECK(error.find(":" + std::string(f.name)) != std::string::npos);
  }
}

TEST_CASE("an escaped %% places nothing: ranks and forked children still get files of their own") {
  scratch_dir d;
  warmup::report r;
  r.identity.pid = 4242;
  using warmup::detail::write_report_to;
  // y%%r.json is the fixed path y%r.json: rank 3 tags it as it tags any path without %r, so it
  // never writes over rank 0's file.
  r.identity.rank = 0;
  CHECK(write_report_to(r, d.path + "/y%%r.json", false, warmup::detail::spec_errors::say));
  r.identity.rank = 3;
  CHECK(write_report_to(r, d.path + "/y%%r.json", false, warmup::detail::spec_errors::say));
  // z%%p.json from a forked child: the child's pid goes in, the parent's file stays whole.
  r.identity.rank.reset();
  CHECK(write_report_to(r, d.path + "/z%%p.json", false, warmup::detail::spec_errors::say));
  CHECK(write_report_to(r, d.path + "/z%%p.json", true, warmup::detail::spec_errors::say));
  CHECK(entries_of(d.path) == std::vector<std::string>{"y%r.3.json", "y%r.json", "z%p.4242.json", "z%p.json"});
  // %%%r: a percent sign, then the rank.
  r.identity.rank = 5;
  CHECK(warmup::detail::file_tag("w%%%r.json", r.identity, false).empty());
  CHECK(warmup::detail::expand_placeholders("w%%%r.json", r.identity) == "w%5.json");
}

TEST_CASE("a FIFO a placeholder names is written in place, never replaced by a file") {
  scratch_dir d;
  warmup::report r;
  r.identity.rank = 0;
  r.identity.pid = 77;
  const std::string fifo = d.path + "/pipe_r0.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A reader that never blocks: opened before the writer, read after it.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(reader >= 0);
  CHECK(warmup::detail::write_report_to(r, d.path + "/pipe_r%r.json", false, warmup::detail::spec_errors::say));
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(reader);
  CHECK(got == warmup::to_json(r) + "\n");
  CHECK(entries_of(d.path) == std::vector<std::string>{"pipe_r0.json"});
}

TEST_CASE("a path's format: its whole extension, the dot included, and the longest that ends it") {
  using warmup::detail::format_for_path;
  const auto format_of = [](std::string_view path) {
    const warmup::report_format_info* f = format_for_path(path);
    return f == nullptr ? std::string("none") : std::string(f->name);
  };
  for (const warmup::report_format_info& f : warmup::report_formats) {
    const std::string ext(f.extension);
    CAPTURE(ext);
    CHECK(format_of("r" + ext) == f.name);
    CHECK(format_of(ext) == f.name);  // the extension alone: a file named by it
    // The same letters without their dot are a name, not an extension.
    CHECK(format_of("r" + ext.substr(1)) == (ext == ".trace.json" ? "json" : "none"));
    CHECK(format_of("rx" + ext.substr(1)) == (ext == ".trace.json" ? "json" : "none"));
    CHECK(format_of(ext.substr(1)) == (ext == ".trace.json" ? "json" : "none"));
  }
  // ".trace.json" only with its own dot: "_trace.json" ends in ".json".
  CHECK(format_of("run_trace.json") == "json");
  CHECK(format_of("run.TRACE.json") == "trace");
  CHECK(format_of("runxjson") == "none");
  std::vector<warmup::report_destination> d;
  std::string error;
  CHECK_FALSE(warmup::parse_destinations("out/reportxcsv", d, error));
  CHECK(error.find("'out/reportxcsv' is neither") != std::string::npos);
  CHECK(d.empty());
  REQUIRE(warmup::parse_destinations("out/run_trace.json", d, error));
  CHECK(d.at(0).format == warmup::report_format::json);
}

TEST_CASE("one table of formats says what each writes; one rule for a document's path, in any case") {
  using warmup::document_kind;
  using warmup::report_format;
  namespace d = warmup::detail;
  const auto writes = [](report_format f) {
    std::string kinds;
    for (const document_kind k : {document_kind::report, document_kind::merged, document_kind::comparison})
      if (warmup::info(f).writes(k)) kinds += std::string(kinds.empty() ? "" : ", ") + std::string(warmup::to_string(k));
    return kinds;
  };
  CHECK(writes(report_format::table) == "report, merged report, comparison");
  CHECK(writes(report_format::json) == "report, merged report, comparison");
  CHECK(writes(report_format::csv) == "report, merged report");
  CHECK(writes(report_format::trace) == "report");  // a timeline: one run's
  CHECK(writes(report_format::svg) == "report, merged report");
  std::string error;
  for (const document_kind k : {document_kind::report, document_kind::merged, document_kind::comparison})
    for (const char* path : {"OUT.JSON", "out/o.Json", "o.json"}) {
      CAPTURE(path);
      const warmup::report_format_info* f = d::format_for_path(path, k, error);
      REQUIRE(f != nullptr);
      CHECK(f->format == report_format::json);
      CHECK(error.empty());
    }
  // A format that does not write the document: refused, naming those that do.
  CHECK(d::format_refusal(document_kind::merged, warmup::info(report_format::svg)).empty());  // one that does: none
  CHECK(d::format_for_path("m.TRACE.JSON", document_kind::merged, error) == nullptr);
  CHECK(error == "a merged report has no trace format (it is written as .txt, .json, .csv, .svg)");
  error.clear();
  CHECK(d::format_for_path("c.Csv", document_kind::comparison, error) == nullptr);
  CHECK(error == "a comparison has no csv format (it is written as .txt, .json)");
  error.clear();
  REQUIRE(d::format_for_path("r.trace.json", document_kind::report, error) != nullptr);
  CHECK(error.empty());
  // A name with no format's extension: no format and no error; the caller decides.
  for (const char* path : {"m", "m.jsonx", "json"}) {
    CHECK(d::format_for_path(path, document_kind::merged, error) == nullptr);
    CHECK(error.empty());
  }
}
