/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every CUDA call and kernel launch goes through these: a failure becomes a
 * std::runtime_error naming the call, the place and CUDA's error string.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_CHECK_CUH
#define INCLUDED_GPUMIMO_CUDA_CHECK_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! A source path as errors show it: relative to the source tree (GPUMIMO_SOURCE_DIR,
 *  set by the build), never the build machine's absolute folder. */
inline const char* source_relative(const char* file)
{
#ifdef GPUMIMO_SOURCE_DIR
    const char* root = GPUMIMO_SOURCE_DIR;
    const std::size_t n = std::char_traits<char>::length(root);
    if (std::char_traits<char>::compare(file, root, n) == 0)
        return file + n;
#endif
    return file;
}

[[noreturn]] inline void
throw_cuda_error(cudaError_t err, const char* call, const char* file, int line)
{
    file = source_relative(file);
    // Clear the error unless it is sticky, so that a later launch check (which peeks at
    // the last error) does not report this one again after the caller handled it.
    cudaGetLastError();
    throw std::runtime_error(std::string(call) + " failed at " + file + ":" +
                             std::to_string(line) + ": " + cudaGetErrorName(err) + ": " +
                             cudaGetErrorString(err));
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#define GPUMIMO_CUDA_CHECK(call)                          \
    do {                                                  \
        const cudaError_t gpumimo_err_ = (call);          \
        if (gpumimo_err_ != cudaSuccess)                  \
            ::gr::gpumimo::cuda::throw_cuda_error(        \
                gpumimo_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a launch: configuration errors now; with GPUMIMO_CUDA_DEBUG_SYNC also faults
// inside the kernel, attributed to this launch.
#ifdef GPUMIMO_CUDA_DEBUG_SYNC
#define GPUMIMO_CUDA_CHECK_LAUNCH(name)              \
    do {                                             \
        GPUMIMO_CUDA_CHECK(cudaPeekAtLastError());   \
        GPUMIMO_CUDA_CHECK(cudaDeviceSynchronize()); \
    } while (0)
#else
#define GPUMIMO_CUDA_CHECK_LAUNCH(name) GPUMIMO_CUDA_CHECK(cudaPeekAtLastError())
#endif

#endif
