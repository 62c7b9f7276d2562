// `warmup-report try` (try.hpp): the options, the remedies chosen (a diagnosis run's causes,
// --all, --remedy, --env), the runs in rounds, the verdicts and the output.
#include "try.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <warmup/cause.hpp>
#include <warmup/remedy.hpp>
#include <warmup/report_file.hpp>

#include "child.hpp"
#include "try_compare.hpp"
#include "try_print.hpp"
#include "try_runs.hpp"

namespace {

using namespace try_tool;
namespace wd = warmup::detail;

constexpr int exit_ok = 0, exit_error = 2;

/// What the command line asked for.
struct try_options {
  int rounds = 5;
  std::vector<std::string> remedies;  ///< --remedy
  std::vector<env_setting> env;       ///< --env
  bool all = false, drop_caches = false;
  std::vector<std::string> outputs;  ///< -o
  std::vector<std::string> program;
};

const char* const try_usage =
    "usage: warmup-report try [--runs N] [--remedy NAME]... [--all] [--env NAME=VALUE]... [--drop-caches]\n"
    "                         [-o FILE.json|FILE.txt]... -- PROGRAM [ARGS...]\n";

int bad_usage(const std::string& why, const char* usage) {
  std::cerr << "warmup-report: try: " << why << "\n\n" << try_usage << '\n' << usage;
  return exit_error;
}

bool valid_name(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (const char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string remedy_names() {
  std::string out;
  for (const wd::remedy_row& r : wd::remedy_table)
    out += (out.empty() ? "" : ", ") + std::string(r.name) + (r.kind == warmup::remedy_kind::code ? " (code)" : "");
  return out;
}

bool has_extension(const std::string& path, std::string_view ext) {
  if (path.size() < ext.size()) return false;
  for (std::size_t i = 0; i < ext.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
  return true;
}

/// The command line read into `o`; false where it is refused (said, with the usage).
bool parse(const std::vector<std::string>& args, try_options& o, const char* usage) {
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* what) -> const std::string* {
      if (i + 1 < args.size() && args[i + 1] != "--") return &args[++i];
      bad_usage(a + " needs " + what, usage);
      return nullptr;
    };
    if (a == "--") {
      ++i;
      break;
    } else if (a == "--runs") {
      const std::string* v = value("a number of runs (3 or more)");
      if (v == nullptr) return false;
      char* end = nullptr;
      const long n = std::strtol(v->c_str(), &end, 10);
      if (v->empty() || *end != '\0' || n < 3 || n > 1000) {
        bad_usage("--runs takes a whole number from 3 to 1000 (fewer cannot tell a remedy from noise), not \"" +
                      wd::printable(*v, 40) + "\"",
                  usage);
        return false;
      }
      o.rounds = int(n);
    } else if (a == "--remedy") {
      const std::string* v = value("a remedy's name");
      if (v == nullptr) return false;
      if (!warmup::remedy_named(*v)) {
        bad_usage("no remedy is named \"" + wd::printable(*v, 60) + "\"; the remedies: " + remedy_names(), usage);
        return false;
      }
      o.remedies.push_back(*v);
    } else if (a == "--env") {
      const std::string* v = value("NAME=VALUE");
      if (v == nullptr) return false;
      const std::size_t eq = v->find('=');
      if (eq == std::string::npos || !valid_name(v->substr(0, eq))) {
        bad_usage("--env takes NAME=VALUE (a variable's name, '=', its value), not \"" + wd::printable(*v, 60) + "\"", usage);
        return false;
      }
      o.env.push_back({v->substr(0, eq), v->substr(eq + 1)});
    } else if (a == "--all") {
      o.all = true;
    } else if (a == "--drop-caches") {
      o.drop_caches = true;
    } else if (a == "-o" || a == "--output") {
      const std::string* v = value("a file name ending in .json or .txt");
      if (v == nullptr) return false;
      if (!has_extension(*v, ".json") && !has_extension(*v, ".txt")) {
        bad_usage("-o " + wd::printable(*v, 200) + ": the file name must end in .json or .txt (the format it is written in)", usage);
        return false;
      }
      o.outputs.push_back(*v);
    } else if (a.size() > 1 && a[0] == '-') {
      bad_usage("unknown option " + wd::printable(a, 60), usage);
      return false;
    } else {
      break;
    }
  }
  o.program.assign(args.begin() + std::ptrdiff_t(std::min(i, args.size())), args.end());
  if (o.program.empty()) {
    bad_usage("needs a program: warmup-report try [options] -- PROGRAM [ARGS...]", usage);
    return false;
  }
  return true;
}

/// A table row as a trial: its settings split, its cache folders kept.
trial trial_of(const wd::remedy_row& r, std::string why) {
  trial t;
  t.name = std::string(r.name);
  t.kind = r.kind;
  std::vector<std::string> vars;
  split_setting(r.setting, vars, t.settings);
  if (r.kind == warmup::remedy_kind::cache) t.kept = vars;
  t.why = std::move(why);
  return t;
}

/// Adds `t`, or where a trial of its name is there already, its reason to that one's.
void add_trial(std::vector<trial>& tried, trial t) {
  for (trial& o : tried)
    if (o.name == t.name) {
      o.why += "; " + t.why;
      return;
    }
  tried.push_back(std::move(t));
}

void add_code(std::vector<const wd::remedy_row*>& code, const wd::remedy_row& r) {
  for (const wd::remedy_row* c : code)
    if (c == &r) return;
  code.push_back(&r);
}

/// The diagnosis run's remedies, each with why: the sites whose first call's causes it applies to.
void diagnosed(const warmup::report& r, try_outcome& o) {
  for (const warmup::site_report& s : r.sites) {
    if (!s.host.first_call_causes) continue;
    for (const warmup::remedy_saving& saving : s.host.first_call_causes->remedies) {
      const std::optional<warmup::remedy> id = warmup::remedy_named(saving.remedy);
      if (!id) continue;
      const wd::remedy_row& row = wd::remedy_table[static_cast<std::size_t>(*id)];
      if (std::find(o.diagnosed.begin(), o.diagnosed.end(), saving.remedy) == o.diagnosed.end())
        o.diagnosed.push_back(saving.remedy);
      if (row.kind == warmup::remedy_kind::code) {
        add_code(o.code, row);
        continue;
      }
      std::string causes;
      for (const warmup::cause_time& c : s.host.first_call_causes->causes)
        if (wd::applies(row, c))
          causes += (causes.empty() ? "" : ", ") + std::string(warmup::to_string(c.what)) +
                    (c.where.empty() ? "" : " (" + wd::printable(c.where, 40) + ")") + " " + wd::format_duration(c.time);
      add_trial(o.tried, trial_of(row, "the diagnosis run's first call of " + std::string(warmup::to_string(s.op)) + " \"" +
                                           wd::printable(s.name, 60) + "\" showed " + causes + " (it could save " +
                                           wd::format_duration(saving.could_save) + ")"));
    }
  }
}

/// The environment of one run: each cache variable a trial does not keep pointed at a fresh
/// empty folder under `folder`, its kept ones at `kept` (a folder per variable), its settings, and
/// the report's path.
std::vector<env_setting> environment(const trial& t, const std::vector<std::string>& cache_vars, const std::string& folder,
                                     const std::string& kept, const std::string& report) {
  std::vector<env_setting> env;
  make_folder(folder);
  for (const std::string& v : cache_vars) {
    const bool keep = std::find(t.kept.begin(), t.kept.end(), v) != t.kept.end();
    const std::string path = (keep ? kept : folder) + "/" + v;
    make_folder(path);
    env.push_back({v, path});
  }
  for (const env_setting& s : t.settings) env.push_back(s);
  env.push_back({"WARMUP_REPORT", report});
  return env;
}

/// Whether a run's end says the user stopped try (a signal a terminal or a job scheduler sends).
bool interrupted(const run_result& r) {
  if (!WIFSIGNALED(r.wait_status)) return false;
  const int sig = WTERMSIG(r.wait_status);
  return sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
}

/// Runs and measurement, in a private folder removed at the end.
class session {
 public:
  session(try_outcome& o, std::string work) : o_(o), work_(std::move(work)) {}
  ~session() { clean(); }
  /// The folder removed (before try ends by a signal, which runs no destructor).
  void clean() {
    remove_tree(work_);
    work_.clear();
  }
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  /// One run of trial `t` (`index`: its place, for folder names); 0, or the errno of a failed start.
  int run(const trial& t, std::size_t index, int round, run_result& out, warmup::report* whole = nullptr) {
    const std::string id = std::to_string(++count_);
    const std::string folder = work_ + "/run-" + id, kept = work_ + "/kept-" + std::to_string(index);
    make_folder(kept);
    const std::vector<env_setting> env = environment(t, o_.fresh_variables, folder, kept, work_ + "/run-" + id + ".json");
    out.round = round;
    const int e = run_once(o_.program, env, work_ + "/run-" + id + ".json", out, whole);
    remove_tree(folder);  // a compile cache can be large: gone as soon as its run is
    return e;
  }

 private:
  try_outcome& o_;
  std::string work_;
  int count_ = 0;
};

int cannot_start(const std::string& program, int e) {
  std::cerr << "warmup-report: try: cannot start " << wd::printable(program, 200) << ": " << std::strerror(e) << "\n";
  return e == ENOENT ? 127 : 126;  // as a shell says it
}

std::string seconds(std::int64_t ns) { return wd::format_duration(std::chrono::nanoseconds(ns)); }

/// Where a run failed, the last lines of its output (try keeps the program's output apart from its
/// own, in a file a run), indented under the line that said so; else "".
std::string output_of(const run_result& r) {
  if (r.ok || r.output_tail.empty()) return {};
  std::string out = "    its output ended with:\n";
  for (std::size_t at = 0; at <= r.output_tail.size();) {
    const std::size_t nl = std::min(r.output_tail.find('\n', at), r.output_tail.size());
    out += "      " + r.output_tail.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return out;
}

}  // namespace

int try_command(const std::vector<std::string>& args, const char* usage) {
  try_options opt;
  if (!parse(args, opt, usage)) return exit_error;
  try_outcome o;
  o.program = opt.program;
  o.rounds = opt.rounds;
  o.fresh_variables = cache_variables();
  o.cold.name = "cold";
  o.cold.cold = true;
  o.dropped_page_cache = opt.drop_caches;
  if (std::string why; opt.drop_caches && !can_drop_page_cache(why)) return bad_usage("--drop-caches: " + why, usage);
  const char* prefix = "warmup-report: try: ";
  for (const std::string& name : opt.remedies) {
    const wd::remedy_row& row = wd::remedy_table[static_cast<std::size_t>(*warmup::remedy_named(name))];
    if (row.kind == warmup::remedy_kind::code) {
      std::cout << name << " needs a change to the program, which try cannot make; not run. The change:\n    "
                << row.snippet << "\n";
      add_code(o.code, row);
    }
  }
  const std::string work = make_private_folder("warmup-try-");
  if (work.empty()) return std::cerr << prefix << "cannot make a private folder in $TMPDIR or /tmp\n", exit_error;
  session runs(o, work);
  if (const char* r = std::getenv("WARMUP_REPORT"); r != nullptr && *r != '\0')
    std::cerr << prefix << "your WARMUP_REPORT (" << wd::printable(r, 120)
              << ") is replaced for the runs: each run writes its report into try's own folder\n";
  for (const std::string& v : o.fresh_variables)
    if (const char* value = std::getenv(v.c_str()); value != nullptr && *value != '\0')
      std::cerr << prefix << "your " << v << " (" << wd::printable(value, 120)
                << ") is not used: every run gets a fresh folder there (a cache remedy, folders of its own)\n";
  for (const wd::remedy_row& r : wd::remedy_table) {
    if (r.kind != warmup::remedy_kind::environment) continue;
    std::vector<std::string> vars;
    std::vector<env_setting> pairs;
    split_setting(r.setting, vars, pairs);
    for (const env_setting& p : pairs)
      if (const char* v = std::getenv(p.name.c_str()); v != nullptr) o.inherited.push_back(p.name + "=" + v);
  }

  // The diagnosis: one cold run with attribution, whose first calls' causes pick the remedies.
  {
    trial diagnosis = o.cold;
    diagnosis.settings.push_back({"WARMUP_ATTRIBUTION", "1"});
    // CPU samples name host and Python code by object (cuBLAS's, Inductor's): the evidence the
    // remedies of those objects need. A sampling interval of the user's own is kept.
    if (const char* v = std::getenv("WARMUP_CPU_SAMPLING"); v == nullptr || *v == '\0')
      diagnosis.settings.push_back({"WARMUP_CPU_SAMPLING", "on"});
    run_result d;
    warmup::report r;
    if (const int e = runs.run(diagnosis, 0, 0, d, &r); e != 0) return cannot_start(o.program[0], e);
    std::cerr << prefix << "diagnosis run (cold, WARMUP_ATTRIBUTION=1 and CPU sampling; not measured): " << d.status << "\n"
              << output_of(d);
    if (interrupted(d)) return runs.clean(), exit_as(d.wait_status);
    if (d.ok) diagnosed(r, o);
    o.diagnosis = std::move(d);
  }
  if (o.diagnosed.empty() && o.diagnosis && o.diagnosis->ok)
    std::cerr << prefix << "the diagnosis run's first calls show no cause a remedy applies to (attribution names "
                 "causes from CUPTI's records: a program that makes no CUDA call, or a machine without a GPU, has none)\n";
  if (opt.all)
    for (const wd::remedy_row& r : wd::remedy_table)
      if (r.kind != warmup::remedy_kind::code) add_trial(o.tried, trial_of(r, "--all"));
  for (const std::string& name : opt.remedies) {
    const wd::remedy_row& row = wd::remedy_table[static_cast<std::size_t>(*warmup::remedy_named(name))];
    if (row.kind != warmup::remedy_kind::code) add_trial(o.tried, trial_of(row, "named with --remedy"));
  }
  for (const env_setting& e : opt.env) {
    trial t;
    t.name = "env " + e.name + "=" + e.value;
    t.user = true;
    t.settings.push_back(e);
    t.why = "named with --env";
    add_trial(o.tried, std::move(t));
  }
  if (o.tried.empty()) {
    std::cerr << prefix << "no remedy without code to try (--all tries every one, --remedy NAME one, --env NAME=VALUE "
                           "a setting of your own)\n";
    std::cout << as_text(o);
    return exit_ok;
  }
  for (const trial& t : o.tried) std::cerr << prefix << "trying " << t.name << ": " << t.why << "\n";

  // Cache remedies: their folders filled once, then kept.
  for (std::size_t k = 0; k < o.tried.size(); ++k) {
    trial& t = o.tried[k];
    if (t.kept.empty()) continue;
    run_result p;
    if (const int e = runs.run(t, k + 1, 0, p); e != 0) return cannot_start(o.program[0], e);
    std::cerr << prefix << t.name << ": priming run, which fills its folders (not measured): " << p.status << "\n"
              << output_of(p);
    if (interrupted(p)) return runs.clean(), exit_as(p.wait_status);
    t.priming = std::move(p);
  }

  // The rounds: cold, each remedy, then again, so that drift touches all alike.
  for (int round = 1; round <= o.rounds; ++round) {
    std::string line = "round " + std::to_string(round) + "/" + std::to_string(o.rounds) + ":", failed;
    for (std::size_t k = 0; k <= o.tried.size(); ++k) {
      trial& t = k == 0 ? o.cold : o.tried[k - 1];
      if (o.dropped_page_cache && !drop_page_cache())
        std::cerr << prefix << "the page cache could not be dropped before this run\n";
      run_result r;
      if (const int e = runs.run(t, k, round, r); e != 0) return cannot_start(o.program[0], e);
      if (interrupted(r)) {
        std::cerr << prefix << t.name << ": " << r.status << "; stopped\n";
        runs.clean();
        return exit_as(r.wait_status);
      }
      line += " " + t.name + " " + (r.ok ? seconds(r.wall) : r.status + " (left out)") + ",";
      // A trial's first failed run only: a setting that fails every run is said once.
      if (!r.ok && std::all_of(t.runs.begin(), t.runs.end(), [](const run_result& x) { return x.ok; }))
        failed += prefix + t.name + ": " + r.status + "\n" + output_of(r);
      t.runs.push_back(std::move(r));
    }
    line.pop_back();
    std::cerr << prefix << line << "\n" << failed;
  }

  std::size_t cold_ok = 0;
  for (const run_result& r : o.cold.runs) cold_ok += r.ok;
  if (cold_ok == 0) {
    std::cerr << prefix << "every cold run failed (" << o.cold.runs.front().status
              << " in the first): nothing to compare the remedies with\n";
    return exit_error;
  }
  for (trial& t : o.tried) compare_with_cold(o.cold, t);
  const std::string text = as_text(o);
  std::cout << text << std::flush;
  bool written = true;
  for (const std::string& path : opt.outputs) {
    const std::string error = warmup::write_file_atomically(path, has_extension(path, ".json") ? as_json(o) : text);
    if (!error.empty()) std::cerr << prefix << error << '\n', written = false;
  }
  return written ? exit_ok : exit_error;
}
