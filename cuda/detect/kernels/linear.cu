/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ZF and MMSE on the GPU, the algorithm of lib/core/detect/linear_ref.cc: one thread per channel
 * matrix forms A = (H^H H + a N0 I)^-1 (Gauss-Jordan with partial pivoting), W = A H^H
 * and each stream's gain and variance; one thread per (vector, stream) equalises and
 * demaps.
 */
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/kernels/linear.cuh"
#include "detect/gpu_registry.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxNt = 8;

template <typename real>
struct linear_workspace {
    cplx<real>* w; // [nch][nt][nr]
    real* gain;    // [nch][nt]
    real* var;     // [nch][nt]
};

template <typename real>
linear_workspace<real> carve(void* ws, std::size_t nch, int nt, int nr)
{
    linear_workspace<real> w;
    w.w = static_cast<cplx<real>*>(ws);
    w.gain = reinterpret_cast<real*>(w.w + nch * nt * nr);
    w.var = w.gain + nch * nt;
    return w;
}

template <typename real>
__device__ inline real cabs(cplx<real> v)
{
    return sqrt(norm2(v));
}

template <typename real>
__device__ inline cplx<real> cdiv(cplx<real> a, cplx<real> b)
{
    const real d = norm2(b);
    return { (a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d };
}

template <typename real>
__global__ void linear_prep_kernel(chunk_args a, bool mmse, linear_workspace<real> w)
{
    const std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (c >= a.nch)
        return;
    const int nt = a.nt, nr = a.nr;
    const float2* h = a.h + c * nr * nt;
    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    cplx<real> g[kMaxNt][kMaxNt], inv[kMaxNt][kMaxNt];
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) {
            cplx<real> acc{ 0, 0 };
            for (int r = 0; r < nr; r++)
                acc = acc + conj_mul(from_float2<real>(h[r * nt + i]),
                                     from_float2<real>(h[r * nt + j]));
            g[i][j] = acc;
            inv[i][j] = { real(i == j), 0 };
        }
    if (mmse)
        for (int k = 0; k < nt; k++)
            g[k][k].re += n0;
    for (int col = 0; col < nt; col++) {
        int pivot = col;
        for (int r = col + 1; r < nt; r++)
            if (cabs(g[r][col]) > cabs(g[pivot][col]))
                pivot = r;
        if (pivot != col)
            for (int cc = 0; cc < nt; cc++) {
                cplx<real> t = g[col][cc];
                g[col][cc] = g[pivot][cc];
                g[pivot][cc] = t;
                t = inv[col][cc];
                inv[col][cc] = inv[pivot][cc];
                inv[pivot][cc] = t;
            }
        const cplx<real> d = g[col][col];
        for (int cc = 0; cc < nt; cc++) {
            g[col][cc] = cdiv(g[col][cc], d);
            inv[col][cc] = cdiv(inv[col][cc], d);
        }
        for (int r = 0; r < nt; r++) {
            if (r == col)
                continue;
            const cplx<real> f = g[r][col];
            for (int cc = 0; cc < nt; cc++) {
                g[r][cc] = g[r][cc] - f * g[col][cc];
                inv[r][cc] = inv[r][cc] - f * inv[col][cc];
            }
        }
    }
    for (int k = 0; k < nt; k++) {
        for (int r = 0; r < nr; r++) {
            cplx<real> acc{ 0, 0 }; // W = A H^H: W[k][r] = sum_j A[k][j] conj(H[r][j])
            for (int j = 0; j < nt; j++) {
                const cplx<real> hrj = from_float2<real>(h[r * nt + j]);
                acc = acc + inv[k][j] * cplx<real>{ hrj.re, -hrj.im };
            }
            w.w[(c * nt + k) * nr + r] = acc;
        }
        const real akk = inv[k][k].re;
        // mu_k = 1 - N0 A_kk, and where that cancels (below 1e-2: an SINR below -20 dB)
        // (A H^H H)_kk summed instead, as the CPU reference (linear_ref.cc) does.
        real gain = real(1);
        if (mmse) {
            gain = real(1) - n0 * akk;
            if (!(gain > real(core::mmse_gain_exact_below))) {
                gain = 0;
                for (int j = 0; j < nt; j++) {
                    cplx<real> gjk{ 0, 0 }; // (H^H H)_jk
                    for (int r = 0; r < nr; r++)
                        gjk = gjk + conj_mul(from_float2<real>(h[r * nt + j]),
                                             from_float2<real>(h[r * nt + k]));
                    gain += (inv[k][j] * gjk).re;
                }
            }
            gain = fmin(fmax(gain, smallest_normal<real>()), real(1));
        }
        w.gain[c * nt + k] = gain;
        w.var[c * nt + k] = fmax(n0 * akk / gain, smallest_normal<real>());
    }
}

