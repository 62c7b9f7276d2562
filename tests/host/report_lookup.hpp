// Finds a site in a report by kind and name (test helper).
#pragma once

#include <string_view>

#include "warmup/report.hpp"

inline const warmup::site_report* find_site(const warmup::report& r, std::string_view name,
                                            warmup::op_kind op = warmup::op_kind::region) {
  for (const auto& s : r.sites)
    if (s.name == name && s.op == op) return &s;
  return nullptr;
}
