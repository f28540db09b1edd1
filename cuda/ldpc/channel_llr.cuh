/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A channel LLR as the LDPC kernels (gpu_ldpc_decoder.cu, min_sum_half_kernel.cuh) start
 * from it, in the decoding literature's sign, as ldpc_detail::channel_llr on the CPU.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_LDPC_CHANNEL_LLR_CUH
#define INCLUDED_GPUMIMO_CUDA_LDPC_CHANNEL_LLR_CUH

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>

#include <cstdint>

namespace gr {
namespace gpumimo {
namespace core {
namespace ldpc_device {

// x clamped to +-ldpc_llr_saturation, as ldpc_detail::saturate_llr.
__device__ __forceinline__ float saturate_llr(float x)
{
    return fminf(fmaxf(x, -ldpc_llr_saturation), ldpc_llr_saturation);
}
// The decoder's sign (ln P(0) / P(1)) of a core LLR, saturated; non-finite: an erasure.
__device__ __forceinline__ float channel_llr(float core_llr)
{
    return isfinite(core_llr) ? saturate_llr(-core_llr) : 0.0f;
}
// An int8 LLR q / scale, saturated (an overflowing quotient too).
__device__ __forceinline__ float channel_llr(std::int8_t q, float scale)
{
    return saturate_llr(-__fdiv_rn(float(q), scale));
}
// Whether a value decides its bit: neither 0 nor NaN (ldpc_detail::decided).
__device__ __forceinline__ bool decided(float app)
{
    return app < 0.0f || app > 0.0f;
}

} // namespace ldpc_device
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
