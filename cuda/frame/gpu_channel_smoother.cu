/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * channel_smoother on the device (core/frame/gpu_channel_smoother.h), the same model as
 * the CPU reference (lib/core/frame/channel_smoother.cc): the delay-domain taps
 * g = F^H H_ls / U in float, the flat profile and the L x L system G = F^H F + n0 P^-1
 * in double (for lmmse then the profile the fitted taps show, and again),
 * inverted by Gauss-Jordan (positive definite: no pivoting needed), the taps G^-1 U g
 * and the error variance n0 f_c^H G^-1 f_c from G^-1's diagonal sums; then the taps
 * back to the carriers in float.
 *
 * Device layouts (F frames, P = rx * tx channels, L taps, U carriers):
 *   h      [frame][carrier][P]       g, taps [frame][P][L]
 *   ginv   [frame][L][L] (double)    err     [frame][carrier]
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/gpu_math.cuh"

#include <gnuradio/gpumimo/core/frame/gpu_channel_smoother.h>

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
using cd = cplx<double>;
using cfl = cplx<float>;

__device__ inline cfl load(const float2* p) { return { p->x, p->y }; }
__device__ inline cd load(const double2* p) { return { p->x, p->y }; }

// g[f][p][j] = (1/U) sum_c h[f][c][p] conj(F[c][j]): a block per (frame, channel).
__global__ void taps_kernel(const float2* h, const float2* F, int L, int U, int P, float2* g)
{
    const int f = blockIdx.x / P, p = blockIdx.x % P;
    for (int j = threadIdx.x; j < L; j += blockDim.x) {
        cfl s = { 0, 0 };
        for (int c = 0; c < U; c++)
            s = s + gc::conj_mul(load(F + std::size_t(c) * L + j), load(h + (std::size_t(f) * U + c) * P + p));
        g[(std::size_t(f) * P + p) * L + j] = make_float2(s.re / U, s.im / U);
    }
}

// Whether a frame can be smoothed: n0 finite and > 0, its taps finite.
__device__ bool smoothable(const float2* g, float n0, int P, int L)
{
    __shared__ int bad;
    if (threadIdx.x == 0)
        bad = !(isfinite(n0) && n0 > 0);
    __syncthreads();
    for (int i = threadIdx.x; i < P * L; i += blockDim.x)
        if (!gc::finite2(g[i]))
            bad = 1;
    __syncthreads();
    return !bad;
}

// G = F^H F + n0 P^-1 for the profile pdp, inverted in place into A by Gauss-Jordan
// (after step k row k is divided by the pivot and column k eliminated elsewhere, the
// inverse building up in the columns already passed); col: L values of shared memory.
// Every thread of the block calls it.
__device__ void invert_system(double2* A, const double2* gram, const double* pdp, double n0, int L, double2* col)
{
    for (int i = threadIdx.x; i < L * L; i += blockDim.x) {
        double2 v = gram[i];
        if (i / L == i % L)
            v.x += n0 / pdp[i % L];
        A[i] = v;
    }
    __syncthreads();
    for (int k = 0; k < L; k++) {
        for (int i = threadIdx.x; i < L; i += blockDim.x)
            col[i] = A[std::size_t(i) * L + k];
        __syncthreads();
        const cd piv = load(&col[k]);
        const double pn = piv.re * piv.re + piv.im * piv.im;
        const cd inv = { piv.re / pn, -piv.im / pn };
        for (int j = threadIdx.x; j < L; j += blockDim.x) {
            const cd a = j == k ? cd{ 1, 0 } : load(&A[std::size_t(k) * L + j]);
            const cd r = inv * a;
            A[std::size_t(k) * L + j] = make_double2(r.re, r.im);
        }
        __syncthreads();
        for (int idx = threadIdx.x; idx < L * L; idx += blockDim.x) {
            const int i = idx / L, j = idx % L;
            if (i == k)
                continue;
            const cd a = j == k ? cd{ 0, 0 } : load(&A[idx]);
            const cd r = a - load(&col[i]) * load(&A[std::size_t(k) * L + j]);
            A[idx] = make_double2(r.re, r.im);
        }
        __syncthreads();
    }
}

