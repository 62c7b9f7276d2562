# Included by both consumers: two more programs and a shared library that link warmup::warmup,
# beside the consumer program. warmup's runtime is compiled once for all four targets
# (run_consumer.cmake counts the compile commands), and each program's report holds its own
# site and the library's.
add_library(consumer_library SHARED ${CMAKE_CURRENT_LIST_DIR}/library.cpp)
target_link_libraries(consumer_library PRIVATE warmup::warmup)
foreach(name IN ITEMS second third)
  add_executable(consumer_${name} ${CMAKE_CURRENT_LIST_DIR}/program.cpp)
  target_compile_definitions(consumer_${name} PRIVATE "PROGRAM_NAME=\"${name}\"")
  target_link_libraries(consumer_${name} PRIVATE warmup::warmup consumer_library)
endforeach()
