/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input checks on the device, so that checking costs no extra pass over host memory.
 */
#include "detect/blocks/block_matrices.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"

#include <cfloat>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

// One thread per channel: finiteness, then the rank test of core::validate_batch: the
// smallest R_kk of the unsorted QR above 1e-6 ||H||_F. R^H R = G = H^H H, so R_kk^2 are
// the pivots of G's Cholesky factorisation: an nt x nt factorisation of a Hermitian
// matrix in double instead of Gram-Schmidt over all of H (in double the squared
// condition number costs nothing at a threshold of 1e-12 on R_kk^2). NT, the streams,
// at compile time: the factor's loops unrolled, the factor in registers rather than in
// local memory (with a run-time nt it was indexed at run time).
template <int NT>
__global__ void check_channels_kernel(chunk_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const std::size_t c0 = blockIdx.x * std::size_t(blockDim.x);
    const thread_matrix<cplx<double>> h =
        load_block_channels<double>(a, reinterpret_cast<cplx<double>*>(smem), c0);
    const std::size_t c = c0 + threadIdx.x;
    if (c >= a.nch)
        return;
    constexpr int nt = NT;
    const int nr = a.nr;
    // N0 finite and > 0, here rather than in a host pass before the pipeline (a pass
    // over 4 MB per 2^20 vectors that nothing overlapped). A bad N0 marks its channel:
    // its vectors' LLRs are zeroed like those of a bad H.
    const float n0 = a.noise[a.scalar_noise ? 0 : c];
    const bool bad_noise = !(n0 > 0.0f && n0 <= FLT_MAX); // NaN fails both
    if (bad_noise)
        atomicMin(&a.errors->first_bad_noise, a.base_noise + (a.scalar_noise ? 0 : c));
    double frob2 = 0.0;
    bool finite = true; // core::is_usable: finite and within +-max_sample_magnitude
    for (int e = 0; e < nr * nt; e++) {
        const cplx<double> v = h[e];
        finite &= fabs(v.re) <= core::max_sample_magnitude &&
                  fabs(v.im) <= core::max_sample_magnitude;
        frob2 += norm2(v);
    }
    // The power y = H s + n can explain, times max_vector_power_ratio (core/limits.h).
    a.y_power_limit[c] = float(fmin(core::max_vector_power_ratio *
                                        (frob2 * a.max_symbol_energy + nr * double(n0)),
                                    double(FLT_MAX)));
    if (!finite) {
        a.channel_bad[c] = 1;
        atomicMin(&a.errors->first_nonfinite_channel, a.base_channel + c);
        return;
    }
    // Lower triangle of G, column by column, overwritten by its Cholesky factor L.
    cplx<double> l[NT * (NT + 1) / 2];
    auto at = [](int i, int j) { return i * (i + 1) / 2 + j; }; // i >= j
#pragma unroll
    for (int i = 0; i < nt; i++)
#pragma unroll
        for (int j = 0; j <= i; j++) {
            cplx<double> g{ 0.0, 0.0 };
            for (int r = 0; r < nr; r++)
                g = g +
                    conj_mul(h[r * nt + i], h[r * nt + j]); // G_ij = sum conj(h_ri) h_rj
            l[at(i, j)] = g;
        }
    double min_pivot = INFINITY;
#pragma unroll
    for (int k = 0; k < nt; k++) {
        double d = l[at(k, k)].re;
#pragma unroll
        for (int j = 0; j < k; j++)
            d -= norm2(l[at(k, j)]);
        min_pivot = fmin(min_pivot, d);
        const double lkk = d > 0.0 ? sqrt(d) : 0.0;
        l[at(k, k)] = { lkk, 0.0 };
#pragma unroll
        for (int i = k + 1; i < nt; i++) {
            cplx<double> s = l[at(i, k)];
#pragma unroll
            for (int j = 0; j < k; j++)
                s = s - l[at(i, j)] * cplx<double>{ l[at(k, j)].re, -l[at(k, j)].im };
            l[at(i, k)] = lkk > 0.0 ? cplx<double>{ s.re / lkk, s.im / lkk }
                                    : cplx<double>{ 0.0, 0.0 };
        }
    }
    const bool singular = !(min_pivot > 1e-12 * frob2);
    a.channel_bad[c] = singular || bad_noise ? 1 : 0;
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
    float power = 0.0f; // at most 16 * 2e30 for usable samples: finite
    for (int r = 0; r < a.nr; r++) {
        const float2 v = a.y[i * a.nr + r];
        finite &= usable2(v);
        power += v.x * v.x + v.y * v.y;
    }
    const std::size_t c = channel_of(a, i);
    if (!finite)
        atomicMin(&a.errors->first_nonfinite_vector, a.base_vector + i);
    const bool channel_bad = a.channel_bad[c];
    // Only for a usable channel: a bad one's limit may be NaN.
    const bool out_of_range = finite && !channel_bad && !(power <= a.y_power_limit[c]);
    if (out_of_range)
        atomicMin(&a.errors->first_out_of_range_vector, a.base_vector + i);
    const bool bad = !finite || channel_bad || out_of_range;
    if (!bad && a.llr_clip <= 0.0f)
        return; // the common case: nothing to rewrite (the kernels saturate their stores)
    float* out = a.llr + i * std::size_t(a.nt * a.m);
    for (int k = 0; k < a.nt * a.m; k++) {
        float v = bad ? 0.0f : out[k];
        if (a.llr_clip > 0.0f)
            v = fminf(fmaxf(v, -a.llr_clip), a.llr_clip);
        out[k] = v;
    }
}

} // namespace

namespace {
template <int NT>
void launch_check(const chunk_args& a, cudaStream_t s)
{
    const int threads = block_threads_for(std::size_t(a.nr) * NT * sizeof(cplx<double>));
    const std::size_t smem = std::size_t(threads) * a.nr * NT * sizeof(cplx<double>);
    allow_dynamic_smem(check_channels_kernel<NT>, smem);
    check_channels_kernel<NT><<<unsigned((a.nch + threads - 1) / threads), threads, smem, s>>>(a);
    GPUMIMO_CUDA_CHECK_LAUNCH("check_channels_kernel");
}
} // namespace

void launch_check_channels(const chunk_args& a, cudaStream_t s)
{
    if (a.nch == 0)
        return;
    switch (a.nt) {
    case 1: return launch_check<1>(a, s);
    case 2: return launch_check<2>(a, s);
    case 3: return launch_check<3>(a, s);
    case 4: return launch_check<4>(a, s);
    case 5: return launch_check<5>(a, s);
    case 6: return launch_check<6>(a, s);
    case 7: return launch_check<7>(a, s);
    case 8: return launch_check<8>(a, s);
    default: throw std::invalid_argument("check_channels: nt must be 1 to 8");
    }
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
