// A range's message read from NVTX's arguments, and its site where the thread has not passed it
// lately: the name built and looked up, remembered in the thread's recent messages
// (site_lookup.hpp); ranges of domains left out counted.
#include "site_lookup.hpp"

#include <cstddef>
#include <string>
#include <string_view>

#include "names.hpp"
#include "tool_errors.hpp"

namespace warmup_nvtx {
namespace {

using cuda_warmup::op_kind;

/// The site of ranges that carry no message.
constexpr std::string_view no_message = "(no message)";

}  // namespace

wd::named_site* look_up_and_remember_site(const domain& d, const message& m, thread_ranges& t, const void* key,
                                          thread_ranges::recent& r) noexcept {
  wd::named_site* n = nullptr;
  try {
    std::string_view text = m.ascii != nullptr ? std::string_view{m.ascii} : m.text;
    const registered* reg = m.registered != nullptr ? registered_of(m.registered) : nullptr;
    if (reg != nullptr && reg->owner == &d) {
      n = wd::lookup(op_kind::region, reg->site);
    } else if (reg != nullptr) {  // pushed in another domain than its own: the range is this one's
      site_name(t.name, d.prefix, reg->text, config().varying);
      n = wd::lookup(op_kind::region, t.name);
    } else if (text.empty()) {
      // No text: a null message, a registered handle NVTX never gave, attributes too small.
      return wd::lookup(op_kind::region, no_message);
    } else if (d.prefix.empty() && text.find(", ") == std::string_view::npos) {
      n = wd::lookup(op_kind::region, text);
    } else {
      site_name(t.name, d.prefix, text, config().varying);
      n = wd::lookup(op_kind::region, t.name);
    }
    if (n == nullptr) return n;
    if (!error_counts().measured.load(std::memory_order_relaxed)) error_counts().measured.store(true, std::memory_order_relaxed);
    if (key == nullptr) return n;
    // Kept where the message is the site's name after the prefix, a name not cut to its limit.
    const std::string& site = n->s->name;
    if (reg != nullptr) {
      r = {key, &d, n, {}};
    } else if (m.ascii != nullptr && site.size() == d.prefix.size() + text.size() &&
               site.compare(d.prefix.size(), std::string::npos, text) == 0) {
      r = {key, &d, n, known_name(site.c_str() + d.prefix.size(), text.size())};
    }
  } catch (...) {
    return nullptr;  // out of memory: the range goes unmeasured, the program on
  }
  return n;
}

wd::named_site* count_left_out(const domain& d, thread_ranges& t) noexcept {
  if (d.own) return nullptr;
  t.left_out.store(t.left_out.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (!d.left_out.load(std::memory_order_relaxed)) d.left_out.store(true, std::memory_order_relaxed);
  return nullptr;
}

message wide_message(const wchar_t* s, std::string& buffer) noexcept {
  message m;
  try {
    buffer.clear();
    append_utf8(buffer, s);
    m.text = buffer;
  } catch (...) {
  }
  return m;
}

message message_of(const nvtxEventAttributes_t* a, std::string& buffer) noexcept {
  message m;
  // The message lies after version, size, category, colour and payload: an older or smaller
  // structure than that holds none.
  if (a == nullptr || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof(a->message)) return m;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      m.ascii = a->message.ascii;
      break;
    case NVTX_MESSAGE_TYPE_UNICODE: return wide_message(a->message.unicode, buffer);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      m.registered = a->message.registered;
      break;
    default: break;
  }
  return m;
}

}  // namespace warmup_nvtx
