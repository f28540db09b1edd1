/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * channel_smoother on the device (core/frame/estimation/gpu_channel_smoother.h), the same model as
 * the CPU reference (lib/core/frame/estimation/channel_smoother.cc), computed another way: the
 * delay-domain taps g = F^H H_ls / U in double; the flat profile's system T + (n0 / p) I
 * through T = F^H F's eigendecomposition (cuSOLVER, once: no per-frame factorisation);
 * for lmmse the profile those taps show and the system over the kept taps only,
 * inverted by Gauss-Jordan in double (positive definite: no pivoting); the error
 * variance per carrier; then the taps back to the carriers in float, and what the model
 * missed from the residual (smoothing_mismatch) added to the noise. The transforms
 * between carriers and taps and the flat fit's products with V are matrix products of
 * every frame and channel at once (cuBLAS: ZGEMM in double, CGEMM in float, no TF32);
 * hand-written, one block per channel walking a table, they were two thirds of the
 * fused receiver's GPU time (docs/performance.md).
 *
 * Device layouts (F frames, P = rx * tx channels, L taps, U carriers):
 *   h, hs  [frame][carrier][P]       hd: h in double
 *   g      [frame][P][L] (double)    taps (float)
 *   z, fit [frame][P][L] (double)    A       [frame][kept][kept] (double, at most L x L)
 *   err    [frame][carrier]          Fc: conj(F) [carrier][tap] (double)
 */
#include "common/cublas_check.cuh"
#include "common/cuda_check.cuh"
#include "detail/gpu_engines.h"
#include "common/device_memory.cuh"
#include "common/gpu_math.cuh"

#include <cusolverDn.h>

#include <gnuradio/gpumimo/core/frame/estimation/gpu_channel_smoother.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;
using gc::cplx;

namespace {

constexpr int kThreads = 256;
// A block per frame reducing all of its carriers (mismatch_kernel): a whole block of
// threads, since such kernels have only as many blocks as frames.
constexpr int kFrameThreads = 1024;
using cd = cplx<double>;

__device__ inline cd load(const double2* p) { return { p->x, p->y }; }

// h in double (hd, the same layout) for the taps' product, and each channel's power
// for the flat profile, power[f][p]: a block per (frame, channel). The taps are summed
// in double because lmmse extrapolates them to the band's edge carriers, where a float
// sum's rounding showed as 8e-4 on H at 30 dB (H100).
__global__ void widen_kernel(const float2* h, int U, int P, double2* hd, double* power)
{
    __shared__ double pw[256];
    const int f = blockIdx.x / P, p = blockIdx.x % P;
    double mine = 0;
    for (int c = threadIdx.x; c < U; c += blockDim.x) {
        const std::size_t i = (std::size_t(f) * U + c) * P + p;
        const float2 v = h[i];
        hd[i] = make_double2(v.x, v.y);
        mine += double(v.x) * v.x + double(v.y) * v.y;
    }
    pw[threadIdx.x] = mine;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (int(threadIdx.x) < k)
            pw[threadIdx.x] += pw[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        power[blockIdx.x] = pw[0];
}

// The flat profile's lam = n0 / p for frame f from its columns' powers (the entries'
// mean power less the noise, at least the noise, spread over the window).
__device__ inline double flat_lambda(const double* power, int f, int U, int P, int L, double n0)
{
    double total = 0;
    for (int p = 0; p < P; p++)
        total += power[std::size_t(f) * P + p];
    return n0 / (fmax(total / (double(U) * P) - n0, n0) / L);
}

// The flat-profile fit's middle step: z = V^H g (a product before) scaled to
// diag(U / (lambda + lam)) V^H g, lam the frame's; fit = V z follows. A frame whose n0
// is unusable is left alone (smooth_kernel does not smooth it).
__global__ void flat_scale_kernel(const double* power,
                                  const float* n0_all,
                                  double ratio,
                                  const double* lambda,
                                  int L,
                                  int U,
                                  int P,
                                  int frames,
                                  double2* z)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(frames) * P * L)
        return;
    const int m = int(i % L), f = int(i / (std::size_t(P) * L));
    const double n0 = double(n0_all[f]) * ratio;
    if (!(n0 > 0) || !isfinite(n0))
        return;
    const double w = U / (lambda[m] + flat_lambda(power, f, U, P, L, n0));
    z[i] = make_double2(w * z[i].x, w * z[i].y);
}

// Whether a frame can be smoothed: n0 finite and > 0, its taps finite.
__device__ bool smoothable(const double2* g, float n0, int P, int L)
{
    __shared__ int bad;
    if (threadIdx.x == 0)
        bad = !(isfinite(n0) && n0 > 0);
    __syncthreads();
    for (int i = threadIdx.x; i < P * L; i += blockDim.x)
        if (!isfinite(g[i].x) || !isfinite(g[i].y))
            bad = 1;
    __syncthreads();
    return !bad;
}

