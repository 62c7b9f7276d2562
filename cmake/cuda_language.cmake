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
