// The text every format shares (detail/io/text.hpp): durations and sizes at each unit's
// boundary, shares of a whole, JSON strings and UTF-8 repair byte by byte; JSON strings read
// back, escape by escape (detail/io/json_parse.hpp); and the idle-gap rule of cold recurrences
// (detail/record/recurrence.hpp) at its threshold.
#include "catch.hpp"

#include <chrono>
#include <climits>
#include <cstdint>
#include <string>

#include "warmup/profile.hpp"
#include "warmup/detail/io/json_parse.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/detail/record/recurrence.hpp"

using namespace std::chrono_literals;
using warmup::detail::format_bytes;
using warmup::detail::format_duration;

TEST_CASE("sizes: bytes below 1024, then binary units at exactly 1024 of the one below") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.00 KiB");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(10 * 1024) == "10.0 KiB");
  CHECK(format_bytes(100 * 1024) == "100 KiB");
  CHECK(format_bytes(1024 * 1024 - 1) == "1024 KiB");  // rounds up in print, still below a MiB
  CHECK(format_bytes(1024 * 1024) == "1.00 MiB");
  CHECK(format_bytes(std::uint64_t(3) << 30) == "3.00 GiB");
  CHECK(format_bytes(std::uint64_t(5) << 40) == "5.00 TiB");
  CHECK(format_bytes(std::uint64_t(7) << 50) == "7.00 PiB");
  CHECK(format_bytes(UINT64_MAX) == "16.0 EiB");  // the last unit, never one past the list
}