// A (n x n, Hermitian positive definite, row-major) inverted in place by Gauss-Jordan
// (after step k row k is divided by the pivot and column k eliminated elsewhere, the
// inverse building up in the columns already passed); col: n values of shared memory.
// Every thread of the block calls it.
__device__ void invert_in_place(double2* A, int n, double2* col)
{
    for (int k = 0; k < n; k++) {
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            col[i] = A[std::size_t(i) * n + k];
        __syncthreads();
        const cd piv = load(&col[k]);
        const double pn = piv.re * piv.re + piv.im * piv.im;
        const cd inv = { piv.re / pn, -piv.im / pn };
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const cd a = j == k ? cd{ 1, 0 } : load(&A[std::size_t(k) * n + j]);
            const cd r = inv * a;
            A[std::size_t(k) * n + j] = make_double2(r.re, r.im);
        }
        __syncthreads();
        for (int idx = threadIdx.x; idx < n * n; idx += blockDim.x) {
            const int i = idx / n, j = idx % n;
            if (i == k)
                continue;
            const cd a = j == k ? cd{ 0, 0 } : load(&A[idx]);
            const cd r = a - load(&col[i]) * load(&A[std::size_t(k) * n + j]);
            A[idx] = make_double2(r.re, r.im);
        }
        __syncthreads();
    }
}

// The a-th kept tap of one channel, U (G^-1 g)[a], G^-1 (K x K, over the kept taps) in A
// and g that channel's delay-domain taps [L]: the lmmse solve's taps, in double.
__device__ inline cd kept_tap(const double2* A, int K, const int* kept, const double2* g, int a, int U)
{
    cd s = { 0, 0 };
    for (int b = 0; b < K; b++)
        s = s + load(&A[std::size_t(a) * K + b]) * load(&g[kept[b]]);
    return { U * s.re, U * s.im };
}

// The smoother's fixed parts on the device.
struct smoother_tables {
    const double2* gram;    // T = F^H F, [L][L]
    const double2* V;       // its eigenvectors, V[i][m] (tap i, eigenvector m)
    const double2* VT;      // the same transposed, VT[m][i]: threads over i read it coalesced
    const double* lambda;   // its eigenvalues
    const double* wc;       // dft: |(V^H f_c)_m|^2, [U][L]
    const double2* phasors; // [U]: e^{2 pi i k_c delta / N} at delta = -(L - 1)
    const int* freq;        // [U]: k_c
    int N;
};

