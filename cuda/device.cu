/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cuda_check.cuh"
#include "device.h"

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

} // namespace cuda
} // namespace gpumimo
} // namespace gr
