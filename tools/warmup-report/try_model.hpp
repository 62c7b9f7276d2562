// What `warmup-report try` measures and decides (try.cpp): the remedies it tries, each run's
// figures, and the verdicts; filled by try_runs.cpp and try_compare.cpp, written by try_print.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <warmup/remedy.hpp>

#include "try_verdict.hpp"

namespace try_tool {

/// One environment variable as a run gets it.
struct env_setting {
  std::string name, value;
};

/// A site's figures in one run, in nanoseconds.
struct site_figures {
  std::string op, name;  ///< the site: its kind ("region", "launch", ...) and name
  std::int64_t first = 0;  ///< the first call's host time
  /// When the first call ended, from when the library loaded: the time to the first result.
  std::optional<std::int64_t> first_result;
};

/// One run of the program: how it was started, how it ended, what it measured.
struct run_result {
  int round = 0;                  ///< 1..N; 0: the diagnosis or a priming run
  std::vector<env_setting> env;   ///< what differs from try's own environment
  bool ok = false;                ///< it exited 0 and its report was read
  std::string status;             ///< "ok", "exit 1", "signal 9 (Killed)", "no report: ..."
  int wait_status = 0;            ///< as waitpid gave it
  std::int64_t wall = 0;          ///< the process, start to end, on try's steady clock
  std::vector<site_figures> sites;
  std::string output_tail;        ///< a failed run's last lines of output (stdout and stderr)
};

/// What a remedy did to one figure of one site (or of the whole program: empty site).
struct figure_verdict {
  std::string op, site;
  std::string figure;  ///< "first call", "time to first result", "wall time"
  spread cold, with;
  verdict v = verdict::too_few;
};

/// A remedy tried (or the cold runs, `cold`): its settings, its runs, its verdicts.
struct trial {
  std::string name;  ///< the table's name, "cold", or "env NAME=VALUE" for a user's
  warmup::remedy_kind kind = warmup::remedy_kind::environment;
  bool cold = false, user = false;
  std::vector<env_setting> settings;  ///< NAME=VALUE pairs it sets
  std::vector<std::string> kept;      ///< cache variables whose folders it keeps between its runs
  std::string why;                    ///< why it was chosen
  std::optional<run_result> priming;  ///< a cache remedy's run that filled its folders
  std::vector<run_result> runs;
  std::vector<figure_verdict> verdicts;
};

/// Everything one `try` did: what `as_text` and `as_json` (try_print.hpp) write.
struct try_outcome {
  std::vector<std::string> program;  ///< the program and its arguments
  int rounds = 0;                    ///< --runs
  std::optional<run_result> diagnosis;     ///< the cold run with WARMUP_ATTRIBUTION=1
  std::vector<std::string> diagnosed;      ///< the remedies its first calls' causes support, any kind
  trial cold;
  std::vector<trial> tried;
  std::vector<const warmup::detail::remedy_row*> code;  ///< remedies that need code, to show
  std::vector<std::string> fresh_variables;  ///< cache variables pointed at fresh folders each cold run
  bool dropped_page_cache = false;           ///< --drop-caches
  std::vector<std::string> inherited;  ///< remedies' settings try's own environment already has, kept in every run
};

}  // namespace try_tool
