// The figures each remedy gave on warmup's examples, quoted from their home (the row each
// remedy's `source` names) for warmup-report to print; the test docs.readme_remedies checks
// each against that row.
#include "remedy_figures.hpp"

#include <warmup/detail/io/remedy_text.hpp>
#include <warmup/detail/io/text.hpp>

std::string_view measured_on_our_examples(warmup::remedy r) noexcept {
  using warmup::remedy;
  switch (r) {  // no default: a remedy without its line here is a -Wswitch warning
    case remedy::prewarm_kernels: return "four first launches 34.9 us in all vs 180 us (LAZY)";
    case remedy::module_loading_eager: return "four first launches 195 us in all (LAZY) vs 42 us (EAGER)";
    case remedy::jit_cache_kept: return "27.3 ms into a fresh cache; 363 us from a warm cache";
    case remedy::build_for_the_gpu: return "";
    case remedy::prewarm_pool: return "first 7.6 us vs steady 1.2 us, the pool grew in 0 of 20 calls";
    case remedy::pinned_buffer: return "64 MiB: 24.3 ms";
    case remedy::allocator_kept: return "the same tensor freed into the cache first: 89.4 us, +0 MiB";
    case remedy::cublas_prewarm: return "first calls 80 / 48 / 31 / 20 us vs 88 / 54 / 100 / 76 ms cold (host)";
    case remedy::compile_caches_kept: return "first call 1.33 s vs 221 us";
    case remedy::compile_artifacts: return "";
    case remedy::nccl_connect_at_init: return "first all-reduce 5.1 ms, init +107 ms";
    case remedy::prewarm_on_a_thread: return "time to the first result 982 ms vs 1573 ms without prewarm";
    case remedy::until_steady: return "first real forward 1.15 ms, excess 0.03 ms";
  }
  return "";
}

std::vector<std::string> advice_lines(const warmup::detail::remedy_row& row, std::chrono::nanoseconds could_save) {
  namespace d = warmup::detail;
  std::vector<std::string> out;
  out.push_back("  " + std::string(row.name) + ": up to " + d::format_duration(could_save) + ": " + std::string(row.what));
  out.push_back("      moves: " + std::string(row.moves));
  switch (row.kind) {
    case warmup::remedy_kind::environment:
      out.push_back("      set:   " + std::string(row.setting) + "  (warmup-report try measures it on your program)");
      break;
    case warmup::remedy_kind::cache:
      out.push_back("      keep:  " + d::joined_setting_words(row.setting, false, ", ") + " pointed at folders kept between runs; set " +
                    d::joined_setting_words(row.setting, true, " ") + "  (warmup-report try measures it on your program)");
      break;
    case warmup::remedy_kind::code: out.push_back("      code:  " + std::string(row.snippet)); break;
  }
  const std::string_view measured = measured_on_our_examples(row.id);
  out.push_back("      on our examples: " + (measured.empty() ? std::string("not measured") : std::string(measured)) + " (" +
                std::string(row.source) + ")");
  return out;
}
