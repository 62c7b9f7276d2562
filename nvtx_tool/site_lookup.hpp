// The site of a range's message: inline where the thread passed the message lately (its recent
// messages, thread_ranges::recent), one call past them (site_lookup.cpp).
#pragma once

#include <atomic>

#include <warmup/detail/record/site.hpp>

#include "ranges.hpp"
#include "thread_ranges.hpp"

namespace warmup_nvtx {

/// site_of() past the thread's recent messages: the name built and looked up, the entry `r`
/// filled where the message is its site's name.
[[gnu::noinline]] wd::named_site* look_up_and_remember_site(const domain& d, const message& m, thread_ranges& t,
                                                            const void* key, thread_ranges::recent& r) noexcept;

/// A range of a domain WARMUP_NVTX_DOMAINS leaves out: counted for the notice at exit, which
/// says where the setting named no domain the program used. None for warmup's own domain.
[[gnu::noinline]] wd::named_site* count_left_out(const domain& d, thread_ranges& t) noexcept;

/// The site of a range's message in `d`, or none where the domain is not counted or the library
/// is not measuring. Inline: a message the thread passed lately costs no call at all.
inline wd::named_site* site_of(const domain& d, const message& m, thread_ranges& t) noexcept {
  if (!d.counted) return count_left_out(d, t);
  if (!wd::measuring.load(std::memory_order_relaxed)) return nullptr;
  const void* key = m.registered != nullptr ? static_cast<const void*>(m.registered) : static_cast<const void*>(m.ascii);
  thread_ranges::recent& r = t.seen[thread_ranges::slot_of(key)];
  // A handle's entry has no text; a C string's has its site's (a handle's value may equal an address).
  if (key != nullptr && r.key == key && r.d == &d &&
      (m.registered != nullptr ? !r.tail.known() : r.tail.known() && r.tail.matches(m.ascii)))
    return r.site;
  return look_up_and_remember_site(d, m, t, key, r);
}

}  // namespace warmup_nvtx
