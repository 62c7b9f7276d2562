// A report format named on the command line of the format test programs.
#pragma once

#include <string>

#include "warmup/report_file.hpp"

inline warmup::report_format format_arg(const std::string& name, warmup::report_format otherwise) {
  for (const warmup::report_format_info& f : warmup::report_formats)
    if (f.name == name) return f.format;
  return otherwise;
}
