// warmup-report: reads the JSON reports warmup writes. `merge` puts many ranks' reports
// together; `compare` gates a change on two runs; `show` prints one report as a table, or
// writes it again as a picture, a timeline, CSV or JSON.
// Built with WARMUP_DISABLE: the tool measures nothing and never writes a report of its own,
// whatever WARMUP_* variables its environment carries.
#include <warmup/compare.hpp>
#include <warmup/compare_formats.hpp>
#include <warmup/merge.hpp>
#include <warmup/merge_formats.hpp>
#include <warmup/print.hpp>
#include <warmup/read.hpp>
#include <warmup/report_file.hpp>

#include "advise.hpp"
#include "run.hpp"
#include "try.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr int exit_ok = 0, exit_regressed = 1, exit_error = 2;

const char* const usage_text =
    "usage: warmup-report merge [-o FILE]... REPORT_OR_DIR...\n"
    "       warmup-report compare [--threshold 10%] [--floor 1us] [--first-floor 50us] [-o FILE]... BASE NEW\n"
    "       warmup-report show [-o FILE]... REPORT\n"
    "       warmup-report run [-o REPORT] -- PROGRAM [ARGS...]\n"
    "       warmup-report advise REPORT\n"
    "       warmup-report try [--runs N] [--remedy NAME]... [--all] [--env NAME=VALUE]... [--drop-caches]\n"
    "                         [-o FILE.json|FILE.txt]... -- PROGRAM [ARGS...]\n"
    "\n"
    "merge    many ranks' JSON reports (warmup.report/3 or /2, or merged reports: merges of merges)\n"
    "         as one: per site, first call, steady p50 and warm-up excess as min / median / max\n"
    "         over ranks, with the slowest rank. A directory stands for its *.json files.\n"
    "compare  two runs (reports or merged reports), per site: first call, warm-up excess and\n"
    "         steady p50, each faster / slower / same. Exit status 1 when a site got slower\n"
    "         beyond the threshold (default 10%) and the floor (default 1us for p50s, 50us for\n"
    "         first calls and warm-up excesses, one sample each); where both runs have a p50's\n"
    "         95% confidence interval, the intervals must also be apart. Above the verdicts:\n"
    "         what changed between the runs (GPU, driver, runtime, module loading, JIT cache,\n"
    "         attribution, CPU sampling, library version).\n"
    "show     one report (or merged report) as a table, or with -o in the formats WARMUP_REPORT\n"
    "         writes at exit: .txt, .json, .csv, .trace.json (one report only), .svg.\n"
    "run      PROGRAM under warmup's NVTX tool: each of its NVTX ranges is measured as a site,\n"
    "         with no rebuild (NVTX_INJECTION64_PATH; an NVTX tool named there already gets every\n"
    "         call through WARMUP_NVTX_NEXT). -o REPORT sets WARMUP_REPORT (default: stderr).\n"
    "         Exits as PROGRAM does (a signal that ends it ends this too); 127 where it cannot\n"
    "         be found. Afterwards says which of its processes wrote no report, and why.\n"
    "advise   the remedies for each slow first call of REPORT (written with WARMUP_ATTRIBUTION=1),\n"
    "         largest saving first: what each moves, how to apply it, what it did on warmup's\n"
    "         examples. docs/remedies.md has the table.\n"
    "try      PROGRAM (which writes a warmup report) run cold, then with each remedy that needs no\n"
    "         code change (a diagnosis run with WARMUP_ATTRIBUTION=1 picks them; --all: every one;\n"
    "         --remedy NAME: one more; --env NAME=VALUE: a setting of your own), --runs N times each\n"
    "         (default 5, at least 3), interleaved in rounds. Per remedy and site: the first call and\n"
    "         the time to the first result, cold against with it, better / worse / same within noise;\n"
    "         the remedies that need code, with their snippets and warmup's own figures. Cold runs get\n"
    "         fresh compile-cache folders each; --drop-caches (root) drops the page cache before each\n"
    "         run. -o FILE.json: the runs and verdicts as JSON (warmup.try/1). Exit status 2 where\n"
    "         every cold run failed; 127 where PROGRAM cannot be found. docs/try.md.\n"
    "\n"
    "-o FILE  writes the result to FILE, in the format its extension names, in any case (.txt,\n"
    "         .json, .csv, .svg for merge; .txt, .json for compare); an extension of a format the\n"
    "         result is not written in is refused; any other name: the table (show refuses it);\n"
    "         '-' is the table on standard output. Without -o, the table goes to standard output.\n"
    "Inputs are regular files (or, for merge, directories of them): a FIFO or a device is\n"
    "refused at once, never waited on.\n"
    "Exit status: 0 done (no regression), 1 regression (compare), 2 bad usage or input; a merge\n"
    "with unreadable inputs still merges the rest, says which were left out, and exits 2.\n";

