/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GPUMIMO_CUBLAS_CHECK: a failed cuBLAS call becomes std::runtime_error naming the call,
 * the place and the cublasStatus_t, as GPUMIMO_CUDA_CHECK does for the runtime; and a
 * cuBLAS handle that owns its workspace, so that no call allocates. Host code only.
 */
#ifndef INCLUDED_GPUMIMO_CUBLAS_CHECK_CUH
#define INCLUDED_GPUMIMO_CUBLAS_CHECK_CUH

#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

[[noreturn]] inline void
throw_cublas_error(cublasStatus_t s, const char* call, const char* file, int line)
{
    throw std::runtime_error(std::string(call) + " failed at " + source_relative(file) + ":" +
                             std::to_string(line) + ": " + cublasGetStatusName(s) + ": " +
                             cublasGetStatusString(s));
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#define GPUMIMO_CUBLAS_CHECK(call)                     \
    do {                                               \
        const cublasStatus_t gpumimo_s = (call);       \
        if (gpumimo_s != CUBLAS_STATUS_SUCCESS)        \
            ::gr::gpumimo::cuda::throw_cublas_error(   \
                gpumimo_s, #call, __FILE__, __LINE__); \
    } while (0)

namespace gr {
namespace gpumimo {
namespace cuda {

/*! A cuBLAS handle on the current device with its own workspace (set once, so that the
 *  calls on it allocate nothing) and full-precision math (no TF32). */
class cublas_handle
{
public:
    cublas_handle()
    {
        GPUMIMO_CUBLAS_CHECK(cublasCreate(&d_handle));
        try {
            GPUMIMO_CUBLAS_CHECK(cublasSetMathMode(d_handle, CUBLAS_PEDANTIC_MATH));
            d_workspace = device_buffer<char>(workspace_bytes);
            GPUMIMO_CUBLAS_CHECK(cublasSetWorkspace(d_handle, d_workspace.get(), workspace_bytes));
        } catch (...) {
            cublasDestroy(d_handle);
            throw;
        }
    }
    ~cublas_handle() { cublasDestroy(d_handle); }
    cublas_handle(const cublas_handle&) = delete;
    cublas_handle& operator=(const cublas_handle&) = delete;

    /*! The handle, its calls queued on `stream`. */
    cublasHandle_t on(cudaStream_t stream)
    {
        GPUMIMO_CUBLAS_CHECK(cublasSetStream(d_handle, stream));
        // cublasSetStream resets the workspace to the default pool: set ours again.
        GPUMIMO_CUBLAS_CHECK(cublasSetWorkspace(d_handle, d_workspace.get(), workspace_bytes));
        return d_handle;
    }

private:
    // Ample for the small products here (cuBLAS runs with less, only slower).
    static constexpr std::size_t workspace_bytes = std::size_t(4) << 20;
    cublasHandle_t d_handle = nullptr;
    device_buffer<char> d_workspace;
};

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
