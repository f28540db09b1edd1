/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver's decoding stage on the device (gpu_fused_receiver::process_decoded):
 * around gpu_ldpc_decoder, the two kernels that coded_payload::deinterleave and
 * finish_payload_decode are on the CPU. The LLRs never leave the device.
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpumimo {
namespace core {
namespace fused_decoding {
namespace { // one translation unit's kernels (gpu_fused_receiver.cu)

// Each frame's payload LLRs (bits apart) into codeword order, `coded` = codewords x n of
// them per frame: codeword_llr[f][i] = llr[f][position[i]] (coded_payload::position).
__global__ void deinterleave_kernel(const float* __restrict__ llr,
                                    const std::uint32_t* __restrict__ position,
                                    int frames,
                                    int bits,
                                    int coded,
                                    float* __restrict__ codeword_llr)
{
    const std::size_t total = std::size_t(frames) * std::size_t(coded);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t f = i / std::size_t(coded), c = i % std::size_t(coded);
        codeword_llr[i] = llr[f * std::size_t(bits) + position[c]];
    }
}

// One block per codeword: its k information bits out of the decoder's decisions
// (ldpc_encoder::extract), and, when the decoder satisfied it, its uncoded errors: the
// LLRs' hard decisions (> 0: 1; 0 or NaN: 0, as the sinks decide) against the decoded
// codeword. raw_errors[codeword] is 0 for a codeword not satisfied.
__global__ void finish_decode_kernel(const float* __restrict__ codeword_llr,
                                     const std::uint8_t* __restrict__ bits,
                                     const std::uint8_t* __restrict__ satisfied,
                                     const int* __restrict__ info_positions,
                                     int n,
                                     int k,
                                     std::uint8_t* __restrict__ info,
                                     int* __restrict__ raw_errors)
{
    const std::size_t cw = blockIdx.x;
    const std::uint8_t* decided = bits + cw * std::size_t(n);
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        info[cw * std::size_t(k) + i] = decided[info_positions[i]] & 1u;
    __shared__ int errors;
    if (threadIdx.x == 0)
        errors = 0;
    __syncthreads();
    if (satisfied[cw]) {
        int mine = 0;
        const float* llr = codeword_llr + cw * std::size_t(n);
        for (int b = threadIdx.x; b < n; b += blockDim.x)
            mine += (llr[b] > 0.0f) != (decided[b] == 1);
        atomicAdd(&errors, mine);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        raw_errors[cw] = errors;
}

} // namespace
} // namespace fused_decoding
} // namespace core
} // namespace gpumimo
} // namespace gr
