// What the handlers ask of the tool's bookkeeping: domains and strings (handles.cpp), messages
// (site_lookup.cpp), ranges (push_pop.cpp, start_end.cpp), settings (tool_settings.cpp), notices at
// exit (exit_and_fork.cpp). Each open range is a warmup site's call: the report is the library's.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "names.hpp"

namespace warmup_nvtx {

/// Makes what the handlers read with no guard (the thread slot, the key of each thread's ranges:
/// thread_ranges.cpp); called once, before the handlers are installed.
void prepare_thread_ranges() noexcept;

/// The settings, read once, at the first NVTX call of the process.
struct settings {
  std::string domains;                 ///< WARMUP_NVTX_DOMAINS ("all" where unset)
  std::vector<std::string> varying;    ///< WARMUP_NVTX_VARYING's keys (default_varying where unset)
  bool device = false;                 ///< WARMUP_NVTX_DEVICE on
  std::string device_refused;          ///< why WARMUP_NVTX_DEVICE's value was refused, where it was
};
settings& config();

/// An NVTX domain as the tool hands it out (its `nvtxDomainHandle_t`); never freed, since a
/// range may name it after the program destroyed it. `next` is the next tool's handle for it.
struct domain {
  nvtxDomainHandle_t handle = nullptr;  ///< what NVTX gets: an index, never this object's address
  bool counted = true;
  bool own = false;  ///< warmup's own domain (its scopes' ranges): never counted, never said left out
  /// A range of it was left out by WARMUP_NVTX_DOMAINS: the notice names the domains used.
  mutable std::atomic<bool> left_out{false};
  std::string name;
  std::string prefix;  ///< "[name] ", empty for NVTX's default domain
  nvtxDomainHandle_t next = nullptr;
};
/// NVTX's default domain (the null handle and the functions without a domain): made once, then
/// one load (no call, no guard) on a range's path.
domain& make_default_domain();
inline std::atomic<domain*> default_domain_made{nullptr};
inline domain& default_domain() {
  domain* const d = default_domain_made.load(std::memory_order_acquire);
  return d != nullptr ? *d : make_default_domain();
}
/// The domain behind a handle; the default domain for the null handle or one the tool never
/// gave (a handle is checked by bounds, never read through).
domain& domain_of(nvtxDomainHandle_t h) noexcept;
/// A new domain, with its handle; null where memory ran out or 4M handles were given.
domain* make_domain(std::string name);

/// A registered string: its text, its site name in the domain that registered it, the next
/// tool's handle. A range that pushes it in another domain is that domain's (its site is named
/// there when the range begins).
struct registered {
  nvtxStringHandle_t handle = nullptr;  ///< what NVTX gets: an index, as a domain's
  std::string text;
  std::string site;
  const domain* owner = nullptr;  ///< the domain that registered it
  nvtxStringHandle_t next = nullptr;
};
/// A new registered string of `d`, with its handle; null as make_domain.
registered* make_registered(domain& d, std::string text);
/// The registered string behind a handle; null for one the tool never gave.
const registered* registered_of(nvtxStringHandle_t h) noexcept;

/// A range's message as NVTX hands it over: a C string (its length not yet taken: a range
/// whose name the thread passed before is found without it), converted text, or a registered
/// string's handle (looked up only where the thread has not passed it before).
struct message {
  const char* ascii = nullptr;
  std::string_view text;  ///< where `ascii` is null
  nvtxStringHandle_t registered = nullptr;
};
/// A wide message (NVTX's W functions), as UTF-8 in `buffer`, which the message points into.
message wide_message(const wchar_t* s, std::string& buffer) noexcept;
/// The message of an event's attributes (ASCII, wide into `buffer`, registered); empty where the
/// attributes are missing, too small to hold one, or of a type NVTX does not define.
message message_of(const nvtxEventAttributes_t* a, std::string& buffer) noexcept;

/// Push/pop: the calling thread's ranges, per domain as NVTX keeps them. Returns the range's
/// depth in its domain (0 for the outermost), as nvtxRangePush does.
int push(domain& d, const message& m) noexcept;
/// Ends the thread's latest range of `d`; -1 where it has none (a pop with no push: counted
/// and said, never a crash).
int pop(domain& d) noexcept;

/// Start/end: a range that may end on another thread. Returns the range's id, never 0.
nvtxRangeId_t start(domain& d, const message& m, nvtxRangeId_t next_id) noexcept;
/// Ends the range `id`; returns the next tool's id for it (0 where none). An id never started
/// or ended twice is counted and said.
nvtxRangeId_t end(nvtxRangeId_t id) noexcept;

/// At exit, before the report: says that the ranges were host-timed, how many were never
/// closed, and how many pops found no push.
void say_what_was_left() noexcept;
/// The ranges WARMUP_NVTX_DOMAINS left out so far (warmup's own domain's aside), and the names of
/// the domains they were in ("default" for NVTX's default domain), in the order they were made.
std::uint64_t ranges_left_out(std::vector<std::string>& domains);
/// Whether a range was given a site (measured) so far.
bool ranges_measured() noexcept;
/// At exit, before the report: where WARMUP_NVTX_DOMAINS named no domain the program made a range
/// in, says so (domain_filter.cpp).
void say_if_no_domain_counted() noexcept;
/// In a forked child: the locks the parent's other threads may have held, free again.
void after_fork_in_child() noexcept;

}  // namespace warmup_nvtx
