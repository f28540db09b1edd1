/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input checks on the device, so that checking costs no extra pass over host memory.
 */
#include "block_matrices.cuh"
#include "cuda_check.cuh"
#include "gpu_math.cuh"
#include "kernels.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

// One thread per channel: finiteness, then an unsorted modified Gram-Schmidt in double,
// rank-deficient when the smallest R_ii is not above 1e-6 ||H||_F (as on the CPU). The
// matrices sit in shared memory (block_matrices.cuh).
__global__ void check_channels_kernel(chunk_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const std::size_t c0 = blockIdx.x * std::size_t(blockDim.x);
    const thread_matrix<cplx<double>> q =
        load_block_channels<double>(a, reinterpret_cast<cplx<double>*>(smem), c0);
    const std::size_t c = c0 + threadIdx.x;
    if (c >= a.nch)
        return;
    const int nt = a.nt, nr = a.nr;
    double frob2 = 0.0;
    bool finite = true;
    for (int e = 0; e < nr * nt; e++) {
        const cplx<double> v = q[e];
        finite &= isfinite(v.re) && isfinite(v.im);
        frob2 += norm2(v);
    }
    if (!finite) {
        a.channel_bad[c] = 1;
        atomicMin(&a.errors->first_nonfinite_channel, a.base_channel + c);
        return;
    }
    double min_diag = INFINITY;
    for (int k = 0; k < nt; k++) {
        double nk = 0.0;
        for (int r = 0; r < nr; r++)
            nk += norm2(q[r * nt + k]);
        const double rkk = sqrt(nk);
        min_diag = fmin(min_diag, rkk);
        if (rkk > 0.0)
            for (int r = 0; r < nr; r++)
                q[r * nt + k] = (1.0 / rkk) * q[r * nt + k];
        for (int j = k + 1; j < nt; j++) {
            cplx<double> dot{ 0.0, 0.0 };
            for (int r = 0; r < nr; r++)
                dot = dot + conj_mul(q[r * nt + k], q[r * nt + j]);
            for (int r = 0; r < nr; r++)
                q[r * nt + j] = q[r * nt + j] - dot * q[r * nt + k];
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
    if (!bad && a.llr_clip <= 0.0f)
        return; // the common case: nothing to rewrite
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
    const int threads =
        block_threads_for(std::size_t(a.nr) * a.nt * sizeof(cplx<double>));
    const std::size_t smem = std::size_t(threads) * a.nr * a.nt * sizeof(cplx<double>);
    GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
        check_channels_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    check_channels_kernel<<<unsigned((a.nch + threads - 1) / threads),
                            threads,
                            smem,
                            s>>>(a);
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