template <typename real>
__global__ void linear_kernel(chunk_args a, linear_workspace<real> w)
{
    const std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (idx >= a.n * a.nt)
        return;
    const std::size_t v = idx / a.nt;
    const int k = int(idx % a.nt);
    const std::size_t c = channel_of(a, v);
    const int nr = a.nr, m = a.m;
    cplx<real> x{ 0, 0 };
    for (int r = 0; r < nr; r++)
        x = x + w.w[(c * a.nt + k) * nr + r] * from_float2<real>(a.y[v * nr + r]);
    const real gain = w.gain[c * a.nt + k], var = w.var[c * a.nt + k];
    x = { x.re / gain, x.im / gain };
    real min0[8], min1[8];
#pragma unroll
    for (int b = 0; b < 8; b++) {
        min0[b] = INFINITY;
        min1[b] = INFINITY;
    }
    for (int q = 0; q < (1 << m); q++) {
        const real d = norm2(x - point_of<real>(a, q));
#pragma unroll
        for (int b = 0; b < 8; b++)
            if (b < m) {
                if ((q >> (m - 1 - b)) & 1)
                    min1[b] = fmin(min1[b], d);
                else
                    min0[b] = fmin(min0[b], d);
            }
    }
    float* out = a.llr + v * std::size_t(a.nt * m) + k * m;
#pragma unroll
    for (int b = 0; b < 8; b++)
        if (b < m)
            out[b] = core::saturate_llr((min0[b] - min1[b]) / var); // finite for any N0
}

template <typename real>
void launch(const chunk_args& a, bool mmse, void* ws, cudaStream_t s)
{
    const linear_workspace<real> w = carve<real>(ws, a.nch, a.nt, a.nr);
    const int t1 = 64;
    linear_prep_kernel<real><<<unsigned((a.nch + t1 - 1) / t1), t1, 0, s>>>(a, mmse, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("linear_prep_kernel");
    const int t2 = 128;
    const std::size_t jobs = a.n * a.nt;
    linear_kernel<real><<<unsigned((jobs + t2 - 1) / t2), t2, 0, s>>>(a, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("linear_kernel");
}

} // namespace

std::size_t linear_workspace_bytes(int nt, int nr, bool dbl)
{
    const std::size_t r = dbl ? sizeof(double) : sizeof(float);
    return std::size_t(nt) * nr * 2 * r + 2 * std::size_t(nt) * r;
}

void launch_linear(const chunk_args& a, bool mmse, void* ws, bool dbl, cudaStream_t s)
{
    if (a.n == 0)
        return;
    if (dbl)
        launch<double>(a, mmse, ws, s);
    else
        launch<float>(a, mmse, ws, s);
}

// The registry's GPU entries of zf and mmse.
namespace {
std::size_t linear_ws(int nt, int nr, const core::detector_params&, bool dbl)
{
    return linear_workspace_bytes(nt, nr, dbl);
}
} // namespace

const gpu_detector_entry& zf_gpu_detector()
{
    static const gpu_detector_entry e{
        supported, linear_ws, no_plan, [](const gpu_launch& l, cudaStream_t s) {
            launch_linear(l.a, false, l.ws, l.dbl, s);
        } };
    return e;
}

const gpu_detector_entry& mmse_gpu_detector()
{
    static const gpu_detector_entry e{
        supported, linear_ws, no_plan, [](const gpu_launch& l, cudaStream_t s) {
            launch_linear(l.a, true, l.ws, l.dbl, s);
        } };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
