// The notes under a site (detail/io/notes.hpp): each said only where it helps.
#include "catch.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "warmup/profile.hpp"
#include "../support/sample_report.hpp"
#include "warmup/detail/io/notes.hpp"

using namespace std::chrono_literals;

TEST_CASE("notes: 'too few calls' only where more calls would help") {
  warmup::site_report s = support::one_call("", 1ms);
  const auto says = [&] {
    const std::vector<std::string> notes = warmup::detail::notes_for(s);
    return std::find(notes.begin(), notes.end(), "no steady state yet: too few calls") != notes.end();
  };
  CHECK_FALSE(says());  // called once: its first call is all there is
  s.calls = s.host.calls = 3;  // three calls, every later one cold again after idling
  s.host.cold_recurrences = 2;
  CHECK(says());
}

TEST_CASE("notes: a first launch that waited on the host, said only where the host's extra time dwarfs the device's") {
  warmup::site_report s;
  s.name = "k";
  s.op = warmup::op_kind::launch;
  s.calls = s.host.calls = 20;
  s.host.first = 1010us;  // 1 ms over the host's p50
  warmup::steady_state host;
  host.calls = 19;
  host.p50 = 10us;
  host.enough_calls = true;
  s.host.steady = host;
  warmup::timing dev;
  dev.calls = 20;
  warmup::steady_state d;
  d.calls = 19;
  d.p50 = 10us;
  d.enough_calls = true;
  dev.steady = d;
  const std::string waited = "the first launch waited on the host, not the GPU: module loading or JIT at the call";
  const auto says = [&](std::chrono::nanoseconds device_first) {
    s.device = dev;
    s.device->first = device_first;
    const std::vector<std::string> notes = warmup::detail::notes_for(s);
    return std::find(notes.begin(), notes.end(), waited) != notes.end();
  };
  CHECK(says(10us));      // the device had no extra time
  CHECK(says(100us));     // 90 us on the device, 1 ms on the host
  CHECK(says(509us));     // 499 us: the host's 1 ms is more than twice it
  CHECK_FALSE(says(510us));  // 500 us: exactly half the host's, not less
  CHECK_FALSE(says(2ms));    // the device's own first call was the slow part
  s.op = warmup::op_kind::region;  // launches only
  CHECK_FALSE(says(10us));
}

TEST_CASE("notes: an uncertain p50 said only where the steady calls are too few") {
  warmup::site_report s;
  s.name = "r";
  s.calls = s.host.calls = 4;
  s.host.first = 1ms;
  warmup::steady_state st;
  st.calls = 3;
  st.p50 = 1ms;
  s.host.steady = st;
  const auto uncertain = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.find("the p50 is uncertain") != std::string::npos) return n;
    return std::string();
  };
  CHECK(uncertain() == "only 3 steady calls: the p50 is uncertain (too few for a 95% interval)");
  s.host.steady->enough_calls = true;
  s.host.steady->calls = 30;
  CHECK(uncertain().empty());
}

/// A host-to-device copy called five times, of 4 KiB each, its bytes as `t` says beyond that.
warmup::site_report copy_site(warmup::transfer t) {
  warmup::site_report s;
  s.name = "copy";
  s.op = warmup::op_kind::h2d;
  s.calls = s.host.calls = 5;
  t.first = t.total = 4096;
  s.bytes = t;
  return s;
}

TEST_CASE("notes: pageable copies said with their count among the copies, pinned ones never") {
  warmup::transfer t;
  t.host_pinned_calls = 5;
  warmup::site_report s = copy_site(t);
  const auto pageable_note = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.find("pageable host memory") != std::string::npos) return n;
    return std::string();
  };
  CHECK(pageable_note().empty());  // all pinned: nothing to say
  s.bytes->host_pinned_calls = 2;
  s.bytes->host_pageable_calls = 3;
  CHECK(pageable_note().rfind("3 of 5 calls copied pageable host memory", 0) == 0);
}

TEST_CASE("notes: a first call's ratio to the steady p50 said only from twice the p50") {
  warmup::site_report s;
  s.calls = s.host.calls = 100;
  s.host.steady = warmup::steady_state{};
  s.host.steady->p50 = 1ms;
  const auto says = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.find("the steady p50 on the host") != std::string::npos) return true;
    return false;
  };
  s.host.first = 1500us;
  CHECK_FALSE(says());
  s.host.first = 3ms;
  CHECK(says());
}

TEST_CASE("notes: bandwidth from host time said only for a site that moved bytes, host-timed") {
  warmup::transfer t;
  t.gbps_clock = warmup::clock_domain::host;
  warmup::site_report s = copy_site(t);
  const auto says = [&] {
    for (const std::string& n : warmup::detail::notes_for(s))
      if (n.rfind("bandwidth from host time", 0) == 0) return true;
    return false;
  };
  CHECK(says());
  s.bytes->gbps_clock = warmup::clock_domain::device;
  CHECK_FALSE(says());
  s.bytes->gbps_clock = warmup::clock_domain::host;
  s.bytes.reset();  // no bytes: nothing of them is read, whatever the summary held before
  CHECK_FALSE(says());
}

TEST_CASE("notes: a ratio to one decimal below 10x, whole from 10x") {
  using warmup::detail::format_ratio;
  CHECK(format_ratio(2.5) == "2.5x");
  CHECK(format_ratio(9.94) == "9.9x");
  CHECK(format_ratio(10.0) == "10x");
  CHECK(format_ratio(10.4) == "10x");
  CHECK(format_ratio(277.0) == "277x");
}

TEST_CASE("notes: each kind of call left without a device time said with its count, only where there is one") {
  warmup::site_report s;
  s.calls = s.host.calls = 1;
  const auto notes = [&] { return warmup::detail::notes_for(s); };
  const auto has = [](const std::vector<std::string>& v, const std::string& text) {
    return std::find(v.begin(), v.end(), text) != v.end();
  };
  CHECK(notes().empty());  // every count 0: nothing to say
  s.device_untimed.captured = 2;
  s.device_untimed.unavailable = 3;
  s.device_untimed.sampled_out = 4;
  s.device_untimed.dropped = 5;
  const std::vector<std::string> all = notes();
  CHECK(all.size() == 4);
  CHECK(has(all, "2 calls ran inside a graph capture and were host-timed only"));
  CHECK(has(all, "3 calls asked for device timing that was unavailable (no GPU, a CUDA error, or no context yet)"));
  CHECK(has(all, "once steady, device-timed on a sample: 4 calls host-timed only"));
  CHECK(has(all, "5 device measurements dropped: too many in flight"));
}
