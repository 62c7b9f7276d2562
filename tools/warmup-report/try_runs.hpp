// `warmup-report try`'s runs (try_runs.cpp): the folders it makes cold or keeps, the program
// started once with an environment of its own, its report read back into figures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <warmup/report.hpp>

#include "try_model.hpp"

namespace try_tool {

/// A remedy row's `setting` split: the leading words without '=' (the variables naming its
/// folders, for a cache row) into `variables`, the NAME=VALUE words into `pairs`.
void split_setting(std::string_view setting, std::vector<std::string>& variables, std::vector<env_setting>& pairs);

/// Every cache row's folder variables (CUDA_CACHE_PATH, TORCHINDUCTOR_CACHE_DIR, ...), once each:
/// what a cold run points at fresh empty folders.
std::vector<std::string> cache_variables();

/// A new folder of this user's alone ($TMPDIR, else /tmp), named `prefix` and six letters; empty
/// where none could be made.
std::string make_private_folder(const char* prefix);

/// Makes `path` (its parent exists); false where it could not.
bool make_folder(const std::string& path);

/// Removes `path` and everything under it (links as links, never followed).
void remove_tree(const std::string& path);

/// Whether the page cache can be dropped (/proc/sys/vm/drop_caches opened for writing); where
/// not, `error` says why.
bool can_drop_page_cache(std::string& error);

/// `sync`, then "1" into /proc/sys/vm/drop_caches: the page cache dropped. False where not.
bool drop_page_cache();

/// Runs `program` once with try's environment and `env` on top (NAME=VALUE, the last setting of a
/// name winning), the report it writes read from `report`, its standard output and error into a
/// file beside it (removed after; a failed run keeps their last lines in `out.output_tail`). Fills
/// `out` (its status, wall time and figures; the whole report into `*whole` where given). Returns 0, or the errno of a start that
/// failed (ENOENT: no such program). try's signal mask is as it was after it.
int run_once(const std::vector<std::string>& program, const std::vector<env_setting>& env, const std::string& report,
             run_result& out, warmup::report* whole = nullptr);

}  // namespace try_tool