int usage_error(const std::string& why) {
  std::cerr << "warmup-report: " << why << "\n\n" << usage_text;
  return exit_error;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// The format each of `outputs` is written in, for a document of kind `k`, by the library's one
/// rule (`format_for_path`: the extension, in any case): '-' and a name without a format's
/// extension the table; empty, said with the usage, where an extension names a format that
/// kind is not written in. Asked before anything is written: a refused -o writes nothing.
std::optional<std::vector<warmup::report_format>> output_formats(const std::vector<std::string>& outputs,
                                                                 warmup::document_kind k, const char* command) {
  std::vector<warmup::report_format> formats;
  for (const std::string& o : outputs) {
    std::string why;
    const warmup::report_format_info* f = o == "-" ? nullptr : warmup::detail::format_for_path(o, k, why);
    if (!why.empty()) {
      usage_error(std::string(command) + " -o " + warmup::detail::printable(o, 200) + ": " + why);
      return std::nullopt;
    }
    formats.push_back(f != nullptr ? f->format : warmup::report_format::table);
  }
  return formats;
}

/// Writes `text` to `path` ("-": standard output) without ever leaving a half-written file.
bool write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return bool(std::cout);
  }
  const std::string error = warmup::write_file_atomically(path, text);
  if (!error.empty()) std::cerr << "warmup-report: " << error << '\n';
  return error.empty();
}

/// The inputs a merge names: files as given, directories as their *.json files in name order.
bool expand_inputs(const std::vector<std::string>& args, std::vector<std::string>& files) {
  bool ok = true;
  for (const std::string& a : args) {
    struct stat st {};
    if (::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* dir = ::opendir(a.c_str());
      if (dir == nullptr) {
        std::cerr << "warmup-report: " << a << ": cannot read the directory\n";
        ok = false;
        continue;
      }
      std::vector<std::string> found;
      while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        // Its *.json files, in any case (a .trace.json among them, refused as no report when read).
        const warmup::report_format_info* f = warmup::detail::format_for_path(name);
        if (name[0] == '.' || f == nullptr || (f->format != warmup::report_format::json && f->format != warmup::report_format::trace))
          continue;
        const std::string path = a + (ends_with(a, "/") ? "" : "/") + name;
        // A FIFO or device planted among the reports would block the merge: regular files only.
        struct stat entry {};
        if (::stat(path.c_str(), &entry) != 0 || !S_ISREG(entry.st_mode)) {
          std::cerr << "warmup-report: " << path << ": not a regular file; left out\n";
          ok = false;
          continue;
        }
        found.push_back(path);
      }
      ::closedir(dir);
      std::sort(found.begin(), found.end());
      if (found.empty()) std::cerr << "warmup-report: " << a << ": no .json file in the directory\n", ok = false;
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(a);
    }
  }
  return ok;
}

/// Either kind of document, read from a file.
struct document {
  std::optional<warmup::report> one;
  std::optional<warmup::merged_report> merged;
};

std::optional<document> read_document(const std::string& path, std::string& error) {
  const std::optional<std::string> text = warmup::read_text_file(path, error);
  if (!text) return std::nullopt;
  document d;
  std::string why;
  if ((d.one = warmup::read_report(*text, why))) return d;
  std::string why_merged;
  if (why.find("a \"warmup.merged/") != std::string::npos && (d.merged = warmup::read_merged(*text, why_merged))) return d;
  error = path + ": " + (why_merged.empty() ? why : why_merged);
  return std::nullopt;
}

/// A merged report's ranks as summaries again, so that merges can be merged (a tree of them).
void unmerge(warmup::merged_report& m, const std::string& path, std::vector<warmup::rank_summary>& out) {
  std::vector<warmup::rank_summary> ranks(m.ranks.size());
  std::unordered_map<int, std::size_t> slot;  // rank -> its summary: a merge of 10^4 ranks stays linear
  for (std::size_t i = 0; i < m.ranks.size(); ++i) {
    slot.emplace(m.ranks[i].rank, i);
    warmup::merged_rank& r = m.ranks[i];
    ranks[i] = {r.rank, std::move(r.host), r.pid, std::move(r.device), std::move(r.uuid), std::move(r.started),
                std::move(r.library_version), r.source.empty() ? path : path + ": " + r.source, {}};
  }
  for (const warmup::merged_site& s : m.sites)
    for (const warmup::rank_figures& f : s.per_rank) {
      const auto it = slot.find(f.rank);
      if (it == slot.end()) continue;  // a rank the document does not list: nobody to give it to
      warmup::site_summary& back = ranks[it->second].sites.emplace_back();
      static_cast<warmup::site_figures&>(back) = f;
      back.name = s.name, back.op = s.op;
    }
  for (auto& r : ranks) out.push_back(std::move(r));
}