TEST_CASE("durations: three significant digits, each unit from exactly 1000 of the one below") {
  CHECK(format_duration(0ns) == "0 ns");
  CHECK(format_duration(999ns) == "999 ns");
  CHECK(format_duration(1000ns) == "1.00 us");
  CHECK(format_duration(5210ns) == "5.21 us");
  CHECK(format_duration(10'000ns) == "10.0 us");
  CHECK(format_duration(100'000ns) == "100 us");
  CHECK(format_duration(1'000'000ns) == "1.00 ms");
  CHECK(format_duration(10'000'000ns) == "10.0 ms");
  CHECK(format_duration(100'000'000ns) == "100 ms");
  CHECK(format_duration(1'000'000'000ns) == "1.00 s");
  CHECK(format_duration(2'500'000'000ns) == "2.50 s");
  CHECK(format_duration(-1500ns) == "-1.50 us");  // the unit from the size, the sign kept
}

TEST_CASE("a duration's size: the sign dropped, the most negative value read as the largest") {
  using warmup::detail::format_magnitude;
  CHECK(format_magnitude(-1500ns) == "1.50 us");
  CHECK(format_magnitude(1500ns) == "1.50 us");
  CHECK(format_magnitude(std::chrono::nanoseconds{LLONG_MIN}) == format_duration(std::chrono::nanoseconds{LLONG_MAX}));
}

TEST_CASE("sums of durations saturate at either end, and are exact between") {
  using warmup::detail::saturating_add;
  using ns = std::chrono::nanoseconds;
  CHECK(saturating_add(5ns, 7ns) == 12ns);
  CHECK(saturating_add(5ns, -7ns) == -2ns);
  CHECK(saturating_add(ns::max() - 1ns, 1ns) == ns::max());
  CHECK(saturating_add(ns::max() - 1ns, 2ns) == ns::max());
  CHECK(saturating_add(ns::min() + 1ns, -1ns) == ns::min());
  CHECK(saturating_add(ns::min() + 1ns, -2ns) == ns::min());
  CHECK(saturating_add(ns::max(), 0ns) == ns::max());
}

TEST_CASE("a share of a whole: two digits at most, <0.1% for a sliver, - for no whole") {
  using warmup::detail::share;
  CHECK(share(1ns, 0ns) == "-");
  CHECK(share(1ns, -5ns) == "-");
  CHECK(share(0ns, 100ns) == "0.0%");
  CHECK(share(1ns, 10'000ns) == "<0.1%");
  CHECK(share(5ns, 10'000ns) == "0.1%");  // 0.05% is not below 0.05%
  CHECK(share(45ns, 1000ns) == "4.5%");
  CHECK(share(99ns, 1000ns) == "9.9%");
  CHECK(share(995ns, 10'000ns) == "10%");  // 9.95% is printed in two digits
  CHECK(share(35ns, 100ns) == "35%");
}

TEST_CASE("JSON strings: each escape as JSON writes it, byte for byte") {
  const auto json = [](std::string_view s) {
    std::string out;
    warmup::detail::append_json_string(out, s);
    return out;
  };
  CHECK(json("plain") == "\"plain\"");
  CHECK(json("a\"b") == "\"a\\\"b\"");
  CHECK(json("a\\b") == "\"a\\\\b\"");
  CHECK(json("\n\r\t") == "\"\\n\\r\\t\"");
  CHECK(json(std::string_view("\x01\x1f\x7f", 3)) == "\"\\u0001\\u001f\\u007f\"");
  CHECK(json(" ~") == "\" ~\"");                       // 0x20 and 0x7e are plain
  CHECK(json("\xC3\xA9") == "\"\xC3\xA9\"");           // UTF-8 kept
  CHECK(json("\xC3") == "\"\xEF\xBF\xBD\"");            // a cut sequence replaced
  CHECK(json("\xC0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");  // overlong, each byte replaced
  CHECK(json("\xED\xA0\x80") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  CHECK(json("\xF4\x8F\xBF\xBF") == "\"\xF4\x8F\xBF\xBF\"");  // U+10FFFF, the last code point
  CHECK(json("\xF4\x90\x80\x80").find("\xEF\xBF\xBD") != std::string::npos);  // beyond it
}

TEST_CASE("UTF-8 sequences at each length's bounds") {
  using warmup::detail::utf8_sequence;
  CHECK(utf8_sequence("\x7f", 0) == 1);
  CHECK(utf8_sequence("\xC2\x80", 0) == 2);          // U+0080, the first of two bytes
  CHECK(utf8_sequence("\xC1\xBF", 0) == 0);          // overlong U+007F
  CHECK(utf8_sequence("\xE0\xA0\x80", 0) == 3);      // U+0800
  CHECK(utf8_sequence("\xE0\x9F\xBF", 0) == 0);      // overlong U+07FF
  CHECK(utf8_sequence("\xED\x9F\xBF", 0) == 3);      // U+D7FF, just below the surrogates
  CHECK(utf8_sequence("\xED\xA0\x80", 0) == 0);      // U+D800, the first surrogate
  CHECK(utf8_sequence("\xED\xBF\xBF", 0) == 0);      // U+DFFF, the last
  CHECK(utf8_sequence("\xF4\x8F\xBF\xBF", 0) == 4);  // U+10FFFF, the last code point
  CHECK(utf8_sequence("\xF4\x90\x80\x80", 0) == 0);  // U+110000, past it
  CHECK(utf8_sequence("\xEE\x80\x80", 0) == 3);      // U+E000, just above them
  CHECK(utf8_sequence("\xF0\x90\x80\x80", 0) == 4);  // U+10000
  CHECK(utf8_sequence("\xF0\x8F\xBF\xBF", 0) == 0);  // overlong U+FFFF
  CHECK(utf8_sequence("\xE2\x82", 0) == 0);          // cut short
  CHECK(utf8_sequence("\xE2\x28\xA1", 0) == 0);      // a continuation byte missing
  CHECK(utf8_sequence("a\xC3\xA9", 1) == 2);         // read where asked
}

TEST_CASE("text for terminals and for formats: controls replaced, cut on a character's boundary") {
  using warmup::detail::controls;
  using warmup::detail::printable;
  using warmup::detail::repair_utf8;
  CHECK(printable("abc", 3) == "abc");
  CHECK(printable("abcd", 3) == "abc...");            // cut at max_bytes, "..." after it
  CHECK(printable("a\xC3\xA9", 3) == "a\xC3\xA9");     // exactly max_bytes: whole
  CHECK(printable("a\xC3\xA9", 2) == "a...");          // a character is not split
  CHECK(printable("a\x1b" "b", 10) == "a?b");
  CHECK(printable("\xC3\xA9\xC3\xA9", 7) == "\xC3\xA9\xC3\xA9");
  CHECK(repair_utf8("a\nb\tc", controls::keep_line_breaks) == "a\nb\tc");
  CHECK(repair_utf8("a\nb", controls::drop_all) == "a\xEF\xBF\xBD" "b");
  CHECK(repair_utf8("a\x01" "b", controls::keep_line_breaks) == "a\xEF\xBF\xBD" "b");
  CHECK(repair_utf8("\xC3\xA9\xFF", controls::drop_all) == "\xC3\xA9\xEF\xBF\xBD");
}

TEST_CASE("JSON numbers: integers as they are, six digits, nothing that is not finite") {
  const auto num = [](double v) {
    std::string out;
    warmup::detail::append_json_number(out, v);
    return out;
  };
  CHECK(num(42) == "42");
  CHECK(num(1.5) == "1.5");
  CHECK(num(0.1234567) == "0.123457");
  CHECK(num(1.0 / 0.0) == "null");
  CHECK(num(0.0 / 0.0) == "null");
}

TEST_CASE("a call is a cold recurrence candidate from exactly the idle threshold after its site's last call") {
  auto& settings = warmup::detail::recurrence();
  const std::uint64_t kept = settings.idle_ns.load();
  settings.idle_ns.store(1000);
  const std::uint64_t end = std::uint64_t(1) << 22;  // past the tracker's coarse step
  {
    warmup::detail::idle_tracker t;
    CHECK_FALSE(t.candidate(1, end, 1.0));  // a site's first call is not a recurrence
    CHECK(t.candidate(end + 1000, end + 1001, 1.0));  // idle exactly 1000 ns
  }
  {
    warmup::detail::idle_tracker t;
    CHECK_FALSE(t.candidate(1, end, 1.0));
    CHECK_FALSE(t.candidate(end + 999, end + 1000, 1.0));  // 1 ns short
    CHECK_FALSE(t.candidate(end + 1001, end + 1002, 0.0));  // no rate known: never idle
  }
  {
    warmup::detail::idle_tracker t;
    CHECK_FALSE(t.candidate(1, end, 2.0));
    CHECK(t.candidate(end + 500, end + 501, 2.0));  // 500 ticks of 2 ns each
  }
  settings.idle_ns.store(kept);
}

TEST_CASE("JSON strings read back: every escape, \\u at each UTF-8 length's bounds, surrogate pairs") {
  const auto read = [](std::string_view doc) {
    warmup::detail::json_parser p(doc);
    warmup::detail::json_value v;
    const bool ok = p.parse(v);
    return ok ? v.text : "error: " + p.error();
  };
  CHECK(read(R"("a\"b\\c\/d")") == "a\"b\\c/d");
  CHECK(read(R"("\b\f\n\r\t")") == "\b\f\n\r\t");
  CHECK(read(R"("\u0041\u007f")") == "A\x7f");
  CHECK(read(R"("\u0080\u07FF")") == "\xC2\x80\xDF\xBF");      // two bytes, first and last
  CHECK(read(R"("\u0800\uffff")") == "\xE0\xA0\x80\xEF\xBF\xBF");  // three bytes
  CHECK(read(R"("\u00e9\u00E9\u00Ea")") == "\xC3\xA9\xC3\xA9\xC3\xAA");  // either case of hex
  CHECK(read(R"("\u0009\u0030\u0039")") == "\t09");
  CHECK(read(R"("\uD83D\uDE00")") == "\xF0\x9F\x98\x80");    // a pair: U+1F600
  CHECK(read(R"("\uDBFF\uDFFF")") == "\xF4\x8F\xBF\xBF");    // the last pair: U+10FFFF
  CHECK(read(R"("\uD800\uDC00")") == "\xF0\x90\x80\x80");    // the first: U+10000
  CHECK(read(R"("\uD800x")") == "\xEF\xBF\xBDx");            // a lone high surrogate
  CHECK(read(R"("\uDC00")") == "\xEF\xBF\xBD");               // a lone low one
  CHECK(read(R"("\uD800\u0041")") == "\xEF\xBF\xBD" "A");     // a high one, then a character of its own
  CHECK(read(R"("\u12G4")").rfind("error: ", 0) == 0);
  CHECK(read(R"("\u12")").rfind("error: ", 0) == 0);
  CHECK(read(R"("\x")").rfind("error: ", 0) == 0);
  CHECK(read("\"a\x01\"").rfind("error: ", 0) == 0);          // a raw control character
  CHECK(read(R"("abc)").rfind("error: ", 0) == 0);
  CHECK(read("\"\x1f\"").find("control character") != std::string::npos);
  CHECK(read("\" \"") == " ");                                 // 0x20 is a character
}

TEST_CASE("JSON read back: whitespace of every kind RFC 8259 allows, between every two tokens") {
  const auto parses = [](std::string_view doc) {
    warmup::detail::json_parser p(doc);
    warmup::detail::json_value v;
    return p.parse(v) ? std::string("ok") : "error: " + p.error();
  };
  // Around each colon, comma and bracket: after a key, before its colon, too.
  for (const char* ws : {" ", "\t", "\n", "\r", " \r\n\t "}) {
    const std::string w(ws);
    CAPTURE(w);
    CHECK(parses(w + "{" + w + "\"a\"" + w + ":" + w + "1" + w + "," + w + "\"b\"" + w + ":" + w + "[" + w + "2" + w +
                 "," + w + "3" + w + "]" + w + "}" + w) == "ok");
    CHECK(parses("{\"a\"" + w + ":1}") == "ok");
  }
  warmup::detail::json_parser p("{\"key\" : \"value\", \"n\"\t:\t-7}");
  warmup::detail::json_value v;
  REQUIRE(p.parse(v));
  REQUIRE(v.find("key") != nullptr);
  CHECK(v.find("key")->text == "value");
  REQUIRE(v.find("n") != nullptr);
  CHECK(v.find("n")->text == "-7");
  // A document read from a view ends where the view does, whatever the bytes past it.
  const std::string longer = "{\"a\":1}   trailing";
  warmup::detail::json_parser view(std::string_view(longer).substr(0, 7));
  warmup::detail::json_value in_view;
  CHECK(view.parse(in_view));
  // Anything else between a key and its colon is refused, where it stands.
  CHECK(parses("{\"a\" x:1}") == "error: line 1, column 6: expected ':' after an object key");
}
