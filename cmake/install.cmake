# Installation and the CMake package: find_package(warmup) after `cmake --install`, and a
# build-tree export for projects that point CMAKE_PREFIX_PATH at a build folder.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS warmup warmup_cublas EXPORT warmupTargets)
install(DIRECTORY include/warmup DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The runtime's source, which the package compiles once per consumer's build tree into
# warmup::runtime (WARMUP_LIGHT; cmake/runtime_library.cmake, installed beside the config).
install(FILES cmake/warmup_runtime.cpp DESTINATION ${CMAKE_INSTALL_DATADIR}/warmup)
if(TARGET warmup-report)
  # OPTIONAL: a header-only install (configure, then install, no build) stays possible; the
  # package then has no warmup::report-tool (its config looks for the program first, and says
  # what to do to a consumer that asks for the component report-tool). The install says so too.
  install(CODE "if(NOT EXISTS \"$<TARGET_FILE:warmup-report>\")
  message(STATUS \"warmup: warmup-report was not built, so this install holds the headers only (no warmup::report-tool); to install it: cmake --build ${CMAKE_BINARY_DIR} && cmake --install ${CMAKE_BINARY_DIR}\")
endif()")
  install(TARGETS warmup-report EXPORT warmupToolTargets OPTIONAL)
  install(EXPORT warmupToolTargets NAMESPACE warmup:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warmup)
  export(EXPORT warmupToolTargets NAMESPACE warmup:: FILE ${CMAKE_CURRENT_BINARY_DIR}/warmupToolTargets.cmake)
endif()
# warmup::mpi in an export set of its own: the package loads it only where the consumer has
# MPI, so that finding warmup never requires MPI.
if(TARGET warmup_mpi)
  install(TARGETS warmup_mpi EXPORT warmupMpiTargets)
  install(EXPORT warmupMpiTargets NAMESPACE warmup:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/warmup)
  export(EXPORT warmupMpiTargets NAMESPACE warmup:: FILE ${CMAKE_CURRENT_BINARY_DIR}/warmupMpiTargets.cmake)
endif()

set(WARMUP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/warmup)
configure_package_config_file(cmake/warmupConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/warmupConfig.cmake
  INSTALL_DESTINATION ${WARMUP_CMAKE_DIR})
# The library is headers only: any architecture may use the installed package.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/warmupConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(EXPORT warmupTargets NAMESPACE warmup:: DESTINATION ${WARMUP_CMAKE_DIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/warmupConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/warmupConfigVersion.cmake
              cmake/runtime_library.cmake
        DESTINATION ${WARMUP_CMAKE_DIR})
# The build tree's package: its warmup::runtime is this build's, already compiled.
set(warmup_build_tree_targets warmup warmup_cublas)
if(TARGET warmup_runtime)
  list(APPEND warmup_build_tree_targets warmup_runtime)
endif()
export(TARGETS ${warmup_build_tree_targets} NAMESPACE warmup:: FILE ${CMAKE_CURRENT_BINARY_DIR}/warmupTargets.cmake)