int merge_command(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  if (inputs.empty()) return usage_error("merge needs at least one report");
  const auto formats = output_formats(outputs, warmup::document_kind::merged, "merge");
  if (!formats) return exit_error;
  std::vector<std::string> files;
  bool all_read = expand_inputs(inputs, files);
  std::vector<warmup::rank_summary> summaries;
  summaries.reserve(files.size());
  std::vector<std::string> left_out;
  for (const std::string& f : files) {
    std::string error;
    std::optional<document> d = read_document(f, error);
    if (!d) {
      std::cerr << "warmup-report: " << error << '\n';
      left_out.push_back(f);
      continue;
    }
    if (d->one) summaries.push_back(warmup::summarize(*d->one, f));
    else unmerge(*d->merged, f, summaries);
  }
  if (summaries.empty()) {
    std::cerr << "warmup-report: no report could be read; nothing merged\n";
    return exit_error;
  }
  warmup::merged_report m = warmup::merge(std::move(summaries));
  if (!left_out.empty()) {
    all_read = false;
    m.notices.push_back(std::to_string(left_out.size()) + " input(s) left out, unreadable: " +
                        warmup::detail::printable(left_out.front(), 120) + (left_out.size() > 1 ? " and others" : ""));
  }
  bool written = true;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    written = write_output(outputs[i], *warmup::detail::format_document(m, (*formats)[i])) && written;
  if (outputs.empty()) warmup::print(m, std::cout);
  return all_read && written ? exit_ok : exit_error;
}

std::optional<warmup::compare_input> compare_input_of(const std::string& path) {
  std::string error;
  std::optional<document> d = read_document(path, error);
  if (!d) {
    std::cerr << "warmup-report: " << error << '\n';
    return std::nullopt;
  }
  return d->one ? warmup::compare_view(*d->one) : warmup::compare_view(*d->merged);
}

/// "10%" or "0.1" (a fraction); a bare number of 1 or more is refused as ambiguous.
bool parse_threshold(const std::string& s, double& out) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  const bool percent = end != nullptr && std::string(end) == "%";
  if (end == s.c_str() || (!percent && *end != '\0') || !std::isfinite(v) || v < 0) return false;
  if (percent) v /= 100;
  else if (v >= 1) return false;
  out = v;
  return true;
}

/// "500ns", "2us", "1.5ms", "0": a duration of at least zero.
bool parse_floor(const std::string& s, std::chrono::nanoseconds& out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return false;
  const std::string unit = end;
  double scale = 0;
  if (unit == "ns" || (unit.empty() && v == 0)) scale = 1;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else return false;
  if (v * scale > 3.6e12) return false;  // more than an hour is no floor
  out = std::chrono::nanoseconds{static_cast<long long>(std::llround(v * scale))};
  return true;
}

int compare_command(const std::vector<std::string>& outputs, const std::vector<std::string>& args,
                    const warmup::compare_options& o) {
  if (args.size() != 2) return usage_error("compare needs two reports: BASE NEW");
  const auto formats = output_formats(outputs, warmup::document_kind::comparison, "compare");
  if (!formats) return exit_error;
  const std::optional<warmup::compare_input> base = compare_input_of(args[0]), now = compare_input_of(args[1]);
  if (!base || !now) return exit_error;
  const warmup::comparison c = warmup::compare(*base, *now, o);
  bool written = true;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    written = write_output(outputs[i], *warmup::detail::format_document(c, (*formats)[i])) && written;
  if (outputs.empty()) warmup::print(c, std::cout);
  if (!written) return exit_error;
  return c.regressed ? exit_regressed : exit_ok;
}

