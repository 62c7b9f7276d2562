/// @file
/// @brief The library's runtime compiled here, for a program (or shared library) whose other
/// files are built light (`WARMUP_LIGHT`).
///
/// Every warmup header normally compiles the runtime too (the registry's start-up, the
/// `WARMUP_*` variables, fork and exit hooks, the report at exit, CUPTI), in every file that
/// includes it. A program of many files can instead build them with `-DWARMUP_LIGHT`, so that
/// each compiles what its scopes run and no more, and include this header in exactly one file:
/// \code
///   // warmup_runtime.cpp: the one file of the program that compiles warmup's runtime
///   #include <warmup/runtime.hpp>
/// \endcode
/// A light program without that file does not link: the undefined symbol
/// `start_runtime_light_builds_need_warmup_runtime_hpp_in_one_file` names what to add. Files built
/// light, files built whole and `WARMUP_DISABLE` files mix in one program, as shared libraries
/// and plugins do: one registry, one report (detail/process.hpp). Each shared library built light
/// needs its own such file where it is built with `-fvisibility=hidden`.
#pragma once
#include "warmup/detail/header_begin.hpp"

#include "warmup/profile.hpp"
// What profile.hpp leaves out when this file is built light.
#include "warmup/detail/runtime/compiled_once.hpp"

#include "warmup/detail/header_end.hpp"
