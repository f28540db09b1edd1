/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/cuda_check.cuh"
#include "detail/cuda_device.h"

namespace gr {
namespace gpumimo {
namespace cuda {

int usable_device_count(std::string* why)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error so later calls start clean
        if (why)
            *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(err) + ": " +
                   cudaGetErrorString(err);
        return 0;
    }
    if (count == 0 && why)
        *why = "no CUDA device present";
    return count;
}

bool register_host(void* base, std::size_t bytes, std::string* why)
{
    // Portable: the registration serves every device, as the OFDM FFT may split a
    // batch over several.
    const cudaError_t err = cudaHostRegister(base, bytes, cudaHostRegisterPortable);
    if (err == cudaSuccess)
        return true;
    cudaGetLastError();
    if (why)
        *why = std::string("cudaHostRegister: ") + cudaGetErrorName(err) + ": " +
               cudaGetErrorString(err);
    return false;
}

void unregister_host(void* base)
{
    if (cudaHostUnregister(base) != cudaSuccess)
        cudaGetLastError();
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
