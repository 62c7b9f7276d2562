// The notice where WARMUP_NVTX_DOMAINS keeps nothing the program made: a list that names no
// domain the program opened a range in (a typo, a domain's name in the wrong case) would
// otherwise filter every range away in silence, and the report would be empty with no reason.
//
//   WARMUP_NVTX_DOMAINS=nccl ./app   ->  "WARMUP_NVTX_DOMAINS=nccl named no domain this program
//                                        used (it used: default, NCCL); 956 ranges left out"
#include <warmup/detail/io/text.hpp>
#include <warmup/detail/runtime/notices.hpp>

#include <string>
#include <vector>

#include "ranges.hpp"

namespace warmup_nvtx {

void say_if_no_domain_counted() noexcept {
  namespace wd = cuda_warmup::detail;
  try {
    const std::string& list = config().domains;
    if (list.empty() || list == "all") return;
    std::vector<std::string> used;
    const std::uint64_t n = ranges_left_out(used);
    if (n == 0 || ranges_measured()) return;  // a domain named was used: the rest left out as asked
    std::string names;
    for (const std::string& d : used) names += (names.empty() ? "" : ", ") + wd::printable(d, 80);
    wd::notice_board().raise(wd::notice_kind::nvtx_domains,
                             "WARMUP_NVTX_DOMAINS=" + wd::printable(list, 200) +
                                 " named no domain this program used (it used: " + names + "); " +
                                 std::to_string(n) + " ranges left out");
  } catch (...) {
  }
}

}  // namespace warmup_nvtx