// taps = U G^-1 g (double2, P x L), then a barrier.
__device__ void fit_taps(const double2* A, const float2* g, int U, int P, int L, double2* taps)
{
    for (int idx = threadIdx.x; idx < P * L; idx += blockDim.x) {
        const int p = idx / L, i = idx % L;
        cd s = { 0, 0 };
        for (int j = 0; j < L; j++) {
            const float2 v = g[std::size_t(p) * L + j];
            s = s + load(&A[std::size_t(i) * L + j]) * cd{ v.x, v.y };
        }
        taps[idx] = make_double2(U * s.re, U * s.im);
    }
    __syncthreads();
}

// dft and lmmse, a block per frame: the flat profile, G^-1, the taps; for lmmse the
// profile those taps show and again; err[c] = n0 f_c^H G^-1 f_c. Shared memory: one
// pivot column, G^-1's diagonal sums and the profile (L + 2L - 1 + L values).
__global__ void __launch_bounds__(1024) lmmse_kernel(const float2* h_all,
                             const float2* g_all,
                             const float* n0_all,
                             double ratio, // the LS error variance over N0
                             bool flat,
                             const double2* gram,
                             const double2* phasors, // [carrier][2L - 1]
                             int L,
                             int U,
                             int P,
                             double2* ginv_all,
                             double2* fit_all,
                             float2* taps_all,
                             float* err_all)
{
    extern __shared__ double2 shared[];
    double2* col = shared;             // [L] the pivot column
    double2* diag = shared + L;        // [2L - 1]
    double* pdp = reinterpret_cast<double*>(shared + 3 * L - 1); // [L]
    const int f = blockIdx.x;
    const float2* g = g_all + std::size_t(f) * P * L;
    float2* taps = taps_all + std::size_t(f) * P * L;
    double2* fit = fit_all + std::size_t(f) * P * L;
    double2* A = ginv_all + std::size_t(f) * L * L;
    float* err = err_all + std::size_t(f) * U;
    const double n0 = double(n0_all[f]) * ratio; // the LS estimates' error variance
    if (!smoothable(g, n0_all[f], P, L)) { // left as least squares, err n0 / tx later
        for (int i = threadIdx.x; i < P * L; i += blockDim.x)
            taps[i] = g[i];
        for (int c = threadIdx.x; c < U; c += blockDim.x)
            err[c] = -1; // marks "not smoothed" for the reconstruction
        return;
    }
    // The flat profile: the entries' mean power less the noise (at least the noise)
    // over the window. dft's estimate.
    __shared__ double power;
    if (threadIdx.x == 0)
        power = 0;
    __syncthreads();
    double acc = 0;
    const float2* h = h_all + std::size_t(f) * U * P;
    for (int i = threadIdx.x; i < U * P; i += blockDim.x)
        acc += double(h[i].x) * h[i].x + double(h[i].y) * h[i].y;
    atomicAdd(&power, acc);
    __syncthreads();
    const double each = fmax(power / (double(U) * P) - n0, n0) / L;
    for (int j = threadIdx.x; j < L; j += blockDim.x)
        pdp[j] = each;
    __syncthreads();
    invert_system(A, gram, pdp, n0, L, col);
    fit_taps(A, g, U, P, L, fit);
    if (!flat) { // lmmse: the profile the taps show, less twice their noise n0 G^-1[j][j]
        const double left_out = 1e-6 * n0 / U;
        for (int j = threadIdx.x; j < L; j += blockDim.x) {
            double pw = 0;
            for (int p = 0; p < P; p++) {
                const cd v = load(&fit[std::size_t(p) * L + j]);
                pw += v.re * v.re + v.im * v.im;
            }
            const double noise = n0 * A[std::size_t(j) * L + j].x;
            pdp[j] = fmax(pw / P - 2 * noise, left_out);
        }
        __syncthreads();
        invert_system(A, gram, pdp, n0, L, col);
        fit_taps(A, g, U, P, L, fit);
    }
    for (int i = threadIdx.x; i < P * L; i += blockDim.x)
        taps[i] = make_float2(float(fit[i].x), float(fit[i].y));
    // G^-1's diagonal sums, then n0 sum_delta s_delta e^{2 pi i k_c delta / N}.
    for (int dl = threadIdx.x; dl < 2 * L - 1; dl += blockDim.x) {
        const int delta = dl - (L - 1);
        cd s = { 0, 0 };
        for (int j = max(0, -delta); j < L && j + delta < L; j++)
            s = s + load(&A[std::size_t(j + delta) * L + j]);
        diag[dl] = make_double2(s.re, s.im);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < U; c += blockDim.x) {
        double e = 0;
        const double2* w = phasors + std::size_t(c) * (2 * L - 1);
        for (int dl = 0; dl < 2 * L - 1; dl++) {
            const cd s = load(&diag[dl]);
            e += s.re * w[dl].x - s.im * w[dl].y;
        }
        err[c] = float(n0 * fmax(e, 0.0));
    }
}

