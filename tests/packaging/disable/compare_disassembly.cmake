# cmake -P script: compiles WITH and WITHOUT (the same function, with and without scopes) with the
# same FLAGS, disassembles both objects and compares the instruction text.
#
#   CXX, FLAGS      the compiler and its flags (a list, -c and -o added here)
#   WITH, WITHOUT   the two sources
#   OBJDUMP         objdump, to disassemble
#   OUT_DIR         wiped first
#   EXPECT          SAME: the listings must match (the test of WARMUP_DISABLE);
#                   DIFFERENT: they must differ (the control: proves the comparison sees scopes)
#
# The whole object is compared, not just the function: a static initialiser or an out-of-line
# scope function left behind by a "disabled" header would be code too.
cmake_minimum_required(VERSION 3.25)

if(NOT EXPECT MATCHES "^(SAME|DIFFERENT)$")
  message(FATAL_ERROR "EXPECT must be SAME or DIFFERENT, not '${EXPECT}'")
endif()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")

# Compiles `source`, disassembles the object into OUT_DIR/<name>.s and returns that text.
function(disassemble source out_var)
  get_filename_component(name "${source}" NAME_WE)
  set(object "${OUT_DIR}/${name}.o")
  execute_process(COMMAND "${CXX}" ${FLAGS} -c "${source}" -o "${object}"
                  COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND "${OBJDUMP}" -d --no-show-raw-insn "${object}"
                  OUTPUT_VARIABLE listing COMMAND_ERROR_IS_FATAL ANY)
  # The header line names the object file ("with_scopes.o:  file format elf64-x86-64"): drop
  # it, and blank lines with it.
  string(REGEX REPLACE "[^\n]*file format[^\n]*" "" listing "${listing}")
  string(REGEX REPLACE "\n\n+" "\n" listing "${listing}")
  file(WRITE "${OUT_DIR}/${name}.s" "${listing}")
  set(${out_var} "${listing}" PARENT_SCOPE)
endfunction()

disassemble("${WITH}" with)
disassemble("${WITHOUT}" without)

if(EXPECT STREQUAL "SAME" AND NOT with STREQUAL without)
  message(NOTICE "--- with scopes ---\n${with}\n--- without scopes ---\n${without}")
  message(FATAL_ERROR "Scopes left code behind under WARMUP_DISABLE: the objects differ "
                      "(listings above, and in ${OUT_DIR}/*.s).")
elseif(EXPECT STREQUAL "DIFFERENT" AND with STREQUAL without)
  message(NOTICE "--- both ---\n${with}")
  message(FATAL_ERROR "The objects are identical with scopes enabled, so this comparison "
                      "cannot see scopes at all (listing above).")
endif()
message(STATUS "the objects are ${EXPECT}, as expected")