// dft and lmmse, a block per frame, after the flat fit (fit = V z). The flat profile p (the
// entries' mean power less the noise, at least the noise, over the window) makes
// G1 = T + (n0 / p) I, with the eigenvectors of T: its inverse needs no per-frame
// factorisation, and the flat fit's taps U V diag(1 / (lambda + n0 / p)) V^H g are
// dft's estimate, its error n0 f_c^H G1^-1 f_c = n0 sum_m wc[c][m] / (lambda_m + n0 / p).
// lmmse then takes the profile those taps show (each tap's power less twice its noise,
// n0 G1^-1[j][j]) and solves G = T + n0 P^-1 over the taps it keeps only (the others
// have no prior power: zero), by Gauss-Jordan in double, adds the taps the residual
// shows and solves again if it added any; its error from G^-1's diagonal sums. G (then
// G^-1) lives in shared memory when its K x K fit the room set
// aside (kcap x kcap; Gauss-Jordan's K steps each read and write all of it), else in A,
// [L][L] of the frame in global memory. Shared memory besides: the profile, G1^-1's
// diagonal and its partial sums, the kept taps, one pivot column and the diagonal sums.
__global__ void __launch_bounds__(1024) smooth_kernel(const double* power_all,
                                                      const double2* g_all,
                                                      const float* n0_all,
                                                      double ratio, // the LS error variance over N0
                                                      bool flat,
                                                      smoother_tables t,
                                                      int L,
                                                      int U,
                                                      int P,
                                                      int kcap,
                                                      double2* A_all,
                                                      double2* fit_all,
                                                      float2* taps_all,
                                                      float* err_all)
{
    extern __shared__ double2 shared[];
    double2* A_shared = shared;                                   // [kcap][kcap]
    double2* col = shared + std::size_t(kcap) * kcap;             // [L]
    double2* sums = col + L;                                      // [2L - 1]
    double* pdp = reinterpret_cast<double*>(sums + 2 * L - 1);    // [L]
    double* d1 = pdp + L;                                         // [L]
    double* part = d1 + L;                                        // [max(L, blockDim.x)]
    int* kept = reinterpret_cast<int*>(part + max(L, int(blockDim.x))); // [L]
    __shared__ int nk;
    const int f = blockIdx.x;
    const double2* g = g_all + std::size_t(f) * P * L;
    float2* taps = taps_all + std::size_t(f) * P * L;
    double2* fit = fit_all + std::size_t(f) * P * L;
    double2* A = A_all + std::size_t(f) * L * L; // unless K fits A_shared (below)
    float* err = err_all + std::size_t(f) * U;
    const double n0 = double(n0_all[f]) * ratio; // the LS estimates' error variance
    if (!smoothable(g, n0_all[f], P, L)) { // left as least squares, err n0 / tx later
        for (int c = threadIdx.x; c < U; c += blockDim.x)
            err[c] = -1; // marks "not smoothed": the reconstruction leaves h as it is
        return;
    }
    const double lam = flat_lambda(power_all, f, U, P, L, n0); // the flat fit's
    if (flat) {
        for (int c = threadIdx.x; c < U; c += blockDim.x) {
            double e = 0;
            for (int m = 0; m < L; m++)
                e += t.wc[std::size_t(c) * L + m] / (t.lambda[m] + lam);
            err[c] = float(n0 * e);
        }
        __syncthreads();
        for (int i = threadIdx.x; i < P * L; i += blockDim.x)
            taps[i] = make_float2(float(fit[i].x), float(fit[i].y));
        return;
    }
    // G1^-1's diagonal, d1[j] = sum_m |V[j][m]|^2 / (lambda_m + lam): every thread on a
    // slice of the m's of one j (a j per thread, L of them, left most of the block idle
    // walking the table), the slices then added.
    const int slices = max(1, int(blockDim.x) / L);
    for (int idx = threadIdx.x; idx < slices * L; idx += blockDim.x) {
        const int j = idx % L, s = idx / L;
        double d = 0;
        for (int m = s; m < L; m += slices) {
            const cd v = load(&t.VT[std::size_t(m) * L + j]);
            d += (v.re * v.re + v.im * v.im) / (t.lambda[m] + lam);
        }
        part[idx] = d;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < L; j += blockDim.x) {
        double d = 0;
        for (int s = 0; s < slices; s++)
            d += part[std::size_t(s) * L + j];
        d1[j] = d;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < L; j += blockDim.x) {
        double pw = 0;
        for (int p = 0; p < P; p++) {
            const cd v = load(&fit[std::size_t(p) * L + j]);
            pw += v.re * v.re + v.im * v.im;
        }
        pdp[j] = fmax(pw / P - 2 * n0 * d1[j], 0.0);
    }
    __syncthreads();
    // Two passes at most: the profile's taps solved; then the residual's view, g_r = g -
    // T fit / U (fit: the first pass's taps, in double), adds the taps it shows clearly
    // above their noise n0 / U (channel_smoother::add_missed_taps, the CPU's), and if it
    // added any, the system is solved again over the new kept set.
    __shared__ int added;
    double2* const A_global = A;
    int K = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (threadIdx.x == 0) { // the kept taps, ascending
            int n = 0;
            for (int j = 0; j < L; j++)
                if (pdp[j] > 0)
                    kept[n++] = j;
            nk = n;
            added = 0;
        }
        __syncthreads();
        K = nk;
        A = K <= kcap ? A_shared : A_global;
        for (int idx = threadIdx.x; idx < K * K; idx += blockDim.x) {
            const int a = idx / K, b = idx % K;
            double2 v = t.gram[std::size_t(kept[a]) * L + kept[b]];
            if (a == b)
                v.x += n0 / pdp[kept[a]];
            A[idx] = v;
        }
        __syncthreads();
        invert_in_place(A, K, col);
        if (pass == 1)
            break;
        // The first pass's taps, U G^-1 g over the kept taps, into fit (its flat taps
        // are no longer needed), 0 elsewhere.
        for (int idx = threadIdx.x; idx < P * L; idx += blockDim.x)
            fit[idx] = make_double2(0, 0);
        __syncthreads();
        for (int idx = threadIdx.x; idx < P * K; idx += blockDim.x) {
            const int p = idx / K, a = idx % K;
            const cd v = kept_tap(A, K, kept, g + std::size_t(p) * L, a, U);
            fit[std::size_t(p) * L + kept[a]] = make_double2(v.re, v.im);
        }
        __syncthreads();
        const double threshold = missed_tap_threshold(P) * n0 / U;
        for (int j = threadIdx.x; j < L; j += blockDim.x) {
            double q = 0;
            for (int p = 0; p < P; p++) {
                cd s = { 0, 0 };
                for (int a = 0; a < K; a++)
                    s = s + load(&t.gram[std::size_t(j) * L + kept[a]]) *
                                load(&fit[std::size_t(p) * L + kept[a]]);
                const cd r = load(&g[std::size_t(p) * L + j]) - cd{ s.re / U, s.im / U };
                q += r.re * r.re + r.im * r.im;
            }
            const double extra = q / P - threshold;
            if (extra > 0) {
                pdp[j] += extra;
                atomicOr(&added, 1);
            }
        }
        __syncthreads();
        if (!added) // the same for every thread: read after the barrier
            break;
        __syncthreads(); // every thread has read `added` before thread 0 resets it
    }
    // taps = U G^-1 g over the kept taps, 0 elsewhere.
    for (int idx = threadIdx.x; idx < P * L; idx += blockDim.x)
        taps[idx] = make_float2(0, 0);
    __syncthreads();
    for (int idx = threadIdx.x; idx < P * K; idx += blockDim.x) {
        const int p = idx / K, a = idx % K;
        const cd v = kept_tap(A, K, kept, g + std::size_t(p) * L, a, U);
        taps[std::size_t(p) * L + kept[a]] = make_float2(float(v.re), float(v.im));
    }
    // G^-1's sums along each delay difference, then n0 sum_delta s_delta e^{...}.
    for (int dl = threadIdx.x; dl < 2 * L - 1; dl += blockDim.x)
        sums[dl] = make_double2(0, 0);
    __syncthreads();
    for (int idx = threadIdx.x; idx < K * K; idx += blockDim.x) {
        const int a = idx / K, b = idx % K;
        const double2 v = A[idx];
        double2* to = &sums[kept[a] - kept[b] + L - 1];
        atomicAdd(&to->x, v.x);
        atomicAdd(&to->y, v.y);
    }
    __syncthreads();
    // e^{2 pi i k_c delta / N} by recurrence from delta = -(L - 1): one sincospi per
    // carrier instead of a table read per term (the table was 7 MB per frame at lte20,
    // read by one SM).
    for (int c = threadIdx.x; c < U; c += blockDim.x) {
        double e = 0;
        double sn, cs;
        sincospi(2.0 * double(t.freq[c]) / t.N, &sn, &cs);
        const cd step = { cs, sn };
        const double2 w0 = t.phasors[c]; // delta = -(L - 1)
        cd w = { w0.x, w0.y };
        for (int dl = 0; dl < 2 * L - 1; dl++) {
            const cd sv = load(&sums[dl]);
            e += sv.re * w.re - sv.im * w.im;
            w = w * step;
        }
        err[c] = float(n0 * fmax(e, 0.0));
    }
}

