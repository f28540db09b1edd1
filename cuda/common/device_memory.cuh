/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Owning handles for device memory, pinned host memory, streams and events. They are
 * made once (constructors, never in a steady-state call) and freed in destructors. And
 * the test whether caller memory is pinned.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_DEVICE_MEMORY_CUH
#define INCLUDED_GPUMIMO_CUDA_DEVICE_MEMORY_CUH

#include "common/cuda_check.cuh"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace cuda {

template <typename T>
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(std::size_t n) : d_size(n)
    {
        if (n)
            GPUMIMO_CUDA_CHECK(cudaMalloc(&d_ptr, n * sizeof(T)));
    }
    ~device_buffer()
    {
        if (d_ptr)
            cudaFree(d_ptr);
    }
    device_buffer(device_buffer&& o) noexcept { swap(o); }
    device_buffer& operator=(device_buffer&& o) noexcept
    {
        swap(o);
        return *this;
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    T* get() const { return d_ptr; }
    std::size_t size() const { return d_size; }

private:
    void swap(device_buffer& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_size, o.d_size);
    }
    T* d_ptr = nullptr;
    std::size_t d_size = 0;
};

template <typename T>
class pinned_buffer
{
public:
    pinned_buffer() = default;
    explicit pinned_buffer(std::size_t n) : d_size(n)
    {
        if (n)
            GPUMIMO_CUDA_CHECK(cudaMallocHost(&d_ptr, n * sizeof(T)));
    }
    ~pinned_buffer()
    {
        if (d_ptr)
            cudaFreeHost(d_ptr);
    }
    pinned_buffer(pinned_buffer&& o) noexcept { swap(o); }
    pinned_buffer& operator=(pinned_buffer&& o) noexcept
    {
        swap(o);
        return *this;
    }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;

    T* get() const { return d_ptr; }
    std::size_t size() const { return d_size; }

private:
    void swap(pinned_buffer& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_size, o.d_size);
    }
    T* d_ptr = nullptr;
    std::size_t d_size = 0;
};

class stream
{
public:
    stream()
    {
        GPUMIMO_CUDA_CHECK(cudaStreamCreateWithFlags(&d_s, cudaStreamNonBlocking));
    }
    ~stream()
    {
        if (d_s)
            cudaStreamDestroy(d_s);
    }
    stream(stream&& o) noexcept { std::swap(d_s, o.d_s); }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    cudaStream_t get() const { return d_s; }

private:
    cudaStream_t d_s = nullptr;
};

class event
{
public:
    /*! timing: an event cudaEventElapsedTime can measure between (else cheaper). */
    explicit event(bool timing = false)
    {
        GPUMIMO_CUDA_CHECK(
            cudaEventCreateWithFlags(&d_e, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~event()
    {
        if (d_e)
            cudaEventDestroy(d_e);
    }
    event(event&& o) noexcept { std::swap(d_e, o.d_e); }
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    cudaEvent_t get() const { return d_e; }

private:
    cudaEvent_t d_e = nullptr;
};

/*! Restores the caller's current device when it goes out of scope: a call that works
 *  on other devices leaves the caller where it was (its plans and streams belong to
 *  that device). */
class device_guard
{
public:
    device_guard() { GPUMIMO_CUDA_CHECK(cudaGetDevice(&d_device)); }
    ~device_guard() { cudaSetDevice(d_device); }
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;

private:
    int d_device = 0;
};

/*! Whether host memory is page-locked (cudaMallocHost or cudaHostRegister), so that
 *  asynchronous copies can go straight from or to it. */
inline bool is_pinned(const void* p)
{
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); // not memory CUDA knows: clear the error, treat as pageable
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

/*! Whether the bytes [p, p + bytes) are page-locked at both ends (a registered range is
 *  page-locked throughout: GNU Radio's stream buffers as blocks register them). */
inline bool is_pinned_range(const void* p, std::size_t bytes)
{
    return bytes > 0 && is_pinned(p) && is_pinned(static_cast<const char*>(p) + bytes - 1);
}

/*! Whether p is device memory (cudaMalloc: a device-resident stream buffer between two
 *  GPU blocks, core/device_bytes.h). */
inline bool is_device(const void* p)
{
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeDevice;
}

/*! Enqueues the copy of `bytes` from `src` to device `dst` on `stream`: device to device
 *  when src is on a device (a device-resident stream buffer), by DMA straight from src
 *  when it is page-locked (a block's registered stream buffer), else through `stage`
 *  (pinned, at least `bytes`, free of earlier copies) after a memcpy in this thread. */
inline void copy_to_device_async(void* dst, const void* src, std::size_t bytes, void* stage,
                                 cudaStream_t stream)
{
    if (is_device(src)) { // Default: src may be another device's memory
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
        return;
    }
    if (!is_pinned_range(src, bytes)) {
        std::memcpy(stage, src, bytes);
        src = stage;
    }
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
}

/*! A host vector copied to a new buffer on the current device, synchronously; T the
 *  device type, of the host type's size (float2 for std::complex<float>). At least one
 *  element, so that an empty list still gives a valid pointer. */
template <typename T, typename H>
device_buffer<T> upload_as(const std::vector<H>& host)
{
    static_assert(sizeof(T) == sizeof(H), "upload_as: the device type must be the host type's size");
    device_buffer<T> d(std::max<std::size_t>(1, host.size()));
    if (!host.empty())
        GPUMIMO_CUDA_CHECK(
            cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <typename T>
device_buffer<T> upload(const std::vector<T>& host)
{
    return upload_as<T>(host);
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
