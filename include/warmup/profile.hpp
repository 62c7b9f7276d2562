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
/// Headers, one concept each: op.hpp (operation kinds), scope.hpp (scopes and macros),
/// report.hpp (the report's types), snapshot.hpp (`snapshot()`), cold.hpp (idle
/// threshold and `expect_cold()`), print.hpp (table), json.hpp (JSON). Compile with
/// `WARMUP_DISABLE` to remove every measurement while keeping every type.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/cold.hpp"
#include "warmup/config.hpp"
#include "warmup/csv.hpp"
#include "warmup/enable.hpp"
#include "warmup/json.hpp"
#include "warmup/op.hpp"
#include "warmup/print.hpp"
#include "warmup/report.hpp"
#include "warmup/report_file.hpp"
#include "warmup/scope.hpp"
#include "warmup/snapshot.hpp"
#include "warmup/svg.hpp"
#include "warmup/trace.hpp"

#include "warmup/detail/header_end.hpp"
