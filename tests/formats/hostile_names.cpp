// Prints, in the format named by argv[1] (json, csv, svg, trace, table), the report of sites
// whose names are hostile user input, for check_report.py.
#include <iostream>
#include <string>

#include "format_arg.hpp"
#include "warmup/profile.hpp"

int main(int argc, char** argv) {
  const std::string format = argc > 1 ? argv[1] : "json";
  const std::string names[] = {
      "quote\" backslash\\ slash/",
      "newline\n tab\t cr\r",
      std::string("nul\0inside", 10),
      "control \x01\x02\x1f\x7f",
      "comma, <angle> & ampersand",
      "bad utf8 \xff\xfe \xc3 \xe2\x82",
      "good utf8 \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
      std::string(1 << 20, 'x'),
  };
  for (const auto& n : names) {
    warmup::region_scope a{n};
    warmup::h2d_scope b{n, std::size_t{64}};
  }
  const warmup::report r = warmup::snapshot();
  const warmup::report_format f = format_arg(format, warmup::report_format::json);
  std::cout << warmup::format_report(r, f);
}