/// `advise REPORT`: one process's report read as show reads it (a merged one keeps no causes).
int advise_command(const std::vector<std::string>& args) {
  if (args.size() != 1 || (!args[0].empty() && args[0][0] == '-' && args[0] != "-"))
    return usage_error("advise needs one report: warmup-report advise REPORT.json");
  std::string error;
  const std::optional<document> doc = read_document(args[0], error);
  if (!doc) return std::cerr << "warmup-report: " << error << '\n', exit_error;
  if (doc->merged)
    return std::cerr << "warmup-report: " << args[0]
                     << ": a merged report keeps no causes; advise reads one process's report (each rank's own)\n",
           exit_error;
  advise(*doc->one, args[0]);
  return exit_ok;
}

/// One report written again in the formats `WARMUP_REPORT` would have written at exit, by the
/// same writers (a merged report: its own four); without -o, the table on standard output.
int show_command(const std::vector<std::string>& outputs, const std::vector<std::string>& args) {
  namespace d = warmup::detail;
  if (args.size() != 1) return usage_error("show needs one report");
  // Every output's format before anything is read or written: a misnamed one writes nothing.
  for (const std::string& o : outputs)
    if (o != "-" && d::format_for_path(o) == nullptr)
      return usage_error("show -o " + d::printable(o, 200) + ": the file name must end in " + d::format_extensions() +
                         " (the format it is written in), or be '-' for the table on standard output");
  std::string error;
  const std::optional<document> doc = read_document(args[0], error);
  if (!doc) {
    std::cerr << "warmup-report: " << error << '\n';
    return exit_error;
  }
  const auto formats = output_formats(outputs, doc->merged ? warmup::document_kind::merged : warmup::document_kind::report, "show");
  if (!formats) return exit_error;
  if (doc->one && !doc->one->call_times_recorded) {
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (const warmup::report_format f = (*formats)[i]; f == warmup::report_format::svg || f == warmup::report_format::trace)
        std::cerr << "warmup-report: " << args[0] << " is a warmup.report/2 report, which holds no call times: "
                  << d::printable(outputs[i], 200) << " has the sites without their calls, and says so\n";
  }
  bool written = true;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string text = doc->merged ? *d::format_document(*doc->merged, (*formats)[i])
                                         : *d::format_document(*doc->one, (*formats)[i]);
    written = write_output(outputs[i], text) && written;
  }
  if (outputs.empty()) {
    if (doc->one) warmup::print(*doc->one, std::cout);
    else warmup::print(*doc->merged, std::cout);
  }
  return written ? exit_ok : exit_error;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("no command");
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") return std::cout << usage_text, exit_ok;
  if (command == "--version") return std::cout << "warmup-report " << WARMUP_VERSION_STRING << '\n', exit_ok;
  if (command == "run") return run_command({args.begin() + 1, args.end()}, usage_text);
  if (command == "advise") return advise_command({args.begin() + 1, args.end()});
  if (command == "try") return try_command({args.begin() + 1, args.end()}, usage_text);
  std::vector<std::string> outputs, rest;
  warmup::compare_options options;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* what) -> const std::string* {
      if (i + 1 < args.size()) return &args[++i];
      usage_error(std::string(a) + " needs " + what);
      return nullptr;
    };
    if (a == "-o" || a == "--output") {
      const std::string* v = value("a file name");
      if (v == nullptr) return exit_error;
      outputs.push_back(*v);
    } else if (a == "--threshold" && command == "compare") {
      const std::string* v = value("a value such as 10%");
      if (v == nullptr) return exit_error;
      if (!parse_threshold(*v, options.threshold))
        return usage_error("--threshold takes a percentage (10%) or a fraction below 1 (0.1), not \"" + *v + "\"");
    } else if (a == "--floor" && command == "compare") {
      const std::string* v = value("a duration such as 1us");
      if (v == nullptr) return exit_error;
      if (!parse_floor(*v, options.floor))
        return usage_error("--floor takes a duration with its unit (500ns, 2us, 1ms, 0), not \"" + *v + "\"");
    } else if (a == "--first-floor" && command == "compare") {
      const std::string* v = value("a duration such as 50us");
      if (v == nullptr) return exit_error;
      if (!parse_floor(*v, options.first_floor))
        return usage_error("--first-floor takes a duration with its unit (500ns, 2us, 1ms, 0), not \"" + *v + "\"");
    } else if (a == "--") {
      rest.insert(rest.end(), args.begin() + std::ptrdiff_t(i) + 1, args.end());
      break;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option " + a + " for " + command);
    } else {
      rest.push_back(a);
    }
  }
  if (command == "merge") return merge_command(outputs, rest);
  if (command == "compare") return compare_command(outputs, rest, options);
  if (command == "show") return show_command(outputs, rest);
  return usage_error("unknown command \"" + command + "\"");
}
