/// @file
/// @brief `series::merge_buckets` (detail/record/series.hpp declares it),
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/analysis/statistics.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// A series read from more than one lane (the owner's, the shared one, the threads'): buckets
/// sorted by value and those of one value summed. Declared with the series (record/series.hpp),
/// defined here: only a snapshot reads a series whole, so a measuring file never compiles it.
WARMUP_DETAIL_RUNTIME void series::merge_buckets(std::vector<series_data::bucket>& b) {
  std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.lowest < y.lowest; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (out != 0 && b[out - 1].lowest == b[i].lowest)
      b[out - 1].count += b[i].count;
    else
      b[out++] = b[i];
  }
  b.resize(out);
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
