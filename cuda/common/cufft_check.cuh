/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GPUMIMO_CUFFT_CHECK: a failed cuFFT call becomes std::runtime_error naming the call,
 * the place and the cufftResult, as GPUMIMO_CUDA_CHECK does for the runtime. Host code
 * only: the CUDA sources and the benchmark share it.
 */
#ifndef INCLUDED_GPUMIMO_CUFFT_CHECK_CUH
#define INCLUDED_GPUMIMO_CUFFT_CHECK_CUH

#include "common/cuda_check.cuh"

#include <cufft.h>

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

inline const char* cufft_error_name(cufftResult r)
{
    switch (r) {
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    default:
        return "cufftResult (see cufft.h)";
    }
}

[[noreturn]] inline void
throw_cufft_error(cufftResult r, const char* call, const char* file, int line)
{
    throw std::runtime_error(std::string(call) + " failed at " + source_relative(file) + ":" +
                             std::to_string(line) + ": " + cufft_error_name(r) + " (" +
                             std::to_string(int(r)) + ")");
}
} // namespace cuda
} // namespace gpumimo
} // namespace gr

#define GPUMIMO_CUFFT_CHECK(call)                      \
    do {                                               \
        const cufftResult gpumimo_r = (call);          \
        if (gpumimo_r != CUFFT_SUCCESS)                \
            ::gr::gpumimo::cuda::throw_cufft_error(    \
                gpumimo_r, #call, __FILE__, __LINE__); \
    } while (0)

#endif
