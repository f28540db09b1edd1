/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A full warp's minimum and maximum of unsigned values: from sm_80 one instruction
 * (__reduce_min_sync, __reduce_max_sync), before it (sm_75: T4, RTX 20xx) five
 * shuffles, the same result on every lane.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_WARP_REDUCE_CUH
#define INCLUDED_GPUMIMO_CUDA_WARP_REDUCE_CUH

#include <cuda_runtime.h>

namespace gr {
namespace gpumimo {
namespace cuda {

// The shuffle form, which every architecture has (sm_75's path; tested on all).
__device__ __forceinline__ unsigned warp_min_shuffle(unsigned v)
{
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v = min(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;
}
__device__ __forceinline__ unsigned warp_max_shuffle(unsigned v)
{
    for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
        v = max(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;
}

__device__ __forceinline__ unsigned warp_min(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(0xffffffffu, v);
#else
    return warp_min_shuffle(v);
#endif
}
__device__ __forceinline__ unsigned warp_max(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    return warp_max_shuffle(v);
#endif
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
