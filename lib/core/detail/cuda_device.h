/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Host-side declarations of the CUDA part; plain C++, includable without nvcc.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_DEVICE_H
#define INCLUDED_GPUMIMO_CUDA_DEVICE_H

#include <cstddef>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

/*! Devices cudaGetDeviceCount reports; 0 with the CUDA error string in *why when the
 *  runtime cannot be used (cudaErrorInsufficientDriver on a machine without a driver). */
int usable_device_count(std::string* why);

/*! cudaHostRegister of [base, base + bytes); false with the call and CUDA error string
 *  in *why when the driver refuses (the error is cleared). */
bool register_host(void* base, std::size_t bytes, std::string* why);
/*! cudaHostUnregister; errors are cleared and ignored (called from destructors). */
void unregister_host(void* base);

/*! cudaPointerGetAttributes says device memory; errors cleared, false. */
bool is_device_memory(const void* p);
/*! cudaMemcpy with cudaMemcpyDefault (either side host or device); std::runtime_error
 *  naming the call and CUDA's error. */
void copy_bytes(void* dst, const void* src, std::size_t bytes);
/*! cudaMemset of device memory to zero, synchronously; std::runtime_error naming the
 *  call and CUDA's error. */
void zero_device_bytes(void* dst, std::size_t bytes);
/*! cudaMalloc on `device` (the current device kept); std::runtime_error naming the call,
 *  the size and CUDA's error. */
void* device_alloc(std::size_t bytes, int device);
/*! cudaFree; errors are cleared and ignored (called from destructors). */
void device_free(void* p);

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