// After hs[f][c][p] = sum_j F[c][j] taps[f][p][j] (a product before): h = hs;
// noise_eff[f][c] = n0 + tx err[f][c] (the model's part; mismatch_kernel adds the rest);
// residual[f][c][p] = |H_ls - H|^2. A frame marked not smoothable keeps its
// least-squares h and gets n0.
__global__ void reconstruct_kernel(const float2* hs,
                                   const float* err_all,
                                   const float* n0_all,
                                   int U,
                                   int P,
                                   int tx,
                                   int frames,
                                   float2* h,
                                   float* noise_eff,
                                   float* residual)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= std::size_t(frames) * U * P)
        return;
    const int p = int(i % P), c = int((i / P) % U), f = int(i / (std::size_t(P) * U));
    const float e = err_all[std::size_t(f) * U + c];
    if (p == 0)
        noise_eff[std::size_t(f) * U + c] = e < 0 ? n0_all[f] : n0_all[f] + float(tx) * e;
    if (e < 0)
        return;
    const float2 s = hs[i], ls = h[i];
    const double dr = double(ls.x) - double(s.x), di = double(ls.y) - double(s.y);
    residual[i] = float(dr * dr + di * di);
    h[i] = s;
}

// What the model missed (smoothing_mismatch, channel_smoother.h), a block per frame:
// the residual's power over the channels and the model's error summed over the
// carriers, then tx times the mismatch added to every carrier's noise_eff.
__global__ void mismatch_kernel(const float* residual_all,
                                const float* err_all,
                                const float* n0_all,
                                double ratio,
                                double noise_samples,
                                int U,
                                int P,
                                int tx,
                                float* noise_eff)
{
    __shared__ double part[2][kFrameThreads];
    __shared__ double add;
    const int f = blockIdx.x;
    const float* err = err_all + std::size_t(f) * U;
    if (err[0] < 0) // not smoothed (reconstruct_kernel): least squares, nothing missed
        return;
    const double n0 = double(n0_all[f]) * ratio;
    const float* residual = residual_all + std::size_t(f) * U * P;
    double r = 0, e = 0;
    for (int i = threadIdx.x; i < U * P; i += blockDim.x)
        r += residual[i];
    for (int c = threadIdx.x; c < U; c += blockDim.x)
        e += double(err[c]) / n0;
    part[0][threadIdx.x] = r;
    part[1][threadIdx.x] = e;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (int(threadIdx.x) < half) {
            part[0][threadIdx.x] += part[0][threadIdx.x + half];
            part[1][threadIdx.x] += part[1][threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        add = double(tx) * smoothing_mismatch(part[0][0] / P, n0, U, part[1][0], P, noise_samples);
    __syncthreads();
    if (add > 0)
        for (int c = threadIdx.x; c < U; c += blockDim.x)
            noise_eff[std::size_t(f) * U + c] += float(add);
}

// ls: noise_eff = n0 (1 + tx ratio), h unchanged.
__global__ void ls_noise_kernel(const float* n0_all, float ratio, int U, int tx, int frames, float* noise_eff)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < std::size_t(frames) * U)
        noise_eff[i] = n0_all[i / U] * (1.0f + float(tx) * ratio);
}

