# CUDA is optional. ENABLE_CUDA=AUTO builds it when nvcc is found (on PATH, through
# CUDACXX/CMAKE_CUDA_COMPILER, or at /usr/local/cuda/bin/nvcc), ON requires it, OFF skips
# it. Only runtime-API libraries are linked, shared, so that the module loads and runs
# its CPU path on machines without an NVIDIA driver.
set(ENABLE_CUDA "AUTO" CACHE STRING "Build the CUDA backends: AUTO, ON or OFF")
set_property(CACHE ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)

set(GPUMIMO_HAVE_CUDA OFF)
if(NOT ENABLE_CUDA STREQUAL "OFF")
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
        find_program(GPUMIMO_NVCC nvcc PATHS /usr/local/cuda/bin NO_CACHE)
        if(GPUMIMO_NVCC)
            set(CMAKE_CUDA_COMPILER ${GPUMIMO_NVCC})
        endif()
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        # Machine code for Turing (T4, RTX 20xx), Ampere (A100; RTX 30xx), Ada (L4,
        # RTX 40xx) and Hopper (H100/H200), and Hopper's PTX, which newer GPUs
        # (Blackwell) compile when the module loads. "native" fails without a GPU and
        # the CMake default (one architecture) misses most of them.
        if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
            set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90"
                CACHE STRING "CUDA architectures")
        endif()
        set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
        enable_language(CUDA)
        find_package(CUDAToolkit REQUIRED)
        set(CMAKE_CUDA_STANDARD 17)
        set(CMAKE_CUDA_STANDARD_REQUIRED ON)
        set(GPUMIMO_HAVE_CUDA ON)
        message(STATUS "gpumimo: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
    elseif(ENABLE_CUDA STREQUAL "ON")
        message(FATAL_ERROR "ENABLE_CUDA=ON but no CUDA compiler was found")
    else()
        message(STATUS "gpumimo: no CUDA compiler found; building the CPU path only")
    endif()
endif()
