// The NVTX tool's site names (nvtx_tool/names.hpp): varying fields out, the rest kept as given.
#include "catch.hpp"

#include "../../nvtx_tool/names.hpp"

namespace {
std::string named(std::string_view prefix, std::string_view message,
                  std::string_view varying = warmup_nvtx::default_varying) {
  std::string out;
  warmup_nvtx::site_name(out, prefix, message, warmup_nvtx::comma_list(varying));
  return out;
}
}  // namespace

TEST_CASE("PyTorch's per-call numbers go, its shapes stay", "[nvtx_tool]") {
  CHECK(named("", "aten::addmm, seq = 12, op_id = 40, sizes = [[32, 64], [64, 64]]") ==
        "aten::addmm, sizes = [[32, 64], [64, 64]]");
  CHECK(named("", "aten::mm, seq = 3, op_id = 9, sizes = [[2, 2], [2, 2]], input_op_ids = [(7, 0), (8, 1)]") ==
        "aten::mm, sizes = [[2, 2], [2, 2]]");
  CHECK(named("", "MmBackward0, stashed seq = 5") == "MmBackward0");
  CHECK(named("", "aten::relu, seq = 7") == "aten::relu");
  CHECK(named("", "aten::empty") == "aten::empty");
}

TEST_CASE("only fields are dropped: a name's own commas, brackets and equals signs stay", "[nvtx_tool]") {
  CHECK(named("", "load, then seq") == "load, then seq");
  CHECK(named("", "a, seq = [1, 2], b = 3") == "a, b = 3");          // a bracketed value is one field
  CHECK(named("", "seq = 4, seq = 5") == "seq = 4");                  // the first part is the name, kept
  CHECK(named("", "x, 9seq = 1") == "x, 9seq = 1");                   // no key starts with a digit
  CHECK(named("", "x, se-q = 1") == "x, se-q = 1");
  CHECK(named("", "x, seq = 1,") == "x");                             // the comma is its value's
  CHECK(named("", "unbalanced ], seq = 2") == "unbalanced ]");
  CHECK(named("", "") == "");
}

TEST_CASE("the setting names the fields; none keeps every name whole", "[nvtx_tool]") {
  CHECK(named("", "step, iter = 4, batch = 32", "iter") == "step, batch = 32");
  CHECK(named("", "step, iter = 4, batch = 32", " iter , batch ") == "step");
  CHECK(named("", "aten::mm, seq = 3", "none") == "aten::mm, seq = 3");
  CHECK(named("", "aten::mm, seq = 3", "") == "aten::mm, seq = 3");
  CHECK(warmup_nvtx::comma_list(",,a,,b ,").size() == 2);
}

TEST_CASE("a named domain prefixes its ranges' names", "[nvtx_tool]") {
  CHECK(named(warmup_nvtx::domain_prefix("NCCL"), "AllReduce") == "[NCCL] AllReduce");
  CHECK(named(warmup_nvtx::domain_prefix(""), "x") == "[] x");
}

TEST_CASE("domains counted by the setting; warmup's own never", "[nvtx_tool]") {
  using warmup_nvtx::domain_counted;
  CHECK(domain_counted("all", "NCCL", false));
  CHECK(domain_counted("", "", true));
  CHECK_FALSE(domain_counted("all", "warmup", false));
  CHECK_FALSE(domain_counted("warmup", "warmup", false));
  CHECK(domain_counted("NCCL,default", "", true));
  CHECK(domain_counted("NCCL, default", "NCCL", false));
  CHECK_FALSE(domain_counted("NCCL", "", true));
  CHECK_FALSE(domain_counted("NCCL", "NCCLX", false));
}

TEST_CASE("wide names as UTF-8, a code point that is none as U+FFFD", "[nvtx_tool]") {
  std::string out;
  warmup_nvtx::append_utf8(out, L"a\u00e9\u20ac\U0001F600");
  CHECK(out == "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  out.clear();
  // Each length's first and last code point: a lead byte's every bit from the code point's.
  warmup_nvtx::append_utf8(out, L"\u0080\u07ff\u0800\uffff\U00010000\U0010FFFF");
  CHECK(out == "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
  out.clear();
  const wchar_t bad[] = {static_cast<wchar_t>(0xD800), static_cast<wchar_t>(0x110000), L'z', 0};
  warmup_nvtx::append_utf8(out, bad);
  CHECK(out == "\xef\xbf\xbd\xef\xbf\xbdz");
  out.clear();
  warmup_nvtx::append_utf8(out, nullptr);
  CHECK(out.empty());
}
