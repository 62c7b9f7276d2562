# warmup::runtime: the library's runtime (start-up, settings, fork and exit hooks, the report at
# exit, CUPTI), compiled once per build tree from cmake/warmup_runtime.cpp, a static library that
# warmup::warmup links. Every target that links warmup::warmup builds its own files light
# (WARMUP_LIGHT) and takes the runtime from here: a project of a library and ten programs
# compiles it once, not eleven times.
#
# Included by warmup's own CMakeLists.txt (add_subdirectory, the build tree) and by the installed
# package's config (find_package), which makes the target the first time the package is found in
# a build tree and reuses it after. Compiled with the position-independent code a shared library
# needs, and with warmup::warmup's definitions (WARMUP_LIGHT, WARMUP_DISABLE where configured), so
# that it agrees with the files that link it. A program, each shared library and each plugin that
# links it holds a copy, as before: the copies share one registry and one report through the
# process anchor (include/warmup/detail/process.hpp).
#
# The archive's one object holds every definition a light file calls, so any call links all of it,
# start-up and the report at exit included; a program none of whose files calls into warmup does
# not link it, and has nothing to report.
function(warmup_add_runtime_library source)
  if(TARGET warmup_runtime)
    return()
  endif()
  if(NOT CMAKE_CXX_COMPILER_LOADED)
    message(FATAL_ERROR "warmup: its runtime is C++ (${source}): enable the CXX language in the project that "
                        "finds warmup, e.g. project(app LANGUAGES CXX CUDA)")
  endif()
  add_library(warmup_runtime STATIC ${source})
  set_target_properties(warmup_runtime PROPERTIES POSITION_INDEPENDENT_CODE ON EXPORT_NAME runtime)
  target_compile_features(warmup_runtime PRIVATE cxx_std_17)
  target_include_directories(warmup_runtime PRIVATE $<TARGET_PROPERTY:warmup::warmup,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(warmup_runtime PRIVATE $<TARGET_PROPERTY:warmup::warmup,INTERFACE_COMPILE_DEFINITIONS>)
  target_link_libraries(warmup_runtime PRIVATE CUDA::cudart CUDA::nvtx3 Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
