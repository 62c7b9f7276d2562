// The tables of causes and kinds (cause.hpp, op.hpp): a row for each, in order, each its own.
#include "catch.hpp"

#include <cstddef>
#include <string_view>

#include "warmup/profile.hpp"

namespace {
struct cause_only {
  warmup::cause what;
};
}  // namespace

TEST_CASE("a table of causes must hold a row for each, in the enum's order, or the library does not compile") {
  namespace d = warmup::detail;
  using warmup::cause;
  STATIC_REQUIRE(d::in_cause_order(d::cause_table));
  static constexpr cause_only short_one[] = {{cause::context_init}, {cause::module_load}};
  STATIC_REQUIRE_FALSE(d::in_cause_order(short_one));  // a cause without its row
  static constexpr cause_only swapped[] = {
      {cause::module_load},  {cause::context_init}, {cause::lazy_kernel_load}, {cause::jit_compile},
      {cause::jit_cache_load}, {cause::device_alloc}, {cause::pinned_alloc},    {cause::pool_growth},
      {cause::sync_wait},    {cause::library_load}, {cause::host_code},       {cause::waiting}};
  STATIC_REQUIRE_FALSE(d::in_cause_order(swapped));
  // Every row's names and colour are its own.
  for (std::size_t i = 0; i < warmup::cause_count; ++i)
    for (std::size_t j = i + 1; j < warmup::cause_count; ++j) {
      CHECK(d::cause_table[i].id != d::cause_table[j].id);
      CHECK(d::cause_table[i].words != d::cause_table[j].words);
      CHECK(std::string_view(d::cause_table[i].colour) != d::cause_table[j].colour);
    }
}

namespace {
struct evidence_only {
  warmup::cause what;
  warmup::detail::cause_evidence counts;
};
struct kind_only {
  warmup::op_kind kind;
};
}  // namespace

TEST_CASE("a table of causes with two rows counting samples, or of kinds short or out of order, is refused") {
  namespace d = warmup::detail;
  using warmup::cause;
  using warmup::op_kind;
  // cause.hpp refuses a cause_table where this is not 1 (static_assert): the join would not know
  // which cause the samples are filed under.
  static constexpr evidence_only two[] = {{cause::host_code, d::cause_evidence::cpu_samples},
                                          {cause::waiting, d::cause_evidence::cpu_samples}};
  STATIC_REQUIRE(d::rows_counting(two, d::cause_evidence::cpu_samples) == 2);
  STATIC_REQUIRE(d::rows_counting(d::cause_table, d::cause_evidence::cpu_samples) == 2);
  STATIC_REQUIRE(d::in_kind_order(d::kind_table));
  static constexpr kind_only short_one[] = {{op_kind::context}, {op_kind::alloc}};
  STATIC_REQUIRE_FALSE(d::in_kind_order(short_one));  // a kind without its row
  static constexpr kind_only swapped[] = {{op_kind::alloc}, {op_kind::context}, {op_kind::h2d}, {op_kind::d2h},
                                          {op_kind::d2d},   {op_kind::launch},  {op_kind::region}};
  STATIC_REQUIRE_FALSE(d::in_kind_order(swapped));
  // Every kind's name and NVTX colour are its own.
  for (std::size_t i = 0; i < warmup::op_kind_count; ++i)
    for (std::size_t j = i + 1; j < warmup::op_kind_count; ++j) {
      CHECK(d::kind_table[i].name != d::kind_table[j].name);
      CHECK(d::kind_table[i].nvtx_colour != d::kind_table[j].nvtx_colour);
    }
}