// h[f][c][p] = sum_j F[c][j] taps[f][p][j]; noise_eff[f][c] = n0 + tx err[f][c]. A
// frame marked not smoothable keeps its least-squares h and gets n0.
__global__ void reconstruct_kernel(const float2* taps_all,
                                   const float* err_all,
                                   const float* n0_all,
                                   const float2* F,
                                   int L,
                                   int U,
                                   int P,
                                   int tx,
                                   int frames,
                                   float2* h,
                                   float* noise_eff)
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
    const float2* t = taps_all + (std::size_t(f) * P + p) * L;
    cfl s = { 0, 0 };
    const float2* w = F + std::size_t(c) * L;
    for (int j = 0; j < L; j++)
        s = s + load(w + j) * load(t + j);
    h[i] = make_float2(s.re, s.im);
}

// ls: noise_eff = n0 (1 + tx ratio), h unchanged.
__global__ void ls_noise_kernel(const float* n0_all, float ratio, int U, int tx, int frames, float* noise_eff)
{
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < std::size_t(frames) * U)
        noise_eff[i] = n0_all[i / U] * (1.0f + float(tx) * ratio);
}

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
    gc::device_buffer<float2> twiddles, g, taps; // twiddles: F [carrier][tap]
    gc::device_buffer<double2> gram, phasors, ginv, fit; // phasors [carrier][2L - 1]
    gc::device_buffer<float> err;
    // smooth()'s device copies
    gc::device_buffer<float2> h_dev;
    gc::device_buffer<float> n0_dev, eff_dev;

    impl(const numerology& num,
         channel_estimator method,
         int rx_,
         int tx_,
         std::size_t frames,
         int dev,
         double ls_error_ratio)
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
          ratio(ls_error_ratio)
    {
        if (!(ratio > 0) || !std::isfinite(ratio))
            throw std::invalid_argument("gpu_channel_smoother: ls_error_ratio must be finite and > 0");
        if (rx < 1 || tx < 1 || frames < 1)
            throw std::invalid_argument("gpu_channel_smoother: rx, tx and max_frames must be >= 1");
        const gc::device_guard keep;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        // The tables the kernels read instead of reducing k_c d mod N per product.
        std::vector<float2> tw(std::size_t(U) * L);
        std::vector<double2> ph(std::size_t(U) * (2 * L - 1));
        for (int c = 0; c < U; c++) {
            for (int j = 0; j < L; j++) {
                const std::complex<double> w = reference.twiddle(c, j);
                tw[std::size_t(c) * L + j] = make_float2(float(w.real()), float(w.imag()));
            }
            for (int dl = 0; dl < 2 * L - 1; dl++) {
                const std::complex<double> w = reference.delay_phasor(c, dl - (L - 1));
                ph[std::size_t(c) * (2 * L - 1) + dl] = make_double2(w.real(), w.imag());
            }
        }
        twiddles = upload(tw);
        phasors = upload(ph);
        std::vector<double2> gm;
        for (const std::complex<double>& v : reference.gram())
            gm.push_back(make_double2(v.real(), v.imag()));
        gram = upload(gm);
        g = gc::device_buffer<float2>(frames * P * L);
        taps = gc::device_buffer<float2>(frames * P * L);
        err = gc::device_buffer<float>(frames * U);
        if (method != channel_estimator::ls) {
            ginv = gc::device_buffer<double2>(frames * L * L);
            fit = gc::device_buffer<double2>(frames * P * L);
        }
        const std::size_t shared = (3 * std::size_t(L) - 1) * sizeof(double2) + L * sizeof(double);
        if (shared > 48 * 1024)
            GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
                lmmse_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    }

    template <typename T>
    static gc::device_buffer<T> upload(const std::vector<T>& v)
    {
        gc::device_buffer<T> d(std::max<std::size_t>(1, v.size()));
        GPUMIMO_CUDA_CHECK(
            cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
        return d;
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
        taps_kernel<<<unsigned(frames * P), 64, 0, st>>>(h, twiddles.get(), L, U, P, g.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("taps_kernel");
        const std::size_t shared = (3 * std::size_t(L) - 1) * sizeof(double2) + L * sizeof(double);
        lmmse_kernel<<<unsigned(frames), 1024, shared, st>>>(h, g.get(), n0, ratio, m == channel_estimator::dft,
                                                            gram.get(), phasors.get(), L, U, P, ginv.get(),
                                                            fit.get(), taps.get(), err.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("lmmse_kernel");
        reconstruct_kernel<<<blocks_for(frames * U * P), kThreads, 0, st>>>(
            taps.get(), err.get(), n0, twiddles.get(), L, U, P, tx, int(frames), h,
            noise_eff);
        GPUMIMO_CUDA_CHECK_LAUNCH("reconstruct_kernel");
    }
};

gpu_channel_smoother::gpu_channel_smoother(const numerology& num,
                                           channel_estimator method,
                                           int rx,
                                           int tx,
                                           std::size_t max_frames,
                                           int device,
                                           double ls_error_ratio)
    : d_impl(std::make_unique<impl>(num, method, rx, tx, max_frames, device, ls_error_ratio))
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
    if (m.h_dev.size() < nh) {
        m.h_dev = gc::device_buffer<float2>(std::max<std::size_t>(1, nh));
        m.n0_dev = gc::device_buffer<float>(std::max<std::size_t>(1, frames));
        m.eff_dev = gc::device_buffer<float>(std::max<std::size_t>(1, ne));
    }
    GPUMIMO_CUDA_CHECK(cudaMemcpy(m.h_dev.get(), h, nh * sizeof(float2), cudaMemcpyHostToDevice));
    GPUMIMO_CUDA_CHECK(cudaMemcpy(m.n0_dev.get(), n0, frames * sizeof(float), cudaMemcpyHostToDevice));
    // Poisoned: a value the kernels fail to write shows.
    GPUMIMO_CUDA_CHECK(cudaMemset(m.eff_dev.get(), 0xff, ne * sizeof(float)));
    m.run(m.h_dev.get(), m.n0_dev.get(), frames, m.eff_dev.get(), nullptr);
    GPUMIMO_CUDA_CHECK(cudaDeviceSynchronize());
    GPUMIMO_CUDA_CHECK(cudaMemcpy(h, m.h_dev.get(), nh * sizeof(float2), cudaMemcpyDeviceToHost));
    GPUMIMO_CUDA_CHECK(cudaMemcpy(noise_eff, m.eff_dev.get(), ne * sizeof(float), cudaMemcpyDeviceToHost));
}

} // namespace core
} // namespace gpumimo
} // namespace gr
