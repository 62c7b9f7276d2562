# cmake -P script: configures, builds and runs a consumer project of warmup, then checks what the
# program printed. Used by both consumer tests in tests/packaging/CMakeLists.txt.
#
#   SOURCE_DIR      the consumer project
#   SCRATCH_DIR     wiped first, so every run starts from nothing
#   GENERATOR, MAKE_PROGRAM, CXX_COMPILER   the parent build's, passed through
#   CONFIGURE_ARGS  extra -D options for the consumer (a list)
#   INSTALL_FROM    optional: a build tree to `cmake --install` into SCRATCH_DIR/prefix first;
#                   the consumer then must find warmup there and nowhere else
#   EXPECT_ENABLED  ON: the report must hold the "step" site; OFF: it must say it is disabled
#
# Both consumers also build two more programs and a shared library (many_targets/): warmup's
# runtime must be compiled once for the four (compile_commands.json names its source once), and
# each of those programs' reports must hold its own site and the shared library's.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${SCRATCH_DIR}")
set(prefix "${SCRATCH_DIR}/prefix")
set(build "${SCRATCH_DIR}/build")

if(INSTALL_FROM)
  execute_process(COMMAND "${CMAKE_COMMAND}" --install "${INSTALL_FROM}" --prefix "${prefix}"
                  COMMAND_ERROR_IS_FATAL ANY)
  list(APPEND CONFIGURE_ARGS "-DCMAKE_PREFIX_PATH=${prefix}")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${build}" -G "${GENERATOR}"
          "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
          ${CONFIGURE_ARGS}
  COMMAND_ERROR_IS_FATAL ANY)

if(INSTALL_FROM)
  # A warmup found elsewhere (a system install, the package registry) would test the wrong thing.
  file(STRINGS "${build}/CMakeCache.txt" found REGEX "^warmup_DIR:")
  string(FIND "${found}" "=${prefix}/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the consumer found warmup outside the test prefix ${prefix}: ${found}")
  endif()
endif()

# warmup's runtime is compiled once per build tree, not once per target that links warmup::warmup.
file(READ "${build}/compile_commands.json" commands)
string(JSON count LENGTH "${commands}")
set(runtime_compiles 0)
set(targets 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON file GET "${commands}" ${i} file)
  if(file MATCHES "/warmup_runtime\\.cpp$")
    math(EXPR runtime_compiles "${runtime_compiles} + 1")
  elseif(file MATCHES "/many_targets/|/steps\\.cpp$")
    math(EXPR targets "${targets} + 1")
  endif()
endforeach()
if(NOT runtime_compiles EQUAL 1 OR NOT targets EQUAL 4)
  message(FATAL_ERROR "${build}/compile_commands.json compiles warmup_runtime.cpp ${runtime_compiles} times for "
                      "${targets} files of 3 programs and 1 shared library that link warmup::warmup: "
                      "warmup's runtime must be compiled once per build tree")
endif()
message(STATUS "warmup's runtime compiled once for 3 programs and a shared library")

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" COMMAND_ERROR_IS_FATAL ANY)

set(exe "${build}/consumer")
if(NOT EXISTS "${exe}")
  set(exe "${build}/Debug/consumer")  # multi-configuration generators
endif()
execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${exe} exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()

set(expected [["schema":"warmup.report/3"]])
if(EXPECT_ENABLED)
  list(APPEND expected [["name":"step"]])
else()
  list(APPEND expected [["enabled":false]])  # the parent build was configured WARMUP_DISABLE=ON
endif()
foreach(text IN LISTS expected)
  string(FIND "${out}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the consumer's output lacks ${text}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()

# The other programs: each report holds the program's own site and the shared library's.
foreach(name IN ITEMS second third)
  execute_process(COMMAND "${build}/consumer_${name}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(EXPECT_ENABLED)
    set(expected "\"name\":\"${name}\"" [["name":"library"]])
  else()
    set(expected [["enabled":false]])
  endif()
  foreach(text IN LISTS expected)
    string(FIND "${out}" "${text}" at)
    if(NOT rc EQUAL 0 OR at EQUAL -1)
      message(FATAL_ERROR "consumer_${name} exited with ${rc}; its output must hold ${text}\nstdout:\n${out}\nstderr:\n${err}")
    endif()
  endforeach()
endforeach()
message(STATUS "consumer_second and consumer_third report their own sites and the shared library's")

# The cuBLAS target (find_package consumer): its program runs, and the core's program does not
# link cuBLAS (warmup::warmup adds no link dependency beyond cudart and NVTX).
if(EXISTS "${build}/blas_consumer")
  execute_process(COMMAND "${build}/blas_consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "cublas variant 64x64x64")
    message(FATAL_ERROR "blas_consumer exited with ${rc}: ${out}")
  endif()
  file(GET_RUNTIME_DEPENDENCIES EXECUTABLES "${exe}" RESOLVED_DEPENDENCIES_VAR core_deps
       UNRESOLVED_DEPENDENCIES_VAR core_unresolved)
  foreach(dep IN LISTS core_deps core_unresolved)
    if(dep MATCHES "cublas")
      message(FATAL_ERROR "the consumer linked only to warmup::warmup depends on ${dep}")
    endif()
  endforeach()
  message(STATUS "warmup::cublas consumer ran; warmup::warmup consumer has no cuBLAS dependency")
endif()
