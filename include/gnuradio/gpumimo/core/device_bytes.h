/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_DEVICE_BYTES_H
#define INCLUDED_GPUMIMO_CORE_DEVICE_BYTES_H

#include <cstddef>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Raw memory on a CUDA device, for the module's device-resident stream buffers
 * (lib/block_support/device_stream_buffer.h) and whatever else outside the CUDA sources holds data on
 * a GPU. Freed on destruction. std::runtime_error naming the call and CUDA's error when
 * it cannot be had (and always in a build without CUDA).
 */
class device_bytes
{
public:
    device_bytes() = default;
    device_bytes(std::size_t bytes, int device);
    ~device_bytes();
    device_bytes(device_bytes&& other) noexcept;
    device_bytes& operator=(device_bytes&& other) noexcept;
    device_bytes(const device_bytes&) = delete;
    device_bytes& operator=(const device_bytes&) = delete;

    char* get() const { return d_ptr; }
    std::size_t size() const { return d_bytes; }

private:
    char* d_ptr = nullptr;
    std::size_t d_bytes = 0;
};

/*! Whether p points into memory on a CUDA device (false for host memory, and in a
 *  build without CUDA). Never throws. */
bool is_device_memory(const void* p);

/*! Whether any of p[0..n) points into memory on a CUDA device (false for p null). */
template <typename T>
bool any_device_memory(T const* const* p, std::size_t n)
{
    if (!p)
        return false;
    for (std::size_t i = 0; i < n; i++)
        if (is_device_memory(p[i]))
            return true;
    return false;
}

/*! Copies `bytes` from src to dst, each in host or device memory (CUDA's unified
 *  addressing), synchronously; the ranges must not overlap. std::runtime_error naming
 *  the call and CUDA's error. Host to host (and in a build without CUDA, where no
 *  device memory exists) a memcpy. */
void copy_bytes(void* dst, const void* src, std::size_t bytes);

/*! Sets `bytes` at dst, in host or device memory, to zero, synchronously (a stream
 *  buffer's erased LLRs wherever it lies). std::runtime_error naming the call and CUDA's
 *  error. In a build without CUDA a memset. */
void zero_bytes(void* dst, std::size_t bytes);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
