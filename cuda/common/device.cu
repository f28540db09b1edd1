/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/cuda_check.cuh"
#include "detail/cuda_device.h"

#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

// A kernel that does nothing: whether the current device can run this build's kernels.
__global__ void build_probe_kernel() {}

// Why the current device cannot run this build's kernels (its compute capability not
// among the architectures the build made code for, and no PTX it may compile), or ""
// where it can. Without this check every engine failed at its first kernel with only
// the CUDA error (cudaErrorJitCompilationDisabled, cudaErrorNoKernelImageForDevice).
std::string missing_kernels_reason()
{
    cudaFuncAttributes attributes;
    const cudaError_t err = cudaFuncGetAttributes(&attributes, build_probe_kernel);
    if (err == cudaSuccess)
        return "";
    cudaGetLastError();
    int device = 0, major = 0, minor = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    cudaDeviceProp prop;
    const std::string name =
        cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.name : "a CUDA device";
    const std::string cc = std::to_string(major) + std::to_string(minor);
    return "GPU " + std::to_string(device) + " (" + name + ", compute capability " +
           std::to_string(major) + "." + std::to_string(minor) +
           ") has no kernels in this build, which was made for CUDA architectures " +
           GPUMIMO_CUDA_ARCHITECTURES + " (rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + cc +
           " or a list that holds " + cc + "; " + cudaGetErrorName(err) + ")";
}

} // namespace

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
    if (count == 0) {
        if (why)
            *why = "no CUDA device present";
        return 0;
    }
    // Once per process, on the device current at the first call (device 0 unless the
    // caller chose another): a build without code for it leaves every device unused,
    // with one reason that names the fix.
    static const std::string missing = missing_kernels_reason();
    if (!missing.empty()) {
        if (why)
            *why = missing;
        return 0;
    }
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

bool is_device_memory(const void* p)
{
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeDevice;
}

// Both on the calling thread's own default stream, not the legacy default stream: that
// one is shared by every thread of the process, so each block's copy waited behind every
// other block's (in a 4-link chain of blocks the estimators' threads spent 70% of their
// time in such copies). Waited for before returning: a device-to-device copy or a memset
// of device memory returns before it is done (CUDA's "API synchronization behavior"),
// and the blocks' non-blocking streams do not wait for this stream.
void copy_bytes(void* dst, const void* src, std::size_t bytes)
{
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

void zero_device_bytes(void* dst, std::size_t bytes)
{
    GPUMIMO_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, cudaStreamPerThread));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

void* device_alloc(std::size_t bytes, int device)
{
    int previous = 0;
    GPUMIMO_CUDA_CHECK(cudaGetDevice(&previous));
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    cudaSetDevice(previous);
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error(std::string("cudaMalloc(") + std::to_string(bytes) +
                                 " bytes) on device " + std::to_string(device) + ": " +
                                 cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
    }
    return p;
}

void device_free(void* p)
{
    if (p && cudaFree(p) != cudaSuccess)
        cudaGetLastError();
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
