/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input checks on the device, so that checking costs no extra pass over host memory.
 */
#include "cuda_check.cuh"
#include "gpu_math.cuh"
#include "kernels.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxNr = 16;
constexpr int kMaxNt = 8;

// One thread per channel: finiteness, then an unsorted modified Gram-Schmidt in double,
// rank-deficient when the smallest R_ii is not above 1e-6 ||H||_F (as on the CPU).
__global__ void check_channels_kernel(chunk_args a)
{
    const std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (c >= a.nch)
        return;
    const float2* h = a.h + c * a.nr * a.nt;
    cplx<double> q[kMaxNr][kMaxNt];
    double frob2 = 0.0;
    bool finite = true;
    for (int r = 0; r < a.nr; r++)
        for (int t = 0; t < a.nt; t++) {
            const float2 v = h[r * a.nt + t];
            finite &= finite2(v);
            q[r][t] = from_float2<double>(v);
            frob2 += norm2(q[r][t]);
        }
    if (!finite) {
        a.channel_bad[c] = 1;
        atomicMin(&a.errors->first_nonfinite_channel, a.base_channel + c);
        return;
    }
    double min_diag = INFINITY;
    for (int k = 0; k < a.nt; k++) {
        double nk = 0.0;
        for (int r = 0; r < a.nr; r++)
            nk += norm2(q[r][k]);
        const double rkk = sqrt(nk);
        min_diag = fmin(min_diag, rkk);
        if (rkk > 0.0)
            for (int r = 0; r < a.nr; r++)
                q[r][k] = (1.0 / rkk) * q[r][k];
        for (int j = k + 1; j < a.nt; j++) {
            cplx<double> dot{ 0.0, 0.0 };
            for (int r = 0; r < a.nr; r++)
                dot = dot + conj_mul(q[r][k], q[r][j]);
            for (int r = 0; r < a.nr; r++)
                q[r][j] = q[r][j] - dot * q[r][k];
        }
    }
    const bool singular = !(min_diag > 1e-6 * sqrt(frob2));
    a.channel_bad[c] = singular ? 1 : 0;
    if (singular)
        atomicMin(&a.errors->first_singular_channel, a.base_channel + c);
}

// One thread per vector.
__global__ void finish_kernel(chunk_args a)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= a.n)
        return;
    bool finite = true;
    for (int r = 0; r < a.nr; r++)
        finite &= finite2(a.y[i * a.nr + r]);
    if (!finite)
        atomicMin(&a.errors->first_nonfinite_vector, a.base_vector + i);
    const bool bad = !finite || a.channel_bad[channel_of(a, i)];
    float* out = a.llr + i * std::size_t(a.nt * a.m);
    for (int k = 0; k < a.nt * a.m; k++) {
        float v = bad ? 0.0f : out[k];
        if (a.llr_clip > 0.0f)
            v = fminf(fmaxf(v, -a.llr_clip), a.llr_clip);
        out[k] = v;
    }
}

} // namespace

void launch_check_channels(const chunk_args& a, cudaStream_t s)
{
    if (a.nch == 0)
        return;
    const int threads = 128;
    check_channels_kernel<<<unsigned((a.nch + threads - 1) / threads), threads, 0, s>>>(a);
    GPUMIMO_CUDA_CHECK_LAUNCH("check_channels_kernel");
}

void launch_finish(const chunk_args& a, cudaStream_t s)
{
    if (a.n == 0)
        return;
    const int threads = 256;
    finish_kernel<<<unsigned((a.n + threads - 1) / threads), threads, 0, s>>>(a);
    GPUMIMO_CUDA_CHECK_LAUNCH("finish_kernel");
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
