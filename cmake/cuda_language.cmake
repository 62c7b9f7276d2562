# Examples and GPU tests are CUDA C++. They build wherever nvcc is found (a GPU is needed only
# to run them) and target Hopper by default: SASS for sm_90 and PTX for newer GPUs.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  enable_language(CUDA)
  set(WARMUP_HAVE_CUDA_COMPILER ON)
else()
  message(STATUS "warmup: no CUDA compiler found; CUDA examples and GPU tests are skipped")
  set(WARMUP_HAVE_CUDA_COMPILER OFF)
endif()
# The CUDA programs (the examples, the GPU tests and the folklore programs) only run on a GPU:
# tools/test builds them only where one is visible (a machine without one skips their tests
# anyway); .ci/gpu-bundle builds them for the GPU machine. nvcc's compile of the headers is
# still checked without a GPU (packaging.makefile, flags.global_name).
option(WARMUP_BUILD_CUDA_PROGRAMS "Build the examples and tests that need a GPU to run (tools/test: where one is visible)" ON)
