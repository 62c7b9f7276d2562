/// @file
/// @brief warmup: what the first call of your GPU work costs, and what it costs once warm.
///
/// Quick start: wrap what matters in scopes, then print the report.
/// \code
///   #include <warmup/profile.hpp>
///
///   {
///     warmup::context_scope init{"init"};
///     cudaSetDevice(0);
///   }
///   for (int i = 0; i < 100; ++i) {
///     warmup::region_scope step{"forward", stream};   // host and device time, NVTX range
///     forward(stream);
///   }
///   cudaStreamSynchronize(stream);
///   const warmup::report r = warmup::snapshot();
///   warmup::print(r, std::cout);                      // a table for people
///   std::cout << warmup::to_json(r) << '\n';          // JSON for programs
/// \endcode
///
/// Headers, one concept each (docs/design.md follows one call through them):
/// - op.hpp: operation kinds and their tags;
/// - scope.hpp: scopes, their aliases, `WARMUP_SCOPE`, `warmup::timed`;
/// - settings.hpp: every run-time setting, one to one with the `WARMUP_*` variables;
/// - cold.hpp: `expect_cold()`;
/// - report.hpp: the report's types, cause.hpp: the causes it names; snapshot.hpp: `snapshot()`;
/// - print.hpp (table), json.hpp (JSON), csv.hpp (CSV), trace.hpp (Chrome trace), svg.hpp
///   (picture): the writers, pure functions of a report;
/// - report_file.hpp: `report_formats`, `write_report`, `WARMUP_REPORT` destinations;
/// - prewarm.hpp: `prewarm_context`, `prewarm_kernels`, `prewarm_pool`, `pinned_buffer`;
///   until_steady.hpp (with steady_limits.hpp): `warmup_until_steady`; cublas.hpp, not included
///   here, prewarms cuBLAS (target `warmup::cublas`);
/// - not included here, for programs that read reports rather than measure (a measuring
///   program does not compile them): read.hpp, reports back from JSON; merge.hpp (with
///   merge_formats.hpp), many ranks' reports as one; compare.hpp (with compare_formats.hpp),
///   two runs' verdicts (the `warmup-report` tool is built on these); remedy.hpp, what to do
///   about a slow first call (`remedies_for`; each report already lists them); mpi.hpp gathers the ranks over MPI (target
///   `warmup::mpi`);
/// - config.hpp: version, namespaces, `WARMUP_DISABLE`, which removes every measurement while
///   keeping every type;
/// - runtime.hpp, not included here: the runtime (start-up, settings, fork and exit hooks, the
///   report at exit) compiled in one file, for programs whose other files are built light
///   (`WARMUP_LIGHT`), each of which then compiles what its scopes run.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/cause.hpp"
#include "warmup/cold.hpp"
#include "warmup/config.hpp"
#include "warmup/csv.hpp"
#include "warmup/json.hpp"
#include "warmup/op.hpp"
#include "warmup/prewarm.hpp"
#include "warmup/print.hpp"
#include "warmup/report.hpp"
#include "warmup/report_file.hpp"
#include "warmup/scope.hpp"
#include "warmup/settings.hpp"
#include "warmup/snapshot.hpp"
#include "warmup/steady_limits.hpp"
#include "warmup/svg.hpp"
#include "warmup/trace.hpp"
#include "warmup/until_steady.hpp"

#include "warmup/detail/header_end.hpp"
