/// @file
/// @brief The remedies of a cold call in words: a line each under the report's causes
/// (`warmup-report advise` prints the longer form: tools/warmup-report/remedy_figures.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "warmup/config.hpp"
#include "warmup/detail/io/text.hpp"
#include "warmup/remedy.hpp"
#include "warmup/report.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// The row of the remedy named `name`, or none (a report from a newer version).
inline const remedy_row* remedy_row_named(std::string_view name) noexcept {
  const std::optional<remedy> r = remedy_named(name);
  return r ? &remedy_table[static_cast<std::size_t>(*r)] : nullptr;
}

/// A setting's words (setting_words) that are NAME=VALUE pairs (`pairs`), or that are not (a
/// cache row's folder variables), joined with `between`.
inline std::string joined_setting_words(std::string_view setting, bool pairs, std::string_view between) {
  std::string out;
  for (std::string_view word : setting_words(setting))
    if ((word.find('=') != std::string_view::npos) == pairs) out += (out.empty() ? "" : std::string(between)) + std::string(word);
  return out;
}

/// How a remedy is applied, in a few words: its settings, the folders it keeps, or "code".
inline std::string remedy_how(const remedy_row& r) {
  switch (r.kind) {
    case remedy_kind::environment: return std::string(r.setting);
    case remedy_kind::cache: return "folders kept: " + joined_setting_words(r.setting, false, ", ");
    case remedy_kind::code: return "code";
  }
  return "code";
}

/// Under a cold call's causes: the remedies they support, a line each, largest saving first;
/// past `shown`, how many more (advise lists them all).
///     remedies, by what they could save on this call (warmup-report advise: how):
///         until_steady          up to 120 ms  call it until it is steady before the real work (code)
///         module_loading_eager  up to 80.1 ms load every module when the context is made (CUDA_MODULE_LOADING=EAGER)
inline std::vector<std::string> remedy_lines(const attribution& a, std::size_t shown = 4) {
  std::vector<std::string> out;
  if (a.remedies.empty()) return out;
  out.push_back("    remedies, by what they could save on this call (warmup-report advise: how):");
  std::size_t name_w = 0, save_w = 0;
  for (const remedy_saving& r : a.remedies)
    name_w = std::max(name_w, r.remedy.size()), save_w = std::max(save_w, format_duration(r.could_save).size());
  for (std::size_t i = 0; i < a.remedies.size() && i < shown; ++i) {
    const remedy_saving& s = a.remedies[i];
    const remedy_row* row = remedy_row_named(s.remedy);
    std::string line = "        " + printable(s.remedy, 40) + std::string(name_w > s.remedy.size() ? name_w - s.remedy.size() : 0, ' ') +
                       "  up to " + format_duration(s.could_save) +
                       std::string(save_w - std::min(save_w, format_duration(s.could_save).size()), ' ');
    if (row != nullptr) line += "  " + std::string(row->what) + " (" + remedy_how(*row) + ")";
    out.push_back(std::move(line));
  }
  if (a.remedies.size() > shown) out.push_back("        " + std::to_string(a.remedies.size() - shown) + " more");
  return out;
}

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
