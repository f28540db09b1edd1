/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ZF and MMSE on the GPU, the algorithm of lib/core/detect/references/linear_ref.cc: one thread per channel
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

#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

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

// NT, the streams, at compile time: the matrices sized and their loops unrolled, so
// that they live in registers (with the run-time nt and kMaxNt-sized arrays the pivot's
// row swap indexed them at run time and put them in local memory: 37 us of 157 a frame
// of the stream receiver with time tracking on the H200, one matrix per vector).
template <typename real, int NT>
__global__ void __launch_bounds__(32) linear_prep_kernel(chunk_args a, bool mmse, linear_workspace<real> w)
{
    const std::size_t c = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (c >= a.nch)
        return;
    const int nr = a.nr;
    const float2* h = a.h + c * nr * NT;
    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    cplx<real> g[NT][NT], inv[NT][NT];
#pragma unroll
    for (int i = 0; i < NT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) {
            cplx<real> acc{ 0, 0 };
            for (int r = 0; r < nr; r++)
                acc = acc + conj_mul(from_float2<real>(h[r * NT + i]),
                                     from_float2<real>(h[r * NT + j]));
            g[i][j] = acc;
            inv[i][j] = { real(i == j), 0 };
        }
    if (mmse)
#pragma unroll
        for (int k = 0; k < NT; k++)
            g[k][k].re += n0;
    // Gauss-Jordan with partial pivoting, as linalg::inverse (the CPU reference).
#pragma unroll
    for (int col = 0; col < NT; col++) {
        int pivot = col;
        real best = cabs(g[col][col]);
#pragma unroll
        for (int r = col + 1; r < NT; r++) {
            const real v = cabs(g[r][col]);
            if (v > best) {
                pivot = r;
                best = v;
            }
        }
#pragma unroll
        for (int r = col + 1; r < NT; r++) // the swap with compile-time rows: registers
            if (r == pivot)
#pragma unroll
                for (int cc = 0; cc < NT; cc++) {
                    cplx<real> t = g[col][cc];
                    g[col][cc] = g[r][cc];
                    g[r][cc] = t;
                    t = inv[col][cc];
                    inv[col][cc] = inv[r][cc];
                    inv[r][cc] = t;
                }
        const cplx<real> d = g[col][col];
#pragma unroll
        for (int cc = 0; cc < NT; cc++) {
            g[col][cc] = cdiv(g[col][cc], d);
            inv[col][cc] = cdiv(inv[col][cc], d);
        }
#pragma unroll
        for (int r = 0; r < NT; r++) {
            if (r == col)
                continue;
            const cplx<real> f = g[r][col];
#pragma unroll
            for (int cc = 0; cc < NT; cc++) {
                g[r][cc] = g[r][cc] - f * g[col][cc];
                inv[r][cc] = inv[r][cc] - f * inv[col][cc];
            }
        }
    }
#pragma unroll
    for (int k = 0; k < NT; k++) {
        for (int r = 0; r < nr; r++) {
            cplx<real> acc{ 0, 0 }; // W = A H^H: W[k][r] = sum_j A[k][j] conj(H[r][j])
#pragma unroll
            for (int j = 0; j < NT; j++) {
                const cplx<real> hrj = from_float2<real>(h[r * NT + j]);
                acc = acc + inv[k][j] * cplx<real>{ hrj.re, -hrj.im };
            }
            w.w[(c * NT + k) * nr + r] = acc;
        }
        const real akk = inv[k][k].re;
        // mu_k = 1 - N0 A_kk, and where that cancels (below 1e-2: an SINR below -20 dB)
        // (A H^H H)_kk summed instead, as the CPU reference (linear_ref.cc) does.
        real gain = real(1);
        if (mmse) {
            gain = real(1) - n0 * akk;
            if (!(gain > real(core::mmse_gain_exact_below))) {
                gain = 0;
#pragma unroll
                for (int j = 0; j < NT; j++) {
                    cplx<real> gjk{ 0, 0 }; // (H^H H)_jk
                    for (int r = 0; r < nr; r++)
                        gjk = gjk + conj_mul(from_float2<real>(h[r * NT + j]),
                                             from_float2<real>(h[r * NT + k]));
                    gain += (inv[k][j] * gjk).re;
                }
            }
            gain = fmin(fmax(gain, smallest_normal<real>()), real(1));
        }
        w.gain[c * NT + k] = gain;
        w.var[c * NT + k] = fmax(n0 * akk / gain, smallest_normal<real>());
    }
}

// The prep kernel for the run-time nt (1..kMaxNt).
template <typename real>
void launch_prep(const chunk_args& a, bool mmse, const linear_workspace<real>& w, cudaStream_t s)
{
    // A warp a block: a thread's matrix is a long chain of dependent steps, so the
    // kernel spreads over as many SMs as it can (a chunk's few thousand matrices in
    // blocks of 64 left most of the H200's 132 SMs to other kernels' warps).
    const int t1 = 32;
    const unsigned blocks = unsigned((a.nch + t1 - 1) / t1);
    switch (a.nt) {
    case 1: linear_prep_kernel<real, 1><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 2: linear_prep_kernel<real, 2><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 3: linear_prep_kernel<real, 3><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 4: linear_prep_kernel<real, 4><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 5: linear_prep_kernel<real, 5><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 6: linear_prep_kernel<real, 6><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 7: linear_prep_kernel<real, 7><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    case 8: linear_prep_kernel<real, 8><<<blocks, t1, 0, s>>>(a, mmse, w); break;
    default: throw std::invalid_argument("linear detector: nt must be 1 to 8");
    }
    GPUMIMO_CUDA_CHECK_LAUNCH("linear_prep_kernel");
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
    launch_prep(a, mmse, w, s);
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
