// The JSON parser (detail/io/json_parse.hpp): what RFC 8259 allows, and where it refuses the rest.
#include "catch.hpp"

#include <string>

#include "warmup/detail/io/json_parse.hpp"

namespace {
bool parses(const std::string& text, std::string* error = nullptr) {
  warmup::detail::json_value v;
  warmup::detail::json_parser p(text);
  const bool ok = p.parse(v);
  if (error != nullptr) *error = p.error();
  return ok;
}
}  // namespace

TEST_CASE("the JSON parser takes what RFC 8259 allows and says where it refuses the rest") {
  CHECK(parses(R"({"a": [1, -2.5e-3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}})"));
  CHECK(parses("  [ ]  "));
  std::string e;
  CHECK_FALSE(parses("{\"a\": 01}", &e));
  CHECK_FALSE(parses("[1,]", &e));
  CHECK(e.find("line 1, column 4") != std::string::npos);
  CHECK_FALSE(parses("{\"a\" 1}", &e));
  CHECK(e.find("expected ':'") != std::string::npos);
  CHECK_FALSE(parses("[1] x", &e));
  CHECK(e.find("text after the JSON value") != std::string::npos);
  CHECK_FALSE(parses("\"\\q\"", &e));
  CHECK(e.find("unknown escape") != std::string::npos);
  CHECK_FALSE(parses("[1.]", &e));
  CHECK_FALSE(parses("\"\\u12\"", &e));
  CHECK_FALSE(parses("\n\n  nul", &e));
  CHECK(e.find("line 3, column 3") != std::string::npos);
  CHECK(parses(std::string(64, '[') + std::string(64, ']')));
  CHECK_FALSE(parses(std::string(65, '[') + std::string(65, ']'), &e));
  CHECK(e.find("deeper than 64") != std::string::npos);

  warmup::detail::json_value v;
  warmup::detail::json_parser p(R"("\ud83d\ude00 \udc00 \u0041")");
  REQUIRE(p.parse(v));
  CHECK(v.text == "\xF0\x9F\x98\x80 \xEF\xBF\xBD A");  // a pair, a lone low surrogate (U+FFFD), a letter
}
