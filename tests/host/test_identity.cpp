// Who wrote a report: the rank as each launcher sets it (hostile values left out, and said), the
// host, the process; WARMUP_REPORT's placeholders, and ranks that never overwrite each other.
#include "catch.hpp"

#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

#include <sys/wait.h>
#include <unistd.h>

#include "warmup/profile.hpp"
#include "warmup/report_file.hpp"
#include "warmup/detail/io/report_destinations.hpp"
#include "warmup/detail/runtime/identity.hpp"

using warmup::detail::read_rank;

namespace {
warmup::detail::rank_reading read(const std::map<std::string, std::string>& env) {
  return read_rank([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}
}  // namespace

TEST_CASE("each launcher's rank variables are read; a launcher's own before torchrun's") {
  const auto ompi = read({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                          {"OMPI_COMM_WORLD_SIZE", "8"}, {"RANK", "5"}, {"WORLD_SIZE", "6"}});
  CHECK(ompi.launcher == "Open MPI");
  CHECK(ompi.rank == 3);
  CHECK(ompi.local_rank == 1);
  CHECK(ompi.world_size == 8);
  CHECK(ompi.problems.empty());
  const auto slurm = read({{"SLURM_PROCID", "17"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS", "32"}});
  CHECK(slurm.launcher == "Slurm");
  CHECK(slurm.rank == 17);
  const auto pmi = read({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}});
  CHECK(pmi.launcher == "PMI");
  CHECK(pmi.rank == 2);
  CHECK_FALSE(pmi.local_rank);
  const auto torch = read({{"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}});
  CHECK(torch.launcher == "torchrun");
  CHECK(torch.world_size == 2);
  const auto none = read({});
  CHECK(none.launcher.empty());
  CHECK_FALSE(none.rank);
}

TEST_CASE("hostile rank values are left out and said, never trusted") {
  for (const char* bad : {"", "-1", "abc", "3 ", " 3", "99999999999", "1e3", "\x1b[2J"}) {
    INFO(bad);
    const auto r = read({{"RANK", bad}, {"WORLD_SIZE", "4"}});
    CHECK_FALSE(r.rank);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].find("RANK='") == 0);
    CHECK(r.problems[0].find('\x1b') == std::string::npos);
  }
  const auto beyond = read({{"RANK", "4"}, {"WORLD_SIZE", "4"}});
  CHECK_FALSE(beyond.rank);
  CHECK_FALSE(beyond.world_size);
  REQUIRE(beyond.problems.size() == 1);
  CHECK(beyond.problems[0] == "RANK=4 is not below WORLD_SIZE=4; both left out");
}

TEST_CASE("a report says who wrote it") {
  const warmup::report r = warmup::snapshot();
  CHECK(r.identity.pid == static_cast<std::int64_t>(::getpid()));
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  CHECK(r.identity.host == host);  // this machine's name, not "unknown"
  CHECK(r.identity.library_version == "0.4.0");
  // The wall-clock start, ISO 8601 in UTC to the millisecond: "2026-11-26T23:59:59.123Z".
  REQUIRE(r.identity.started.size() == 24);
  CHECK(r.identity.started[10] == 'T');
  CHECK(r.identity.started.back() == 'Z');
  const std::string json = warmup::to_json(r);
  CHECK(json.find("\"identity\":{") != std::string::npos);
  CHECK(json.find("\"pid\":" + std::to_string(::getpid())) != std::string::npos);
}

TEST_CASE("WARMUP_REPORT placeholders: %r rank, %p pid, %h host, %% a percent sign") {
  warmup::run_identity id;
  id.rank = 12;
  id.pid = 4242;
  id.host = "node-7";
  using warmup::detail::expand_placeholders;
  CHECK(expand_placeholders("out/report.%r.json", id) == "out/report.12.json");
  CHECK(expand_placeholders("%h/%p-%r.%%.csv", id) == "node-7/4242-12.%.csv");
  id.rank.reset();  // not launched as a job: rank 0 of 1
  CHECK(expand_placeholders("r%r.json", id) == "r0.json");
  // A host name is made safe for a path: no slash, no control character.
  id.host = "../../etc/x\n";
  CHECK(expand_placeholders("%h.json", id) == "______etc_x_.json");
  // Anything else after a % is refused at start-up, as any destination it cannot use.
  std::string error;
  std::vector<warmup::report_destination> d;
  CHECK_FALSE(warmup::parse_destinations("report.%q.json", d, error));
  CHECK(error.find("%q") != std::string::npos);
  error.clear();
  CHECK_FALSE(warmup::parse_destinations("report%:json", d, error));
  CHECK(error.find("a lone % at the end") != std::string::npos);
  // A long path is echoed cut to its first 200 bytes, in both refusals.
  const std::string long_path(300, 'a');
  error.clear();
  CHECK_FALSE(warmup::parse_destinations(long_path + "%q.json", d, error));
  CHECK(error.find("' in '" + std::string(200, 'a') + "...'") != std::string::npos);
  error.clear();
  CHECK_FALSE(warmup::parse_destinations(long_path + "%:json", d, error));
  CHECK(error.find("end of '" + std::string(200, 'a') + "...'") != std::string::npos);
  error.clear();
  CHECK(warmup::parse_destinations("report.%r.%h.%p.json,stderr", d, error));
}

TEST_CASE("ranks above 0 and forked children get their own file without a placeholder") {
  warmup::run_identity id;
  using warmup::detail::file_tag;
  id.rank = 0;
  CHECK(file_tag("report.json", id, false).empty());  // rank 0 keeps the name asked for
  id.rank = 3;
  CHECK(file_tag("report.json", id, false) == "3");
  CHECK(file_tag("report.%r.json", id, false).empty());  // the placeholder already says it
  id.pid = 99;
  CHECK(file_tag("report.json", id, true) == "3.99");
  CHECK(file_tag("report.%p.json", id, true) == "3");
  CHECK(file_tag("report.%r.%p.json", id, true).empty());
  CHECK(warmup::detail::tagged_path("out/report.json", "3.99") == "out/report.3.99.json");
}

TEST_CASE("the identity is read once per process, and again in a forked child") {
  const warmup::report before = warmup::snapshot();
  if (before.identity.rank) return;  // launched as a job: its variables are not this test's to change
  // A variable set after the first snapshot is not read again: the process's identity stands.
  ::setenv("RANK", "5", 1);
  ::setenv("WORLD_SIZE", "8", 1);
  const warmup::report after = warmup::snapshot();
  CHECK_FALSE(after.identity.rank);
  CHECK(after.identity.pid == before.identity.pid);
  CHECK(after.identity.host == before.identity.host);
  // A child has its own pid, so it reads its identity again, variables and all.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const warmup::run_identity child = warmup::snapshot().identity;
    int bad = 0;
    if (child.pid != static_cast<int>(::getpid())) bad |= 1;
    if (child.rank != 5 || child.world_size != 8) bad |= 2;
    if (warmup::snapshot().identity.pid != child.pid) bad |= 4;
    _exit(bad);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  CHECK(warmup::snapshot().identity.pid == static_cast<int>(::getpid()));
}

TEST_CASE("a rank variable that cannot be trusted is said once, in the notices of the report that read it") {
  if (warmup::snapshot().identity.rank) return;  // launched as a job: its variables are not this test's to change
  ::setenv("RANK", "abc", 1);
  // A forked child reads its identity again with its notices cleared: the untrusted value is said.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const warmup::report r = warmup::snapshot();
    int bad = 0;
    if (r.identity.rank) bad |= 1;
    if (!warmup::detail::notice_board().raised(warmup::detail::notice_kind::rank)) bad |= 2;
    const auto all = warmup::detail::notice_board().all();
    bool said = false;
    for (const std::string& n : all) said = said || n.find("the job's rank variables: RANK='abc'") == 0;
    if (!said) bad |= 4;
    _exit(bad);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  ::unsetenv("RANK");
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("every launcher's three variables, each with its own value, and the order they are believed in") {
  struct launcher_case {
    const char* name;
    const char* rank;
    const char* local_rank;
    const char* world_size;
  };
  // Distinct values in every field, so that a variable read into another field shows.
  const launcher_case cases[] = {{"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
                                 {"PMI", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
                                 {"Slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
                                 {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"}};
  int k = 0;
  for (const auto& c : cases) {
    INFO(c.name);
    ++k;
    const auto r = read({{c.rank, std::to_string(10 * k + 3)}, {c.local_rank, std::to_string(k)},
                         {c.world_size, std::to_string(100 * k)}});
    CHECK(r.launcher == c.name);
    CHECK(r.rank == 10 * k + 3);
    CHECK(r.local_rank == k);
    CHECK(r.world_size == 100 * k);
    CHECK(r.problems.empty());
  }
  // Each launcher is believed before every one after it in the list, whatever else is set.
  for (std::size_t first = 0; first < std::size(cases); ++first) {
    std::map<std::string, std::string> env;
    for (std::size_t j = first; j < std::size(cases); ++j) {
      env[cases[j].rank] = std::to_string(j + 1);
      env[cases[j].world_size] = std::to_string(50 + j);
    }
    const auto r = read(env);
    INFO(cases[first].name);
    CHECK(r.launcher == cases[first].name);
    CHECK(r.rank == int(first + 1));
    CHECK(r.world_size == int(50 + first));
  }
}

TEST_CASE("a rank number is read from its view alone, not past its end") {
  using warmup::detail::parse_rank_number;
  CHECK(parse_rank_number(std::string_view("12345", 2)) == 12);
  CHECK(parse_rank_number(std::string_view("7x", 1)) == 7);
  CHECK_FALSE(parse_rank_number(std::string_view("12345", 0)));
}

TEST_CASE("rank numbers at their bounds: 2^31 - 1 read, 2^31 refused; the last rank below the size kept") {
  CHECK(read({{"RANK", "2147483647"}}).rank == 2147483647);
  CHECK_FALSE(read({{"RANK", "2147483648"}}).rank);
  CHECK(read({{"RANK", "0"}}).rank == 0);
  const auto last = read({{"RANK", "3"}, {"WORLD_SIZE", "4"}});
  CHECK(last.rank == 3);
  CHECK(last.world_size == 4);
  CHECK(last.problems.empty());
  // A bad local rank is said under its own name, and leaves the rank alone.
  const auto bad_local = read({{"SLURM_PROCID", "2"}, {"SLURM_LOCALID", "x"}, {"SLURM_NTASKS", "4"}});
  CHECK(bad_local.rank == 2);
  CHECK_FALSE(bad_local.local_rank);
  REQUIRE(bad_local.problems.size() == 1);
  CHECK(bad_local.problems[0].rfind("SLURM_LOCALID='x'", 0) == 0);
}

TEST_CASE("a tagged path: the tag before the extension, wherever the name starts") {
  using warmup::detail::tagged_path;
  CHECK(tagged_path("r.json", "7") == "r.7.json");  // a one-letter name, no folder
  CHECK(tagged_path("report", "7") == "report.7");  // no extension: the tag at the end
  CHECK(tagged_path(".json", "7") == ".json.7");   // a hidden file's dot is not an extension
  CHECK(tagged_path("a.b/r", "7") == "a.b/r.7");   // a dot in a folder is not one either
  CHECK(tagged_path("a/.r", "7") == "a/.r.7");
  CHECK(tagged_path("out/t.trace.json", "7") == "out/t.7.trace.json");
  CHECK(tagged_path("t.trace.json.bak", "7") == "t.trace.json.7.bak");
  CHECK(tagged_path("/x.svg", "7") == "/x.7.svg");
}
