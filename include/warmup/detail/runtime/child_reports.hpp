/// @file
/// @brief A child process that its parent did not fork, marked as a child: its reports go
/// beside its parent's, never over them. Declared for files built light; defined once, with the
/// runtime (detail/runtime/compiled_once.hpp).
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/config.hpp"

WARMUP_BEGIN_NAMESPACE
namespace detail {

/// @brief Marks this process as a child whose reports go beside its parent's, tagged with its
/// pid, as a forked child's do (report_destinations.hpp, file_tag): for a child that its parent
/// started afresh, which the fork handler never saw. Python's multiprocessing with the `spawn`
/// or `forkserver` method runs the parent's script again in a new interpreter, whose report
/// would otherwise replace the parent's; `import warmup` marks such a child.
/// \code
///   if (started_by_my_launcher) warmup::detail::report_beside_parent();  // report.<pid>.json
/// \endcode
void report_beside_parent() noexcept;

}  // namespace detail
WARMUP_END_NAMESPACE

#include "warmup/detail/header_end.hpp"
