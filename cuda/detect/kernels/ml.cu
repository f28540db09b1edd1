/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exhaustive max-log ML on the GPU for small configurations (nt * m <= 16 bits, at most
 * 65536 candidates): one block per problem, threads striding over the candidates. The
 * products h_j * p_q sit in shared memory; each thread keeps per-bit minima in
 * registers, then the block reduces them. The metric is formed in the reference's order
 * (lib/core/detect/references/ml_ref.cc): residual y - h_0 s_0 - h_1 s_1 - ..., then its squared norm.
 */
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/kernels/ml.cuh"
#include "detect/gpu_registry.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxBits = 16;
constexpr int kThreads = 256;
constexpr int kMaxNr = 16;

template <typename real>
__global__ void __launch_bounds__(kThreads) ml_kernel(chunk_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    cplx<real>* hq = reinterpret_cast<cplx<real>*>(smem); // [nt][Q][nr]
    __shared__ real s_min[2][kThreads / 32][kMaxBits];

    const int nt = a.nt, nr = a.nr, m = a.m, npoints = 1 << m, nbits = nt * m;
    const std::size_t v = blockIdx.x;
    const std::size_t c = channel_of(a, v);
    const float2* h = a.h + c * nr * nt;
    for (int i = threadIdx.x; i < nt * npoints * nr; i += blockDim.x) {
        const int j = i / (npoints * nr), q = (i / nr) % npoints, r = i % nr;
        hq[i] = from_float2<real>(h[r * nt + j]) * point_of<real>(a, q);
    }
    cplx<real> y[kMaxNr];
    for (int r = 0; r < nr; r++)
        y[r] = from_float2<real>(a.y[v * nr + r]);
    __syncthreads();

    real min0[kMaxBits], min1[kMaxBits];
#pragma unroll
    for (int b = 0; b < kMaxBits; b++) {
        min0[b] = INFINITY;
        min1[b] = INFINITY;
    }
    const unsigned total = 1u << nbits;
    for (unsigned cand = threadIdx.x; cand < total; cand += blockDim.x) {
        cplx<real> res[kMaxNr];
        for (int r = 0; r < nr; r++)
            res[r] = y[r];
        real d = 0;
        for (int j = 0; j < nt; j++) {
            const int q =
                (cand >> (m * (nt - 1 - j))) & (npoints - 1); // stream 0: top bits
            const cplx<real>* hjq = hq + (j * npoints + q) * nr;
            if (j + 1 < nt)
                for (int r = 0; r < nr; r++)
                    res[r] = res[r] - hjq[r];
            else
                for (int r = 0; r < nr; r++)
                    d += norm2(res[r] - hjq[r]);
        }
        // Bit b of the vector is bit (nbits-1-b) of cand: stream-major, b_0 first.
#pragma unroll
        for (int b = 0; b < kMaxBits; b++)
            if (b < nbits) {
                if ((cand >> (nbits - 1 - b)) & 1)
                    min1[b] = fmin(min1[b], d);
                else
                    min0[b] = fmin(min0[b], d);
            }
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int b = 0; b < kMaxBits; b++) {
        real x0 = min0[b], x1 = min1[b];
        for (int off = 16; off > 0; off /= 2) {
            x0 = fmin(x0, __shfl_down_sync(0xffffffffu, x0, off));
            x1 = fmin(x1, __shfl_down_sync(0xffffffffu, x1, off));
        }
        if (lane == 0) {
            s_min[0][warp][b] = x0;
            s_min[1][warp][b] = x1;
        }
    }
    __syncthreads();
    if (threadIdx.x < nbits) {
        const int b = threadIdx.x;
        real x0 = INFINITY, x1 = INFINITY;
        for (int wi = 0; wi < int(blockDim.x / 32); wi++) {
            x0 = fmin(x0, s_min[0][wi][b]);
            x1 = fmin(x1, s_min[1][wi][b]);
        }
        const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
        a.llr[v * std::size_t(nbits) + b] = core::saturate_llr((x0 - x1) / n0);
    }
}

template <typename real>
void launch(const chunk_args& a, cudaStream_t s)
{
    const std::size_t smem =
        ml_shared_bytes(a.nt, a.nr, a.m, sizeof(real) == sizeof(double));
    allow_dynamic_smem(ml_kernel<real>, smem);
    ml_kernel<real><<<unsigned(a.n), kThreads, smem, s>>>(a);
    GPUMIMO_CUDA_CHECK_LAUNCH("ml_kernel");
}

} // namespace

std::size_t ml_shared_bytes(int nt, int nr, int m, bool dbl)
{
    return std::size_t(nt) * (std::size_t(1) << m) * nr * (dbl ? 16 : 8);
}

void launch_ml(const chunk_args& a, bool dbl, cudaStream_t s)
{
    if (a.n == 0)
        return;
    if (dbl)
        launch<double>(a, s);
    else
        launch<float>(a, s);
}

// The registry's GPU entry of ml.
const gpu_detector_entry& ml_gpu_detector()
{
    static const gpu_detector_entry e{
        [](const core::constellation& c,
           int nt,
           int,
           const core::detector_params&,
           std::string* why) {
            if (nt * c.bits_per_symbol() <= kMaxBits)
                return true;
            if (why)
                *why = "the CUDA ml is for small configurations (nt * bits per symbol <= 16)";
            return false;
        },
        no_workspace,
        no_plan,
        [](const gpu_launch& l, cudaStream_t s) { launch_ml(l.a, l.dbl, s); } };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
