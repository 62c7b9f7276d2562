// Reports read back (read.hpp): a round trip of every field, the previous schema, values of the
// wrong kind refused, and files read whole, regular files only.
#include "catch.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "warmup/profile.hpp"
#include "warmup/read.hpp"

using namespace std::chrono_literals;
using ns = std::chrono::nanoseconds;

TEST_CASE("a report read back from its JSON writes the same JSON: every field is read") {
  for (int i = 0; i < 80; ++i) {
    warmup::region_scope s{"merge test: round trip"};
  }
  {
    warmup::h2d_scope c{"merge test: copy", std::size_t{1} << 20};
  }
  warmup::report r = warmup::snapshot();
  r.identity.rank = 3;
  r.identity.world_size = 8;
  warmup::device_description d;
  d.name = "a \"quoted\" GPU\n";
  d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  d.event_pair_floor = 1247ns;
  r.device = d;
  REQUIRE_FALSE(r.sites.empty());
  r.sites.front().host.first = ns{INT64_MAX};  // beyond a double's 2^53: must come back exact
  r.sites.front().notes.push_back("a note with \xC3\xA9 and a tab\t");
  const std::string json = warmup::to_json(r);
  std::string error;
  const std::optional<warmup::report> back = warmup::read_report(json, error);
  REQUIRE(back);
  CHECK(error.empty());
  CHECK(warmup::to_json(*back) == json);
  CHECK(back->sites.front().host.first == ns{INT64_MAX});
  CHECK(*back->identity.rank == 3);
  // The call times the trace and the picture draw come back too, so those are drawn again whole.
  CHECK(back->call_times_recorded);
  CHECK(back->sites.front().first_calls == r.sites.front().first_calls);
  REQUIRE(back->sites.front().timeline.size() == r.sites.front().timeline.size());
  CHECK(back->sites.front().timeline.front().host_start == r.sites.front().timeline.front().host_start);
  CHECK(warmup::to_svg(*back) == warmup::to_svg(r));
  CHECK(warmup::to_trace(*back) == warmup::to_trace(r));

  // The same text as a merged report is refused, naming both schemas.
  CHECK_FALSE(warmup::read_merged(json, error));
  CHECK(error.find("warmup.report/3") != std::string::npos);
  CHECK(error.find("warmup.merged/1") != std::string::npos);
}

TEST_CASE("a warmup.report/2 report reads, and its missing call times are said to be missing") {
  {
    warmup::region_scope s{"merge test: schema 2"};
  }
  const warmup::report r = warmup::snapshot();
  std::string json = warmup::to_json(r);
  // What a /2 writer wrote: the same document without the call times.
  const auto cut = [&](const std::string& key) {
    for (std::size_t at; (at = json.find(",\"" + key + "\":[")) != std::string::npos;) {
      std::size_t depth = 0, end = at + key.size() + 5;  // just after the list's [
      for (; end < json.size(); ++end) {
        if (json[end] == '[') ++depth;
        if (json[end] == ']' && depth-- == 0) break;
      }
      json.erase(at, end + 1 - at);
    }
  };
  cut("first_calls");
  cut("timeline");
  json.replace(json.find("warmup.report/3"), 15, "warmup.report/2");
  std::string error;
  const std::optional<warmup::report> back = warmup::read_report(json, error);
  REQUIRE(back);
  CHECK_FALSE(back->call_times_recorded);
  const warmup::site_report* site = back->find(warmup::op_kind::region, "merge test: schema 2");
  REQUIRE(site != nullptr);
  CHECK(site->first_calls.empty());
  CHECK(site->host.first == r.find(warmup::op_kind::region, "merge test: schema 2")->host.first);
  CHECK(warmup::to_svg(*back).find("call times not in this report (warmup.report/2)") != std::string::npos);
  CHECK(warmup::to_svg(r).find("call times not in this report") == std::string::npos);
  CHECK(warmup::to_trace(*back).find("no call times") != std::string::npos);

  json.replace(json.find("warmup.report/2"), 15, "warmup.report/1");
  CHECK_FALSE(warmup::read_report(json, error));
  CHECK(error.find("reads warmup.report/3 and warmup.report/2") != std::string::npos);
  // A version is what follows the family's slash: a longer family is another kind of document.
  json.replace(json.find("warmup.report/1"), 15, "warmup.reporting/1");
  CHECK_FALSE(warmup::read_report(json, error));
  CHECK(error == "a \"warmup.reporting/1\" document, not a \"warmup.report/3\" one");
}

TEST_CASE("a file is read back whole whatever errno held before: only a read that failed is retried") {
  char path[] = "/tmp/warmup-read-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string text(100'000, 'x');  // more than one read's buffer
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  std::string error;
  errno = EINTR;  // left over from an earlier call: says nothing of the reads to come
  const std::optional<std::string> back = warmup::read_text_file(path, error);
  ::unlink(path);
  REQUIRE(back);
  CHECK(*back == text);
}

TEST_CASE("a file read in a program whose standard input is closed (a daemon's) opens as descriptor 0, and reads") {
  char path[] = "/tmp/warmup-read-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "{}", 2) == 2);
  ::close(fd);
  const int saved = ::dup(0);
  REQUIRE(saved >= 0);
  ::close(0);  // the lowest free descriptor is now 0: the file's
  std::string error;
  const std::optional<std::string> back = warmup::read_text_file(path, error);
  REQUIRE(::dup2(saved, 0) == 0);
  ::close(saved);
  ::unlink(path);
  CHECK(error.empty());
  REQUIRE(back);
  CHECK(*back == "{}");
}

TEST_CASE("only a regular file is read back: a FIFO, a device or a directory is refused at once") {
  char dir[] = "/tmp/warmup-read-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string fifo = std::string(dir) + "/fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {fifo, std::string("/dev/null"), std::string(dir)}) {
    CAPTURE(path);
    std::string error;
    CHECK_FALSE(warmup::read_text_file(path, error));  // a FIFO nobody writes: no wait
    CHECK(error.find(path + ": not a regular file") == 0);
  }
  ::unlink(fifo.c_str());
  ::rmdir(dir);
}

TEST_CASE("a report read back refuses a figure of the wrong kind, and names a bad value printably") {
  warmup::report r;
  warmup::site_report s;
  s.name = "step";
  s.calls = s.host.calls = 3;
  r.sites = {s};
  const std::string good = warmup::to_json(r);
  std::string error;
  REQUIRE(warmup::read_report(good, error));
  const auto swap = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return text;
  };
  // A count written as a string: not a number, however it reads.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"calls\":3", "\"calls\":\"3\""), error));
  CHECK(error.find("expected") != std::string::npos);
  // An operation kind written as a number: a name is asked for, not looked up.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"op\":\"region\"", "\"op\":3"), error));
  CHECK(error.find("expected a name (a string)") != std::string::npos);
  // An operation kind this version does not know: its name shown with quotes and controls as '?'.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"op\":\"region\"", "\"op\":\"a\\\"b\\u0001c\""), error));
  CHECK(error.find("\"a?b?c\" is not a name this version knows") != std::string::npos);
  // Printable characters stay, a space among them; a name is cut after 40.
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"op\":\"region\"", "\"op\":\"a b~\""), error));
  CHECK(error.find("\"a b~\" is not a name this version knows") != std::string::npos);
  error.clear();
  CHECK_FALSE(warmup::read_report(swap("\"op\":\"region\"", "\"op\":\"" + std::string(41, 'k') + "\""), error));
  CHECK(error.find("\"" + std::string(40, 'k') + "...\" is not a name") != std::string::npos);
}
