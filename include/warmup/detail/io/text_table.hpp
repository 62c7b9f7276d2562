/// @file
/// @brief Columns aligned for a terminal: the merge's and the compare's tables.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// Rows of cells, printed with each column as wide as its widest cell (in characters, UTF-8
/// lead bytes counted), the first `left` columns left-aligned and the rest right-aligned, and
/// lines of free text kept under the row they follow.
class text_table {
 public:
  text_table(std::vector<std::string> head, std::size_t left) : left_(left) { rows_.push_back({std::move(head), {}}); }

  void row(std::vector<std::string> cells) { rows_.push_back({std::move(cells), {}}); }
  /// A line printed under the last row, indented, outside the columns.
  void under(std::string text) { rows_.back().second.push_back(std::move(text)); }

  void print(std::ostream& os) const {
    std::vector<std::size_t> width;
    for (const auto& r : rows_) {
      width.resize(std::max(width.size(), r.first.size()));
      for (std::size_t i = 0; i < r.first.size(); ++i) width[i] = std::max(width[i], chars(r.first[i]));
    }
    for (const auto& [cells, lines] : rows_) {
      std::string out;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string fill(width[i] - chars(cells[i]), ' ');
        out += i < left_ ? cells[i] + fill : fill + cells[i];
        if (i + 1 < cells.size()) out += "  ";
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      os << out << '\n';
      for (const std::string& l : lines) os << "    " << l << '\n';
    }
  }

 private:
  static std::size_t chars(const std::string& s) noexcept {
    return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }
  std::size_t left_;
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> rows_;
};

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