cuDoubleComplex* as_z(double2* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
cuComplex* as_c(float2* p) { return reinterpret_cast<cuComplex*>(p); }

unsigned blocks_for(std::size_t n)
{
    return unsigned((n + kThreads - 1) / kThreads);
}

} // namespace

struct gpu_channel_smoother::impl {
    channel_smoother reference; // the fixed parts: window, gram
    int rx, tx, P, L, U, N, first;
    std::size_t max_frames;
    int device;
    double ratio; // the LS estimates' error variance over N0
    double noise_samples; // how many samples' mean power N0 is (0: exact)
    gc::device_buffer<float2> twiddles, taps, hs; // twiddles: F [carrier][tap]
    gc::device_buffer<double2> g, hd, z, Fc;
    std::unique_ptr<gc::cublas_handle> blas;
    gc::device_buffer<double2> gram, phasors, V, VT, A, fit; // phasors [carrier]
    gc::device_buffer<double> power; // [frame][channel]
    gc::device_buffer<double> lambda, wc;
    gc::device_buffer<int> freq;
    gc::device_buffer<float> err, residual; // residual [frame][carrier][P]
    // smooth()'s device copies and stream (the host form: mimo_chanest's GPU path)
    gc::device_buffer<float2> h_dev;
    gc::device_buffer<float> n0_dev, eff_dev;
    std::unique_ptr<gc::stream> host_stream;

