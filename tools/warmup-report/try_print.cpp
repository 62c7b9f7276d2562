// `warmup-report try`'s output (try_print.hpp).
#include "try_print.hpp"

#include "remedy_figures.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include <warmup/detail/io/json_writer.hpp>
#include <warmup/detail/io/text.hpp>

namespace try_tool {

namespace {

std::string duration(double ns) { return warmup::detail::format_duration(std::chrono::nanoseconds(std::llround(ns))); }

/// "151 ms [150 ms-153 ms] (5)", or "-" where no run had the figure.
std::string spread_cell(const spread& s) {
  if (s.runs == 0) return "-";
  return duration(s.median) + " [" + duration(s.min) + " - " + duration(s.max) + "] (" + std::to_string(s.runs) + ")";
}

std::string change_cell(const figure_verdict& f) {
  if (f.cold.runs == 0 || f.with.runs == 0 || f.cold.median <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f%%", (f.with.median - f.cold.median) / f.cold.median * 100);
  return buf;
}

std::string site_cell(const figure_verdict& f) {
  return f.site.empty() && f.op.empty() ? "(the program)" : f.op + " \"" + warmup::detail::printable(f.site, 60) + "\"";
}

std::string padded(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string settings_words(const trial& t) {
  std::string out;
  for (const std::string& v : t.kept) out += (out.empty() ? "" : " ") + v + "=<a folder kept between its runs>";
  for (const env_setting& e : t.settings) out += (out.empty() ? "" : " ") + e.name + "=" + e.value;
  return out;
}

const char* kind_words(const trial& t) {
  if (t.user) return "your setting";
  return t.kind == warmup::remedy_kind::cache ? "cache" : "environment";
}

void table(std::string& out, const trial& t, const trial& cold) {
  std::size_t ok = 0, cold_ok = 0;
  for (const run_result& r : t.runs) ok += r.ok;
  for (const run_result& r : cold.runs) cold_ok += r.ok;
  out += "\n" + t.name + " (" + kind_words(t) + ": " + settings_words(t) + "): " + std::to_string(ok) +
         " run(s) against " + std::to_string(cold_ok) + " cold run(s)\n";
  if (!t.why.empty()) out += "  tried because " + t.why + "\n";
  std::vector<std::vector<std::string>> rows{{"site", "figure", "cold: median [min - max] (runs)",
                                              "with it: median [min - max] (runs)", "change", "verdict"}};
  for (const figure_verdict& f : t.verdicts)
    rows.push_back({site_cell(f), f.figure, spread_cell(f.cold), spread_cell(f.with), change_cell(f), std::string(to_words(f.v))});
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < r.size(); ++i) line += " " + (i + 1 < r.size() ? padded(r[i], width[i]) : r[i]);
    out += line + "\n";
  }
}

void code_remedies(std::string& out, const try_outcome& o) {
  if (o.code.empty()) return;
  out += "\nRemedies that need code (not measured on your program)\n";
  for (const warmup::detail::remedy_row* r : o.code) {
    out += "  " + std::string(r->name) + ": " + std::string(r->what) + "\n";
    out += "    " + std::string(r->snippet) + "\n";
    if (const std::string_view measured = measured_on_our_examples(r->id); !measured.empty())
      out += "    on warmup's examples, not on your program: " + std::string(measured) + " (" + std::string(r->source) + ")\n";
    else
      out += "    not measured on warmup's examples (" + std::string(r->source) + ")\n";
  }
}

void cold_means_cold(std::string& out, const try_outcome& o) {
  out += "\nCold means cold\n";
  std::string vars;
  for (const std::string& v : o.fresh_variables) vars += (vars.empty() ? "" : ", ") + v;
  out += "  Made cold before each run: the compile caches (" + vars +
         "), each pointed at a fresh empty folder (a cache remedy keeps its own folders between its runs, "
         "filled by one priming run)";
  out += o.dropped_page_cache ? "; the page cache, dropped (sync; echo 1 > /proc/sys/vm/drop_caches).\n"
                              : ".\n";
  out += "  Not made cold: ";
  for (const std::string& i : o.inherited) out += "your environment's " + i + " (kept in every run, the cold ones too), ";
  if (!o.dropped_page_cache)
    out += "the page cache (the program's libraries and files stay in memory after the first run: "
           "--drop-caches, as root, drops it), ";
  out += "the GPU driver's persistent state (persistence mode, a loaded driver), the CPU's frequency and caches, "
         "and whatever other processes do meanwhile. Runs are interleaved in rounds, so such drift touches "
         "every remedy alike.\n";
}

void json_run(warmup::detail::json_out& j, const run_result& r) {
  j.open('{');
  j.key("round"), j.value(r.round);
  j.key("ok"), j.value(r.ok);
  j.key("status"), j.value(r.status);
  j.key("env"), j.open('[');  // NAME=VALUE, what differs from try's own environment
  for (const env_setting& e : r.env) j.value(e.name + "=" + e.value);
  j.close(']');
  j.key("wall_ns"), j.value(static_cast<long long>(r.wall));
  j.key("sites"), j.open('[');
  for (const site_figures& s : r.sites) {
    j.open('{');
    j.key("op"), j.value(s.op);
    j.key("name"), j.value(s.name);
    j.key("first_call_ns"), j.value(static_cast<long long>(s.first));
    j.key("first_result_ns");
    if (s.first_result) j.value(static_cast<long long>(*s.first_result));
    else j.null();
    j.close('}');
  }
  j.close(']');
  j.close('}');
}

void json_spread(warmup::detail::json_out& j, const spread& s) {
  j.open('{');
  j.key("runs"), j.value(static_cast<std::uint64_t>(s.runs));
  j.key("median_ns"), j.value(s.median);
  j.key("min_ns"), j.value(s.min);
  j.key("max_ns"), j.value(s.max);
  j.close('}');
}

void json_trial(warmup::detail::json_out& j, const trial& t) {
  j.open('{');
  j.key("name"), j.value(t.name);
  j.key("kind"), j.value(std::string_view(t.cold ? "cold" : t.user ? "user" : t.kind == warmup::remedy_kind::cache ? "cache" : "environment"));
  j.key("why"), j.value(t.why);
  j.key("settings"), j.open('[');
  for (const env_setting& e : t.settings) j.value(e.name + "=" + e.value);
  j.close(']');
  j.key("kept_folders"), j.open('[');
  for (const std::string& v : t.kept) j.value(v);
  j.close(']');
  j.key("priming");
  if (t.priming) json_run(j, *t.priming);
  else j.null();
  j.key("runs"), j.open('[');
  for (const run_result& r : t.runs) json_run(j, r);
  j.close(']');
  if (!t.cold) {
    j.key("verdicts"), j.open('[');
    for (const figure_verdict& f : t.verdicts) {
      j.open('{');
      j.key("op"), j.value(f.op);
      j.key("site"), j.value(f.site);
      j.key("figure"), j.value(f.figure);
      j.key("cold"), json_spread(j, f.cold);
      j.key("with"), json_spread(j, f.with);
      j.key("verdict"), j.value(to_words(f.v));
      j.close('}');
    }
    j.close(']');
  }
  j.close('}');
}

}  // namespace

std::string as_text(const try_outcome& o) {
  std::string out;
  for (const trial& t : o.tried) table(out, t, o.cold);
  if (o.tried.empty()) out += "No remedy without code was tried.\n";
  out += "\nA verdict is \"better\" (or \"worse\") only where every run with the remedy was below (above) every cold "
         "run and the medians differ by more than 10% and by more than 50 us; else \"same within noise\".\n";
  code_remedies(out, o);
  cold_means_cold(out, o);
  return out;
}

std::string as_json(const try_outcome& o) {
  warmup::detail::json_out j;
  j.open('{');
  j.key("schema"), j.value(std::string_view("warmup.try/1"));
  j.key("program"), j.open('[');
  for (const std::string& a : o.program) j.value(a);
  j.close(']');
  j.key("rounds"), j.value(o.rounds);
  j.key("diagnosis");
  if (o.diagnosis) json_run(j, *o.diagnosis);
  else j.null();
  j.key("diagnosed_remedies"), j.open('[');
  for (const std::string& n : o.diagnosed) j.value(n);
  j.close(']');
  j.key("cold"), json_trial(j, o.cold);
  j.key("remedies"), j.open('[');
  for (const trial& t : o.tried) json_trial(j, t);
  j.close(']');
  j.key("code_remedies"), j.open('[');
  for (const warmup::detail::remedy_row* r : o.code) {
    j.open('{');
    j.key("name"), j.value(r->name);
    j.key("what"), j.value(r->what);
    j.key("snippet"), j.value(r->snippet);
    j.key("measured_on_warmups_examples"), j.value(measured_on_our_examples(r->id));
    j.key("source"), j.value(r->source);
    j.close('}');
  }
  j.close(']');
  j.key("cold_means_cold"), j.open('{');
  j.key("fresh_folders_per_run"), j.open('[');
  for (const std::string& v : o.fresh_variables) j.value(v);
  j.close(']');
  j.key("page_cache_dropped"), j.value(o.dropped_page_cache);
  j.key("not_made_cold"), j.open('[');
  if (!o.dropped_page_cache) j.value(std::string_view("page cache"));
  for (const char* w : {"GPU driver state", "CPU frequency and caches", "other processes"}) j.value(std::string_view(w));
  j.close(']');
  j.close('}');
  j.close('}');
  j.text += '\n';
  return j.text;
}

}  // namespace try_tool
