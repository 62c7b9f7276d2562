/// @file
/// @brief The report file's calls that report_file.hpp declares,
/// compiled once, with the runtime: only detail/runtime/compiled_once.hpp includes this file.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"
#include "warmup/detail/io/report_destinations.hpp"

WARMUP_BEGIN_NAMESPACE
WARMUP_DETAIL_RUNTIME bool parse_destinations(std::string_view spec, std::vector<report_destination>& out, std::string& error) {
  const auto lower = [](std::string_view v) {
    std::string l(v);
    for (char& c : l) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    return l;
  };
  const auto say = [&](std::string text) { error += (error.empty() ? "" : "; ") + std::move(text); };
  bool ok = true;
  const std::size_t before = out.size();
  const std::string_view whole = spec;
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    if (item == "stdout" || item == "stderr") {
      out.push_back({std::string(item), report_format::table});
      continue;
    }
    const report_format_info* found = nullptr;
    std::string_view target = item;
    if (const std::size_t colon = item.rfind(':'); colon != std::string_view::npos && colon > 0) {
      for (const report_format_info& f : report_formats)
        if (lower(item.substr(colon + 1)) == f.name) found = &f, target = item.substr(0, colon);
    }
    if (found == nullptr) found = detail::format_for_path(item);
    if (found != nullptr) {
      if (const std::string why = detail::placeholder_error(target); !why.empty()) {
        say(why);
        ok = false;
        continue;
      }
      out.push_back({std::string(target), found->format});
      continue;
    }
    std::string names;
    for (const report_format_info& f : report_formats) names += (names.empty() ? ":" : ", :") + std::string(f.name);
    say("'" + detail::printable(item, 200) + "' is neither stdout, stderr, a path ending in " + detail::format_extensions() +
        ", nor a path followed by " + names);
    ok = false;
  }
  if (ok && out.size() == before) {
    say("'" + detail::printable(whole, 200) + "' names no destination");
    ok = false;
  }
  return ok;
}

WARMUP_DETAIL_RUNTIME std::string write_file_atomically(const std::string& path, const std::string& text) {
  return detail::write_target(path, detail::target_of(path), text);
}

WARMUP_DETAIL_RUNTIME bool write_report(const report& r, std::string_view spec) noexcept {
#if WARMUP_ENABLED
  const std::int64_t started_ms = detail::once().start_wall_ms.load(std::memory_order_relaxed);
#else
  const std::int64_t started_ms = -1;  // no run to keep apart: the path is replaced
#endif
  return detail::write_report_to(r, spec, false, detail::spec_errors::say, started_ms);
}

WARMUP_DETAIL_RUNTIME bool write_report_at_exit_now() noexcept {
#if WARMUP_ENABLED
  const detail::cuda_state& st = detail::cuda();
  if (st.runtime.load(std::memory_order_acquire) == detail::cuda_state::available &&
      !st.closed.load(std::memory_order_acquire))
    detail::read_back_before_teardown();  // as at exit: the device's times, while CUDA lives
  return detail::write_exit_report();  // compiled_once.hpp: once, as the exit handler does
#else
  return false;  // nothing measured to write
#endif
}
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