    impl(const numerology& num,
         channel_estimator method,
         int rx_,
         int tx_,
         std::size_t frames,
         int dev,
         double ls_error_ratio,
         double noise_samples_)
        : reference(num, method),
          rx(rx_),
          tx(tx_),
          P(rx_ * tx_),
          L(reference.window().taps),
          U(num.used_carriers),
          N(num.fft_len),
          first(reference.window().first),
          max_frames(frames),
          device(dev),
          ratio(ls_error_ratio),
          noise_samples(noise_samples_)
    {
        if (!(ratio > 0) || !std::isfinite(ratio))
            throw std::invalid_argument("gpu_channel_smoother: ls_error_ratio must be finite and > 0");
        if (rx < 1 || tx < 1 || frames < 1)
            throw std::invalid_argument("gpu_channel_smoother: rx, tx and max_frames must be >= 1");
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        // The tables the kernels read instead of reducing k_c d mod N per product.
        std::vector<float2> tw(std::size_t(U) * L);
        std::vector<double2> ph(static_cast<std::size_t>(U));
        std::vector<int> k(static_cast<std::size_t>(U));
        const std::vector<int> used = num.carriers();
        for (int c = 0; c < U; c++) {
            for (int j = 0; j < L; j++) {
                const std::complex<double> w = reference.twiddle(c, j);
                tw[std::size_t(c) * L + j] = make_float2(float(w.real()), float(w.imag()));
            }
            const std::complex<double> w = reference.delay_phasor(c, -(L - 1));
            ph[std::size_t(c)] = make_double2(w.real(), w.imag());
            k[std::size_t(c)] = used[std::size_t(c)] - N / 2;
        }
        twiddles = gc::upload(tw);
        if (method != channel_estimator::ls) { // conj(F) in double, for the taps' product
            std::vector<double2> fc(tw.size());
            for (int c = 0; c < U; c++)
                for (int j = 0; j < L; j++) {
                    const std::complex<double> w = reference.twiddle(c, j);
                    fc[std::size_t(c) * L + j] = make_double2(w.real(), -w.imag());
                }
            Fc = gc::upload(fc);
        }
        phasors = gc::upload(ph);
        freq = gc::upload(k);
        std::vector<double2> gm;
        for (const std::complex<double>& v : reference.gram())
            gm.push_back(make_double2(v.real(), v.imag()));
        gram = gc::upload(gm);
        g = gc::device_buffer<double2>(frames * P * L);
        taps = gc::device_buffer<float2>(frames * P * L);
        err = gc::device_buffer<float>(frames * U);
        if (method != channel_estimator::ls)
            residual = gc::device_buffer<float>(frames * U * P);
        if (method != channel_estimator::ls) {
            A = gc::device_buffer<double2>(frames * L * L);
            power = gc::device_buffer<double>(frames * P);
            fit = gc::device_buffer<double2>(frames * P * L);
            z = gc::device_buffer<double2>(frames * P * L);
            hd = gc::device_buffer<double2>(frames * U * P);
            hs = gc::device_buffer<float2>(frames * U * P);
            blas = std::make_unique<gc::cublas_handle>();
            eigen(gm, method);
        }
        h_dev = gc::device_buffer<float2>(frames * U * P);
        n0_dev = gc::device_buffer<float>(frames);
        eff_dev = gc::device_buffer<float>(frames * U);
        host_stream = std::make_unique<gc::stream>();
        // The room left in a block's shared memory holds G for up to kcap kept taps.
        int optin = 0;
        GPUMIMO_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        const std::size_t room = std::size_t(optin) > base_shared_bytes() ? optin - base_shared_bytes() : 0;
        if (method == channel_estimator::lmmse) // only lmmse solves a system
            kcap = int(std::min<double>(L, std::floor(std::sqrt(double(room / sizeof(double2))))));
        if (shared_bytes() > 48 * 1024)
            GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
                smooth_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes())));
    }

    static constexpr int smooth_threads = 1024;
    int kcap = 0; // the largest kept-tap count whose G fits shared memory

    // smooth_kernel's shared memory without G: the pivot column, the diagonal sums, the
    // profile, G1^-1's diagonal and its partial sums, the kept taps.
    std::size_t base_shared_bytes() const
    {
        return (3 * std::size_t(L) - 1) * sizeof(double2) + 2 * L * sizeof(double) +
               std::max(L, smooth_threads) * sizeof(double) + L * sizeof(int);
    }
    std::size_t shared_bytes() const
    {
        return std::size_t(kcap) * kcap * sizeof(double2) + base_shared_bytes();
    }

    // T = F^H F = V diag(lambda) V^H by cuSOLVER (once), and for dft the table
    // wc[c][m] = |(V^H f_c)_m|^2 of its error.
    void eigen(const std::vector<double2>& gm, channel_estimator method)
    {
        std::vector<double2> colmajor(gm.size());
        for (int i = 0; i < L; i++)
            for (int j = 0; j < L; j++)
                colmajor[std::size_t(j) * L + i] = gm[std::size_t(i) * L + j];
        gc::device_buffer<double2> a = gc::upload(colmajor);
        gc::device_buffer<double> w{ std::size_t(L) };
        gc::device_buffer<int> info(1);
        cusolverDnHandle_t handle = nullptr;
        auto check = [&](cusolverStatus_t st, const char* call) {
            if (st != CUSOLVER_STATUS_SUCCESS) {
                if (handle)
                    cusolverDnDestroy(handle);
                throw std::runtime_error(std::string(call) + " failed: cuSOLVER status " +
                                         std::to_string(int(st)));
            }
        };
        check(cusolverDnCreate(&handle), "cusolverDnCreate");
        int lwork = 0;
        check(cusolverDnZheevd_bufferSize(handle, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, L,
                                          reinterpret_cast<cuDoubleComplex*>(a.get()), L, w.get(), &lwork),
              "cusolverDnZheevd_bufferSize");
        gc::device_buffer<double2> work(std::size_t(std::max(1, lwork)));
        check(cusolverDnZheevd(handle, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, L,
                               reinterpret_cast<cuDoubleComplex*>(a.get()), L, w.get(),
                               reinterpret_cast<cuDoubleComplex*>(work.get()), lwork, info.get()),
              "cusolverDnZheevd");
        cusolverDnDestroy(handle);
        int ok = -1;
        GPUMIMO_CUDA_CHECK(cudaMemcpy(&ok, info.get(), sizeof(int), cudaMemcpyDeviceToHost));
        if (ok != 0)
            throw std::runtime_error("cusolverDnZheevd: info " + std::to_string(ok));
        // Column m of the column-major result is eigenvector m: V[i][m] = a[m * L + i].
        std::vector<double2> vc(std::size_t(L) * L), v(std::size_t(L) * L);
        std::vector<double> lam(static_cast<std::size_t>(L));
        GPUMIMO_CUDA_CHECK(cudaMemcpy(vc.data(), a.get(), vc.size() * sizeof(double2), cudaMemcpyDeviceToHost));
        GPUMIMO_CUDA_CHECK(cudaMemcpy(lam.data(), w.get(), lam.size() * sizeof(double), cudaMemcpyDeviceToHost));
        for (int i = 0; i < L; i++)
            for (int m = 0; m < L; m++)
                v[std::size_t(i) * L + m] = vc[std::size_t(m) * L + i];
        for (double& x : lam) // T is positive semidefinite: rounding below 0 is 0
            x = std::max(x, 0.0);
        V = gc::upload(v);
        std::vector<double2> vt(v.size());
        for (int i = 0; i < L; i++)
            for (int m = 0; m < L; m++)
                vt[std::size_t(m) * L + i] = v[std::size_t(i) * L + m];
        VT = gc::upload(vt);
        lambda = gc::upload(lam);
        std::vector<double> table(method == channel_estimator::dft ? std::size_t(U) * L : 1, 0.0);
        if (method == channel_estimator::dft)
            for (int c = 0; c < U; c++)
                for (int m = 0; m < L; m++) {
                    std::complex<double> s = 0;
                    for (int j = 0; j < L; j++) {
                        const double2 e = v[std::size_t(j) * L + m];
                        s += std::conj(std::complex<double>(e.x, e.y)) * reference.twiddle(c, j);
                    }
                    table[std::size_t(c) * L + m] = std::norm(s);
                }
        wc = gc::upload(table);
    }

    void run(float2* h, const float* n0, std::size_t frames, float* noise_eff, cudaStream_t st)
    {
        if (frames > max_frames)
            throw std::invalid_argument("gpu_channel_smoother: more frames than max_frames");
        if (frames == 0)
            return;
        const channel_estimator m = reference.method();
        if (m == channel_estimator::ls) {
            ls_noise_kernel<<<blocks_for(frames * U), kThreads, 0, st>>>(n0, float(ratio), U, tx, int(frames),
                                                                        noise_eff);
            GPUMIMO_CUDA_CHECK_LAUNCH("ls_noise_kernel");
            return;
        }
        cublasHandle_t b = blas->on(st);
        const int FP = int(frames) * P;
        // g_f = conj(F)^T-wise: g[f][p][j] = (1/U) sum_c conj(F[c][j]) h[f][c][p], frame by
        // frame in one batched product (column-major: g_f (L x P) = Fc (L x U) hd_f^T).
        widen_kernel<<<unsigned(FP), 256, 0, st>>>(h, U, P, hd.get(), power.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("widen_kernel");
        const cuDoubleComplex inv_u = { 1.0 / U, 0 }, one = { 1, 0 }, zero = { 0, 0 };
        GPUMIMO_CUBLAS_CHECK(cublasZgemmStridedBatched(
            b, CUBLAS_OP_N, CUBLAS_OP_T, L, P, U, &inv_u, as_z(Fc.get()), L, 0, as_z(hd.get()), P,
            (long long)U * P, &zero, as_z(g.get()), L, (long long)P * L, int(frames)));
        // The flat fit: z = V^H g for every frame and channel at once (VT read column-major
        // is V), scaled per frame, then fit = V z (V read column-major is V^T).
        GPUMIMO_CUBLAS_CHECK(cublasZgemm(b, CUBLAS_OP_C, CUBLAS_OP_N, L, FP, L, &one, as_z(VT.get()), L,
                                         as_z(g.get()), L, &zero, as_z(z.get()), L));
        flat_scale_kernel<<<blocks_for(std::size_t(FP) * L), kThreads, 0, st>>>(
            power.get(), n0, ratio, lambda.get(), L, U, P, int(frames), z.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("flat_scale_kernel");
        GPUMIMO_CUBLAS_CHECK(cublasZgemm(b, CUBLAS_OP_T, CUBLAS_OP_N, L, FP, L, &one, as_z(V.get()), L,
                                         as_z(z.get()), L, &zero, as_z(fit.get()), L));
        const smoother_tables t{ gram.get(), V.get(), VT.get(), lambda.get(), wc.get(), phasors.get(), freq.get(), N };
        smooth_kernel<<<unsigned(frames), smooth_threads, shared_bytes(), st>>>(
            power.get(), g.get(), n0, ratio, m == channel_estimator::dft, t, L, U, P, kcap, A.get(), fit.get(),
            taps.get(), err.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("smooth_kernel");
        // hs_f (P x U column-major: [c][p]) = taps_f^T (P x L) F^T-wise (F read
        // column-major, L x U), frame by frame in one batched product, in float.
        const cuComplex onef = { 1, 0 }, zerof = { 0, 0 };
        GPUMIMO_CUBLAS_CHECK(cublasCgemmStridedBatched(
            b, CUBLAS_OP_T, CUBLAS_OP_N, P, U, L, &onef, as_c(taps.get()), L, (long long)P * L,
            as_c(twiddles.get()), L, 0, &zerof, as_c(hs.get()), P, (long long)U * P, int(frames)));
        reconstruct_kernel<<<blocks_for(frames * U * P), kThreads, 0, st>>>(
            hs.get(), err.get(), n0, U, P, tx, int(frames), h, noise_eff, residual.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("reconstruct_kernel");
        mismatch_kernel<<<unsigned(frames), kFrameThreads, 0, st>>>(residual.get(), err.get(), n0, ratio, noise_samples, U, P, tx,
                                                             noise_eff);
        GPUMIMO_CUDA_CHECK_LAUNCH("mismatch_kernel");
    }
};

gpu_channel_smoother::gpu_channel_smoother(const numerology& num,
                                           channel_estimator method,
                                           int rx,
                                           int tx,
                                           std::size_t max_frames,
                                           int device,
                                           double ls_error_ratio,
                                           double noise_samples)
    : d_impl(std::make_unique<impl>(num, method, rx, tx, max_frames, device, ls_error_ratio, noise_samples))
{
}
gpu_channel_smoother::~gpu_channel_smoother() = default;
channel_estimator gpu_channel_smoother::method() const { return d_impl->reference.method(); }

void gpu_channel_smoother::smooth_device(std::complex<float>* h,
                                         const float* n0,
                                         std::size_t frames,
                                         float* noise_eff,
                                         void* stream)
{
    d_impl->run(reinterpret_cast<float2*>(h), n0, frames, noise_eff, static_cast<cudaStream_t>(stream));
}

void gpu_channel_smoother::smooth(std::complex<float>* h,
                                  const float* n0,
                                  std::size_t frames,
                                  float* noise_eff)
{
    impl& m = *d_impl;
    if (frames > m.max_frames)
        throw std::invalid_argument("gpu_channel_smoother: more frames than max_frames");
    const gc::device_guard keep;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(m.device));
    const std::size_t nh = frames * m.U * m.P, ne = frames * m.U;
    const cudaStream_t st = m.host_stream->get();
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(m.h_dev.get(), h, nh * sizeof(float2), cudaMemcpyHostToDevice, st));
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(m.n0_dev.get(), n0, frames * sizeof(float), cudaMemcpyHostToDevice, st));
    // Poisoned: a value the kernels fail to write shows.
    GPUMIMO_CUDA_CHECK(cudaMemsetAsync(m.eff_dev.get(), 0xff, ne * sizeof(float), st));
    m.run(m.h_dev.get(), m.n0_dev.get(), frames, m.eff_dev.get(), st);
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(h, m.h_dev.get(), nh * sizeof(float2), cudaMemcpyDeviceToHost, st));
    GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(noise_eff, m.eff_dev.get(), ne * sizeof(float), cudaMemcpyDeviceToHost, st));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
}

