// A name a thread passed lately, kept so that the next range with the same C string is told
// apart from another in a few word compares: the range's name is a string the program owns,
// which may have changed since (a reused buffer), so it is compared whole every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace warmup_nvtx {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__BYTE_ORDER__) || \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#define WARMUP_NVTX_BYTEWISE_NAMES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WARMUP_NVTX_BYTEWISE_NAMES 1
#endif
#endif

/// `text` and its terminating NUL, held as words. `matches(s)` is `strcmp(s, text) == 0` in
/// about one compare per 8 bytes, with no call: libc's strcmp, reached through the PLT, costs a
/// range as much as the rest of its lookup. The program's string is read a word at a time only
/// where the word stays inside one page, as libc's own string functions read it, so that no read
/// reaches a page the string does not; bytes past its NUL may be read but never decide the
/// answer. Under a sanitizer (which would see those bytes read), and on a big-endian machine,
/// it compares byte by byte.
///
///     std::string name = "aten::addmm";
///     known_name k(name.c_str(), name.size());
///     k.matches("aten::addmm");  // true
///     k.matches("aten::add");    // false
class known_name {
 public:
  known_name() = default;
  /// `text[size]` is its NUL; `text` outlives this (the site's name, which is never freed).
  known_name(const char* text, std::size_t size) noexcept : text_(text), words_(size / 8) {
    // The last word: the bytes after the whole words, the NUL, then zeros that are not compared.
    const std::size_t rest = size % 8;
    std::memcpy(&last_, text + words_ * 8, rest + 1);
    last_mask_ = rest == 7 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * (rest + 1))) - 1;
  }

  /// Whether this holds a name (a default one holds none and matches nothing asked).
  bool known() const noexcept { return text_ != nullptr; }

  /// Whether the C string `s` is the text, NUL included. `s` is not null.
  bool matches(const char* s) const noexcept {
#ifndef WARMUP_NVTX_BYTEWISE_NAMES
    std::size_t i = 0;
    for (; i < words_; ++i) {
      if (crosses_page(s + 8 * i)) return matches_bytes(s);
      if (word(s + 8 * i) != word(text_ + 8 * i)) return false;  // text_ holds these 8 bytes
    }
    if (crosses_page(s + 8 * i)) return matches_bytes(s);
    return ((word(s + 8 * i) ^ last_) & last_mask_) == 0;
#else
    return matches_bytes(s);
#endif
  }

 private:
  static bool crosses_page(const char* p) noexcept {
    return (reinterpret_cast<std::uintptr_t>(p) & 4095) > 4096 - 8;
  }
  static std::uint64_t word(const char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  bool matches_bytes(const char* s) const noexcept {
    for (std::size_t i = 0;; ++i) {
      if (s[i] != text_[i]) return false;
      if (s[i] == '\0') return true;
    }
  }

  const char* text_ = nullptr;  ///< the whole words are read from here: it outlives this entry
  std::size_t words_ = 0;
  std::uint64_t last_ = 0;
  std::uint64_t last_mask_ = 0;
};

}  // namespace warmup_nvtx
