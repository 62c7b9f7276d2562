// NVTX ranges as a tool sees them: names, nesting, categories, colours and payloads.
#include "catch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

#include "nvtx_capture.hpp"
#include "warmup/profile.hpp"

using nvtx_capture::event;

namespace {
constexpr std::uint32_t red = 0xFFE0321Eu;  // every site's first call
std::vector<event> warmup_events() {
  std::vector<event> out;
  for (auto& e : nvtx_capture::take())
    if (e.domain == "warmup") out.push_back(e);
  return out;
}
}  // namespace

TEST_CASE("the library's NVTX tool state was made before main") {
  REQUIRE(nvtx_capture::attached());
  const auto cats = nvtx_capture::categories("warmup");
  const std::vector<std::pair<std::uint32_t, std::string>> expected = {
      {1, "context"}, {2, "alloc"}, {3, "h2d"}, {4, "d2h"}, {5, "d2d"}, {6, "launch"}, {7, "region"}};
  CHECK(cats == expected);
}

TEST_CASE("ranges nest, carry registered names, categories and call indices") {
  nvtx_capture::take();
  for (int i = 0; i < 3; ++i) {
    warmup::region_scope outer{"forward"};
    warmup::h2d_scope copy{"upload", std::size_t{256}};
  }
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 12);
  for (int i = 0; i < 3; ++i) {
    const event& outer = ev[4 * i];
    const event& inner = ev[4 * i + 1];
    CHECK(outer.kind == event::push);
    CHECK(outer.message == "forward");
    CHECK(outer.registered_message);
    CHECK(outer.category == 7);
    CHECK(outer.payload == std::uint64_t(i));  // call 0's is 0 either way; calls 1 and 2 tell
    CHECK(inner.kind == event::push);
    CHECK(inner.message == "upload");
    CHECK(inner.category == 3);
    CHECK(inner.payload == std::uint64_t(i));
    CHECK(ev[4 * i + 2].kind == event::pop);
    CHECK(ev[4 * i + 3].kind == event::pop);
    // The first call stands apart in colour; later calls share their kind's colour.
    CHECK((outer.color == red) == (i == 0));
    CHECK((inner.color == red) == (i == 0));
  }
  CHECK(ev[4].color == ev[8].color);
  CHECK(ev[4].color != ev[5].color);  // region and h2d differ
}

TEST_CASE("a name the tool declines to register is pushed as text") {
  nvtx_capture::take();
  { warmup::region_scope s{"declined.name"}; }
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].message == "declined.name");
  CHECK_FALSE(ev[0].registered_message);
}

TEST_CASE("an exception leaves the ranges balanced") {
  nvtx_capture::take();
  try {
    warmup::region_scope a{"nvtx.throw.outer"};
    warmup::launch_scope b{"nvtx.throw.inner"};
    throw std::runtime_error("x");
  } catch (const std::runtime_error&) {
  }
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 4);
  CHECK(ev[0].kind == event::push);
  CHECK(ev[1].kind == event::push);
  CHECK(ev[2].kind == event::pop);
  CHECK(ev[3].kind == event::pop);
}

TEST_CASE("a scope open across fork pops its range in the child too, whose site starts clean") {
  nvtx_capture::take();
  pid_t pid = -1;
  {
    warmup::region_scope open{"nvtx.fork.open"};
    REQUIRE(warmup_events().size() == 1);  // its push
    pid = fork();
    REQUIRE(pid >= 0);
  }  // ends in both processes; in the child the call is not the child's site's, yet its range ends
  const auto ev = warmup_events();
  const bool popped = ev.size() == 1 && ev[0].kind == event::pop;
  if (pid == 0) _exit(popped ? 0 : 1);
  CHECK(popped);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // the child's range popped
}

TEST_CASE("WARMUP_FUNC_SCOPE names its range after the function") {
  nvtx_capture::take();
  [] { WARMUP_FUNC_SCOPE(); }();
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].message == "operator()");
  CHECK(ev[0].category == 7);
}

TEST_CASE("a NUL inside a name does not cut the range's label short") {
  nvtx_capture::take();
  { warmup::region_scope a{std::string("nul.a\0b", 7)}; }
  { warmup::region_scope b{std::string("nul.a\0c", 7)}; }
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 4);
  CHECK(ev[0].message == "nul.a\\0b");
  CHECK(ev[2].message == "nul.a\\0c");
}

TEST_CASE("a scope begun before the tool was attached pops no range it never pushed") {
  nvtx_capture::take();
  // As where NVTX chooses its tool on another thread while this scope is open: the scope
  // began with no tool, and ends with one.
  void* const tool = warmup::detail::nvtx_tool_domain.exchange(nullptr);
  {
    warmup::region_scope s{"nvtx.before_tool"};
    warmup::detail::nvtx_tool_domain.store(tool);
  }
  CHECK(warmup_events().empty());
  { warmup::region_scope s{"nvtx.before_tool"}; }  // the next call has its range, balanced
  const auto ev = warmup_events();
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].kind == event::push);
  CHECK(ev[1].kind == event::pop);
}
