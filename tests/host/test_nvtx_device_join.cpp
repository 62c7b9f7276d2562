// The NVTX tool's device time of a range (nvtx_tool/device_join.cpp), fed CUPTI's records by
// hand: a range's span over its work, nested ranges' work in their parents', work whose link
// comes after it, work outside any range, a call's time given once, a record too late to keep.
// The tool's files (the join and the range's side, device_time.cpp) are compiled here, in the
// test's own copy of the runtime.
#include "catch.hpp"

#include "../../nvtx_tool/device_join.cpp"
#include "../../nvtx_tool/device_time.cpp"

namespace {
namespace wd = warmup::detail;
namespace dev = warmup_nvtx::device;
using warmup::op_kind;

/// Device times the site was given, in call order.
std::vector<std::uint64_t> device_times(const wd::site& s) {
  std::vector<std::uint64_t> out;
  if (const wd::series* d = s.device_series_if_any())
    for (const auto& c : d->read().first) out.push_back(c.ns);
  return out;
}

/// A call of `s` as the tool opens it (the host side begun), its serial returned.
std::uint64_t open_call(wd::site& s, std::uint64_t index, std::uint64_t parent = 0) {
  (void)s.end_host(index, 1'000 * (index + 1), 1'000 * (index + 1) + 50, 50);
  return dev::opened(&s, index, parent);
}
}  // namespace

TEST_CASE("a range's device time spans the work its calls launched, once it has ended and a flush has passed",
          "[nvtx_tool]") {
  dev::join::make_table();
  wd::site s(op_kind::region, "device_join.span", 0);
  const std::uint64_t a = open_call(s, 0);
  REQUIRE(a != 0);
  dev::join::link(1001, a);
  dev::join::link(1002, a);
  dev::join::work(1001, 10'000, 12'000);
  dev::join::work(1002, 15'000, 19'000);
  dev::join::flushed(false);
  CHECK(device_times(s).empty());  // still open
  dev::closed(a);
  dev::join::flushed(false);
  CHECK(device_times(s).empty());  // ended at this flush: its work may still be queued
  dev::join::flushed(false);
  CHECK(device_times(s) == std::vector<std::uint64_t>{9'000});
  // A record of that call after its time was given is counted late, never a second time.
  const std::uint64_t late = dev::what_was_timed().late;
  dev::join::link(1003, a);
  dev::join::work(1003, 20'000, 30'000);
  dev::join::flushed(true);
  CHECK(device_times(s) == std::vector<std::uint64_t>{9'000});
  CHECK(dev::what_was_timed().late == late + 1);
}

TEST_CASE("a nested range's work is its parent's too; a parent spans its own and its children's", "[nvtx_tool]") {
  dev::join::make_table();
  wd::site outer(op_kind::region, "device_join.outer", 0), inner(op_kind::region, "device_join.inner", 0);
  const std::uint64_t p = open_call(outer, 0);
  const std::uint64_t c = open_call(inner, 0, p);
  dev::join::link(2001, c);
  dev::join::work(2001, 100'000, 101'000);
  dev::closed(c);
  dev::join::link(2002, p);
  dev::join::work(2002, 105'000, 108'000);
  dev::closed(p);
  dev::join::flushed(true);
  CHECK(device_times(inner) == std::vector<std::uint64_t>{1'000});
  CHECK(device_times(outer) == std::vector<std::uint64_t>{8'000});
}

TEST_CASE("work whose link comes later is joined at the flush; work outside every range is left alone",
          "[nvtx_tool]") {
  dev::join::make_table();
  wd::site s(op_kind::region, "device_join.order", 0);
  const std::uint64_t timed = dev::what_was_timed().timed;
  const std::uint64_t a = open_call(s, 0);
  dev::join::work(3001, 50'000, 52'500);  // its link is in a buffer CUPTI hands over later
  dev::join::work(3999, 1, 1'000'000);     // launched outside any range: no link ever comes
  dev::join::link(3001, a);
  dev::closed(a);
  dev::join::flushed(true);
  CHECK(device_times(s) == std::vector<std::uint64_t>{2'500});
  CHECK(dev::what_was_timed().timed == timed + 1);
  // A range that launched nothing has no device time: host-timed only.
  const std::uint64_t b = open_call(s, 1);
  dev::closed(b);
  dev::join::flushed(true);
  CHECK(device_times(s).size() == 1);
}

TEST_CASE("a call whose entry later calls reused is lost, counted, and given no time", "[nvtx_tool]") {
  dev::join::make_table();
  wd::site s(op_kind::region, "device_join.lost", 0), other(op_kind::region, "device_join.others", 0);
  const std::uint64_t a = open_call(s, 0);
  dev::join::link(4001, a);
  for (std::uint64_t i = 0; i < (std::uint64_t{1} << 18); ++i) dev::closed(dev::opened(&other, 1, 0));
  const std::uint64_t lost = dev::what_was_timed().lost;
  dev::join::work(4001, 1'000, 2'000);
  dev::join::flushed(true);
  CHECK(device_times(s).empty());
  CHECK(dev::what_was_timed().lost == lost + 1);
  CHECK(device_times(other).empty());  // the others launched nothing
}

TEST_CASE("a program that flushes only at exit keeps the ranges waiting for their time bounded", "[nvtx_tool]") {
  dev::join::make_table();
  wd::site s(op_kind::region, "device_join.unflushed", 0);
  const std::uint64_t timed = dev::what_was_timed().timed, lost = dev::what_was_timed().lost;
  constexpr std::uint32_t calls = 140'000;  // past two of the passes work makes (every 2^16 ranges)
  for (std::uint32_t i = 0; i < calls; ++i) {
    const std::uint64_t a = dev::opened(&s, i, 0);
    dev::join::link(500'000 + i, a);
    dev::closed(a);  // the range ends before CUPTI hands over its kernel's record
    dev::join::work(500'000 + i, 1'000 * std::uint64_t{i}, 1'000 * std::uint64_t{i} + 10);
  }
  // With no flush, the ranges ended before the first pass were given their time at the second.
  CHECK(dev::what_was_timed().timed - timed >= (std::uint64_t{1} << 16));
  dev::join::flushed(true);
  CHECK(dev::what_was_timed().timed - timed == calls);
  CHECK(dev::what_was_timed().lost == lost);
}
