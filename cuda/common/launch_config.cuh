/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Kernel launch configuration without hidden synchronisation. cudaFuncSetAttribute can
 * wait until the copies in flight on the device have finished (reported in
 * oneapi-src/unified-runtime#2678), which would serialise the chunked pipeline's copies
 * and kernels. So a kernel's dynamic shared memory limit is raised only when a launch
 * needs more than the kernel was last allowed on that device (once per kernel and size
 * in practice), and the SM count and occupancy queries are answered once and
 * remembered. (On the H200 the change moved end to end by no more than run-to-run
 * noise: docs/performance.md.)
 */
#ifndef INCLUDED_GPUMIMO_CUDA_LAUNCH_CONFIG_CUH
#define INCLUDED_GPUMIMO_CUDA_LAUNCH_CONFIG_CUH

#include "common/cuda_check.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace detail {
inline std::mutex& launch_config_mutex()
{
    static std::mutex m;
    return m;
}
inline int current_device()
{
    int device = 0;
    GPUMIMO_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}
} // namespace detail

/*! Lets `kernel` be launched with `bytes` of dynamic shared memory on the current
 *  device. Launches within the default 48 KB need nothing; above it the attribute is
 *  set only when it grows. */
template <typename Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes)
{
    if (bytes <= 48 * 1024)
        return;
    static std::map<std::pair<const void*, int>, std::size_t> allowed;
    const auto key = std::make_pair(reinterpret_cast<const void*>(kernel),
                                    detail::current_device());
    std::lock_guard<std::mutex> lock(detail::launch_config_mutex());
    std::size_t& now = allowed[key];
    if (bytes <= now)
        return;
    GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    now = bytes;
}

/*! Blocks of a persistent grid for `kernel`: as many as fit on the current device at
 *  once (at least one per SM), and no more than `wanted`. */
template <typename Kernel>
std::size_t persistent_blocks(Kernel kernel, int threads, std::size_t smem, std::size_t wanted)
{
    static std::map<std::tuple<const void*, int, int, std::size_t>, std::size_t> resident;
    const int device = detail::current_device();
    const auto key =
        std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, smem);
    std::size_t fit;
    {
        std::lock_guard<std::mutex> lock(detail::launch_config_mutex());
        auto it = resident.find(key);
        if (it == resident.end()) {
            int sms = 0, per_sm = 0;
            GPUMIMO_CUDA_CHECK(
                cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
            GPUMIMO_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, kernel, threads, smem));
            it = resident.emplace(key, std::size_t(sms) * (per_sm > 0 ? per_sm : 1))
                     .first;
        }
        fit = it->second;
    }
    return wanted < fit ? wanted : fit;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
