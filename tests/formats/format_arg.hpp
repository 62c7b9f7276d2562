// A report format named on the command line of the format test programs.
#pragma once

#include <string>

#include "warmup/report_file.hpp"

inline warmup::report_format format_arg(const std::string& name, warmup::report_format otherwise) {
  if (name == "json") return warmup::report_format::json;
  if (name == "csv") return warmup::report_format::csv;
  if (name == "svg") return warmup::report_format::svg;
  if (name == "trace") return warmup::report_format::trace;
  if (name == "table") return warmup::report_format::table;
  return otherwise;
}
