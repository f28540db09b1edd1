/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp minimum and maximum (cuda/common/warp_reduce.cuh) against the host's, in
 * both forms: the one this GPU runs (one instruction from sm_80) and the shuffles that
 * a Turing GPU (sm_75) runs, on fresh random values, runs of equal values and the
 * extremes 0 and 0xffffffff.
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "common/warp_reduce.cuh"

#include <algorithm>
#include <vector>

namespace gc = gr::gpumimo::cuda;

namespace {

// Per warp of input: [min, max, min by shuffles, max by shuffles], on every lane.
__global__ void reduce_kernel(const unsigned* in, unsigned* out)
{
    const unsigned v = in[blockIdx.x * blockDim.x + threadIdx.x];
    const unsigned got[4] = { gc::warp_min(v), gc::warp_max(v), gc::warp_min_shuffle(v),
                              gc::warp_max_shuffle(v) };
    for (int k = 0; k < 4; k++)
        out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + k] = got[k];
}

} // namespace

TEST_F(Gpu, WarpMinAndMaxMatchTheHostsInBothForms)
{
    std::mt19937_64 rng = gpumimo_test::make_rng(0x7a4d);
    constexpr int warps = 256;
    std::vector<unsigned> in(warps * 32);
    for (int w = 0; w < warps; w++)
        for (int lane = 0; lane < 32; lane++) {
            unsigned& v = in[w * 32 + lane];
            switch (w % 4) {
            case 0: v = unsigned(rng()); break;                         // anything
            case 1: v = unsigned(rng() % 4); break;                     // many ties
            case 2: v = (rng() % 2) ? 0u : 0xffffffffu; break;          // the extremes
            default: v = lane == int(rng() % 32) ? 7u : 1000u + lane; break; // one low lane
            }
        }
    gc::device_buffer<unsigned> d_in(in.size()), d_out(in.size() * 4);
    GPUMIMO_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), in.size() * sizeof(unsigned),
                                  cudaMemcpyHostToDevice));
    GPUMIMO_CUDA_CHECK(cudaMemset(d_out.get(), 0x5a, in.size() * 4 * sizeof(unsigned)));
    reduce_kernel<<<warps, 32>>>(d_in.get(), d_out.get());
    GPUMIMO_CUDA_CHECK(cudaGetLastError());
    std::vector<unsigned> out(in.size() * 4);
    GPUMIMO_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), out.size() * sizeof(unsigned),
                                  cudaMemcpyDeviceToHost));
    for (int w = 0; w < warps; w++) {
        const auto first = in.begin() + w * 32;
        const unsigned lo = *std::min_element(first, first + 32);
        const unsigned hi = *std::max_element(first, first + 32);
        for (int lane = 0; lane < 32; lane++) {
            const unsigned* got = &out[(w * 32 + lane) * 4];
            ASSERT_EQ(got[0], lo) << "warp " << w << " lane " << lane;
            ASSERT_EQ(got[1], hi) << "warp " << w << " lane " << lane;
            ASSERT_EQ(got[2], lo) << "shuffles, warp " << w << " lane " << lane;
            ASSERT_EQ(got[3], hi) << "shuffles, warp " << w << " lane " << lane;
        }
    }
}
