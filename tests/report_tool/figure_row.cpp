// Built by check_figure_row.py against a copy of the headers whose figure table has one row more,
// `first_excess` (a site's first call less its steady p50): prints where that figure went.
#include <warmup/compare.hpp>
#include <warmup/compare_formats.hpp>
#include <warmup/detail/io/rank_wire.hpp>
#include <warmup/merge.hpp>
#include <warmup/merge_formats.hpp>

#include <chrono>
#include <iostream>
#include <sstream>
#include <vector>

int main() {
  using namespace std::chrono_literals;
  std::vector<warmup::report> runs(2);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    warmup::site_report s;
    s.name = "step", s.calls = s.host.calls = 10, s.host.first = 9ms;
    s.host.first_call_excess = std::chrono::milliseconds(4 + 4 * i);  // 4 ms, then 8 ms
    runs[i].sites.push_back(s);
    runs[i].identity.rank = static_cast<int>(i);
  }
  // The wire: a rank's summary sent and read back.
  std::vector<unsigned char> bytes;
  warmup::detail::encode(warmup::summarize(runs[1]), 1, bytes);
  warmup::rank_summary back;
  const bool decoded = warmup::detail::decode(bytes.data(), bytes.size(), back);
  std::cout << "wire: " << (decoded && back.sites.at(0).first_excess == 8ms ? "8000000" : "lost") << " in "
            << warmup::detail::wire_site::size << " bytes a site, magic " << std::hex << warmup::detail::wire_magic
            << std::dec << '\n';
  std::vector<warmup::rank_summary> ranks;
  for (const warmup::report& r : runs) ranks.push_back(warmup::summarize(r));
  const warmup::merged_report m = warmup::merge(std::move(ranks));
  std::cout << "merged json: " << warmup::to_json(m) << '\n';
  std::cout << "merged csv: " << warmup::to_csv(m);
  const warmup::comparison c = warmup::compare(warmup::compare_view(runs[0]), warmup::compare_view(runs[1]));
  std::cout << "compare json: " << warmup::to_json(c) << '\n';
  std::ostringstream table;
  warmup::print(c, table);
  std::cout << "compare table:\n" << table.str();
}
