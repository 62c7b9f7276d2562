// The CSV as written, read back as text: its columns, its quoting, its formula guard.
#include "catch.hpp"

#include <string>
#include <vector>

#include "warmup/profile.hpp"

#include "../support/sample_report.hpp"

using namespace std::chrono_literals;

using support::sample_report;

namespace {
/// A CSV's lines, split at CRLF. A rest that no CRLF ends (rows ended by LF alone, or a last
/// row left open) is one more line, and `every_line_ends_in_crlf` is false: the split stops at
/// the end of the text whatever its line endings, so a wrong ending fails a check, never hangs.
struct crlf_lines {
  std::vector<std::string> lines;
  bool every_line_ends_in_crlf = true;
};

crlf_lines split_crlf(const std::string& text) {
  crlf_lines out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find("\r\n", at);
    if (end == std::string::npos) {
      out.lines.push_back(text.substr(at));
      out.every_line_ends_in_crlf = false;
      break;
    }
    out.lines.push_back(text.substr(at, end - at));
    at = end + 2;
  }
  return out;
}
}  // namespace

TEST_CASE("the CSV tests' line split ends on any line ending: rows ended by LF alone fail, never hang") {
  const crlf_lines lf = split_crlf("op,name\nregion,once\n");
  CHECK_FALSE(lf.every_line_ends_in_crlf);
  CHECK(lf.lines == std::vector<std::string>{"op,name\nregion,once\n"});
  const crlf_lines open_end = split_crlf("op,name\r\nregion,once");
  CHECK_FALSE(open_end.every_line_ends_in_crlf);
  CHECK(open_end.lines == std::vector<std::string>{"op,name", "region,once"});
  const crlf_lines crlf = split_crlf("op,name\r\nregion,once\r\n");
  CHECK(crlf.every_line_ends_in_crlf);
  CHECK(crlf.lines == std::vector<std::string>{"op,name", "region,once"});
}

TEST_CASE("CSV: one column per JSON field, named by its path; absent figures are empty cells") {
  const std::string csv = warmup::to_csv(sample_report());
  const crlf_lines split = split_crlf(csv);
  CHECK(split.every_line_ends_in_crlf);
  const std::vector<std::string>& lines = split.lines;
  REQUIRE(lines.size() == 3);
  const auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (char c : line) {
      if (c == ',') out.emplace_back();
      else out.back().push_back(c);
    }
    return out;
  };
  const std::vector<std::string> head = cells(lines[0]);
  // 3 + 2 x (8 timing fields + 12 steady fields + 2 x 6 attribution fields) + 10 bytes fields
  // + exceptions + 4 untimed reasons + 5 host signals (the lists left out) + 4 pool fields
  CHECK(head.size() == 3 + 2 * (8 + 12 + 2 * 6) + 10 + 1 + 4 + 5 + 4);
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return i;
    FAIL("no column " << name);
    return std::size_t{0};
  };
  for (const auto& l : lines) CHECK(cells(l).size() == head.size());
  const std::vector<std::string> once = cells(lines[1]), upload = cells(lines[2]);
  CHECK(once[column("host.first")] == "120000000");
  CHECK(once[column("host.steady.p50")].empty());
  CHECK(once[column("device.first")].empty());
  CHECK(once[column("bytes.first")].empty());
  CHECK(upload[column("op")] == "h2d");
  CHECK(upload[column("host.steady.p50")] == "1000000");
  CHECK(upload[column("host.steady.enough_calls")] == "false");
  CHECK(upload[column("bytes.total")] == "3000000");
  CHECK(upload[column("bytes.gbps_clock")] == "host");
  CHECK(upload[column("bytes.first_gbps")] == "0.333");  // a figure with a fraction, as JSON writes it
  CHECK(upload[column("bytes.mean_gbps")] == "0.6");
  CHECK(upload[column("device_untimed.sampled_out")] == "0");
  CHECK(csv.find("notes") == std::string::npos);
}

TEST_CASE("CSV: a text cell a spreadsheet would run as a formula is written as text; figures stay numbers") {
  warmup::report r = sample_report();
  const std::vector<std::string> formulas = {"=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1:A2)", "\tx", "\rx"};
  for (const std::string& f : formulas) {
    warmup::site_report s;
    s.name = f;
    s.op = warmup::op_kind::region;
    s.calls = s.host.calls = 2;
    s.host.first = 1ms;
    s.host.first_call_excess = -1234ns;  // a first call faster than the p50: a negative figure
    r.sites.push_back(s);
  }
  const std::string csv = warmup::to_csv(r);
  // OWASP's rule: a ' before the cell, and the cell quoted.
  CHECK(csv.find("\r\n\"'=cmd|' /C calc'!A0\",region,2,") != std::string::npos);
  CHECK(csv.find("\r\n\"'+1+1\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'-2+3\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'@SUM(A1:A2)\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'\tx\",region,") != std::string::npos);
  CHECK(csv.find("\r\n\"'\rx\",region,") != std::string::npos);
  // No line starts with a formula, and the library's own negative figure is a bare number.
  for (const char* bad : {"\n=", "\n+", "\n-", "\n@", ",=", ",+", ",@", ",'-1234"}) CHECK(csv.find(bad) == std::string::npos);
  CHECK(csv.find(",-1234,") != std::string::npos);
  CHECK(csv.find("\r\nonce,context,1,") != std::string::npos);  // a plain name as it was
}

TEST_CASE("CSV as written, byte for byte: a field quoted exactly when it must be, its quotes doubled") {
  warmup::report r;
  for (const char* name : {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "\"", "sp ace"}) {
    r.sites.push_back(support::one_call(name));
  }
  const std::string csv = warmup::to_csv(r);
  // Each row starts with the site's name; a lenient reader would forgive a quote too many or
  // too few, so the raw text is checked.
  CHECK(csv.find("\r\nplain,") != std::string::npos);
  CHECK(csv.find("\r\n\"a,b\",") != std::string::npos);
  CHECK(csv.find("\r\n\"say \"\"hi\"\"\",") != std::string::npos);
  CHECK(csv.find("\r\n\"two\nlines\",") != std::string::npos);
  CHECK(csv.find("\r\n\"cr\rhere\",") != std::string::npos);
  CHECK(csv.find("\r\n\"\"\"\",") != std::string::npos);
  CHECK(csv.find("\r\nsp ace,") != std::string::npos);  // a space needs no quotes
  CHECK(csv.find("\"plain\"") == std::string::npos);
  // Every line ends in CRLF, the last one too.
  CHECK(csv.size() >= 2);
  CHECK(csv.compare(csv.size() - 2, 2, "\r\n") == 0);
}
