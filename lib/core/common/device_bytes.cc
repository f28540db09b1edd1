/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * core/device_bytes.h over the CUDA runtime (cuda/common/device.cu), or refused in a
 * build without CUDA.
 */
#include <gnuradio/gpumimo/core/device_bytes.h>

#include <cstring>
#include <stdexcept>
#include <utility>

#ifdef GPUMIMO_HAVE_CUDA
#include "detail/cuda_device.h"
#endif

namespace gr {
namespace gpumimo {
namespace core {

#ifdef GPUMIMO_HAVE_CUDA
device_bytes::device_bytes(std::size_t bytes, int device)
    : d_ptr(static_cast<char*>(cuda::device_alloc(bytes, device))), d_bytes(bytes)
{
}
device_bytes::~device_bytes() { cuda::device_free(d_ptr); }
bool is_device_memory(const void* p) { return p && cuda::is_device_memory(p); }
void copy_bytes(void* dst, const void* src, std::size_t bytes)
{
    if (!bytes)
        return;
    // Host to host without the runtime: it may have no driver to ask (a machine
    // without a GPU), and memcpy is what it would do.
    if (!is_device_memory(dst) && !is_device_memory(src))
        std::memcpy(dst, src, bytes);
    else
        cuda::copy_bytes(dst, src, bytes);
}
void zero_bytes(void* dst, std::size_t bytes)
{
    if (!bytes)
        return;
    if (is_device_memory(dst))
        cuda::zero_device_bytes(dst, bytes);
    else
        std::memset(dst, 0, bytes);
}
#else
device_bytes::device_bytes(std::size_t, int)
{
    throw std::runtime_error("device_bytes: gr-gpumimo was built without CUDA");
}
device_bytes::~device_bytes() = default;
bool is_device_memory(const void*) { return false; }
void copy_bytes(void* dst, const void* src, std::size_t bytes)
{
    std::memcpy(dst, src, bytes); // host memory only: nothing else exists here
}
void zero_bytes(void* dst, std::size_t bytes)
{
    if (bytes)
        std::memset(dst, 0, bytes);
}
#endif

device_bytes::device_bytes(device_bytes&& other) noexcept
    : d_ptr(std::exchange(other.d_ptr, nullptr)), d_bytes(std::exchange(other.d_bytes, 0))
{
}

device_bytes& device_bytes::operator=(device_bytes&& other) noexcept
{
    if (this != &other) {
        device_bytes gone(std::move(*this));
        d_ptr = std::exchange(other.d_ptr, nullptr);
        d_bytes = std::exchange(other.d_bytes, 0);
    }
    return *this;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