namespace {
// gpu_channel_smoother as the smoothing factory's GPU engine: one frame a call, from and
// to host memory; its effective noise N0 + tx e_c turned back into e_c.
class gpu_smoothing : public smoothing_engine
{
public:
    gpu_smoothing(const numerology& num,
                  channel_estimator method,
                  int rx,
                  int tx,
                  double n0_samples,
                  std::size_t max_frames,
                  int device)
        : d_gpu(num, method, rx, tx, max_frames, device, 1.0 / tx, n0_samples),
          d_method(method),
          d_rx(rx),
          d_tx(tx),
          d_max_frames(max_frames),
          d_carriers(std::size_t(num.used_carriers)),
          d_h(max_frames * d_carriers * rx * tx),
          d_noise(max_frames),
          d_eff(max_frames * d_carriers)
    {
    }
    const char* backend() const override { return "cuda"; }
    channel_estimator method() const override { return d_method; }
    int carriers() const override { return int(d_carriers); }
    std::size_t max_frames() const override { return d_max_frames; }
    void smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var) override
    {
        smooth_frames(&h, &n0, &error_var, 1, rx, tx);
    }
    void smooth_frames(std::complex<float>* const* h,
                       const double* n0,
                       float* const* error_var,
                       std::size_t frames,
                       int rx,
                       int tx) override
    {
        detail::check_smoothing_shape(rx, tx, d_rx, d_tx);
        detail::check_smoothing_frames(frames, d_max_frames);
        // One frame's estimates are smoothed in place; several are gathered into one
        // block (allocated at construction) for the smoother's single copy each way.
        const std::size_t values = d_carriers * std::size_t(rx) * tx;
        std::complex<float>* block = h[0];
        if (frames > 1) {
            block = d_h.data();
            for (std::size_t f = 0; f < frames; f++)
                std::copy_n(h[f], values, d_h.begin() + f * values);
        }
        for (std::size_t f = 0; f < frames; f++)
            d_noise[f] = float(n0[f] * tx); // the frame's N0; n0 is the LS estimates' error
        d_gpu.smooth(block, d_noise.data(), frames, d_eff.data());
        for (std::size_t f = 0; f < frames; f++) {
            if (frames > 1)
                std::copy_n(d_h.begin() + f * values, values, h[f]);
            const float* eff = d_eff.data() + f * d_carriers;
            for (std::size_t c = 0; c < d_carriers; c++)
                error_var[f][c] = std::max(0.0f, (eff[c] - d_noise[f]) / float(tx));
        }
    }

private:
    gpu_channel_smoother d_gpu;
    const channel_estimator d_method;
    const int d_rx, d_tx;
    const std::size_t d_max_frames, d_carriers;
    std::vector<std::complex<float>> d_h; // several frames' estimates, gathered
    std::vector<float> d_noise, d_eff;
};
} // namespace

namespace detail {
std::unique_ptr<smoothing_engine> make_gpu_smoothing_engine(const numerology& num,
                                                            channel_estimator method,
                                                            int rx,
                                                            int tx,
                                                            double n0_samples,
                                                            std::size_t max_frames,
                                                            int device,
                                                            std::string*)
{
    return std::make_unique<gpu_smoothing>(num, method, rx, tx, n0_samples, max_frames, device);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
