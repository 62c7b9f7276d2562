# The project's own programs (about fifty tests and folklore examples) share one compiled
# runtime, a static library, where a user's target compiles its own from warmup::warmup's
# interface source: fifty copies of the same 20 s compile were a third of CI. A program opts in
# with warmup_shared_runtime(target); the runtime is built light, as the programs' files are.
if(WARMUP_LIGHT)
  add_library(warmup_shared_runtime STATIC ${CMAKE_CURRENT_LIST_DIR}/warmup_runtime.cpp)
  target_link_libraries(warmup_shared_runtime PUBLIC warmup::warmup)
  set_target_properties(warmup_shared_runtime PROPERTIES WARMUP_TEST_SHARED_RUNTIME ON POSITION_INDEPENDENT_CODE ON)
endif()
function(warmup_shared_runtime target)
  if(WARMUP_LIGHT)
    set_target_properties(${target} PROPERTIES WARMUP_TEST_SHARED_RUNTIME ON)
    target_link_libraries(${target} PRIVATE warmup_shared_runtime)
  endif()
endfunction()
