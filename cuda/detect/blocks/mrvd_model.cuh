/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real-valued model of the searches on PAM levels with the interleaved (modified)
 * real-valued decomposition, nway and kbest (lib/core/detect/real_model.cc on the CPU): the
 * per-matrix QR, the per-problem R~ and y^~ in shared memory, and the
 * per-(stream, point) minima the LLRs come from.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_MRVD_MODEL_CUH
#define INCLUDED_GPUMIMO_CUDA_MRVD_MODEL_CUH

#include "detect/blocks/block_matrices.cuh"
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {
namespace mrvd {

template <typename real>
struct workspace {
    cplx<real>* q; // [nch][passes][nr][nt]
    cplx<real>* r; // [nch][passes][nt][nt]
};

template <typename real>
workspace<real> carve(void* ws, std::size_t nch, int nt, int nr, int passes)
{
    workspace<real> w;
    w.q = static_cast<cplx<real>*>(ws);
    w.r = w.q + nch * passes * nr * nt;
    return w;
}

// The real QR of the interleaved decomposition is the decomposition of the complex QR:
// rho(H) = rho(Q) rho(R), rho(Q) orthonormal and rho(R) upper triangular with the
// positive diagonal r_kk I_2, so by uniqueness it is the QR that Algorithm 1 computes
// on [H~ | y~], at a quarter of the arithmetic. Unsorted modified Gram-Schmidt, one
// thread per (matrix, pass), the matrices in shared memory (block_matrices.cuh).
template <typename real>
__global__ void qr_kernel(chunk_args a, int passes, workspace<real> w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, T = blockDim.x, pq = nr * nt, pr = nt * nt;
    const std::size_t jobs = a.nch * passes;
    const std::size_t j0 = blockIdx.x * std::size_t(T);
    const std::size_t count = jobs - j0 < std::size_t(T) ? jobs - j0 : std::size_t(T);
    cplx<real>* qbase = reinterpret_cast<cplx<real>*>(smem);
    cplx<real>* rbase = qbase + std::size_t(T) * pq;
    // Job t = (channel, pass); column j of its matrix holds stream (j + pass) % nt.
    for (std::size_t i = threadIdx.x; i < std::size_t(T) * pq; i += T) {
        const std::size_t t = i / pq;
        const int e = int(i % pq), row = e / nt, col = e % nt;
        cplx<real> v{ 0, 0 };
        if (t < count) {
            const std::size_t job = j0 + t, c = job / passes;
            const int pass = int(job % passes);
            v = from_float2<real>(a.h[c * pq + row * nt + (col + pass) % nt]);
        }
        qbase[e * T + t] = v;
    }
    __syncthreads();
    const thread_matrix<cplx<real>> q{ qbase, T, int(threadIdx.x) };
    const thread_matrix<cplx<real>> r{ rbase, T, int(threadIdx.x) };
    if (threadIdx.x < count) {
        for (int k = 0; k < nt; k++) {
            for (int j = 0; j < k; j++)
                r[k * nt + j] = { 0, 0 };
            mgs_step(q, r, k, nt, nr);
        }
    }
    __syncthreads();
    store_block_matrices(w.q + j0 * pq, qbase, count, pq, T);
    store_block_matrices(w.r + j0 * pr, rbase, count, pr, T);
}

// Non-negative floats order like their bit patterns, so a shared-memory atomicMin on
// the bits takes the minimum metric.
template <typename real>
struct metric_bits;
template <>
struct metric_bits<float> {
    using type = unsigned int;
    static constexpr type infinity = 0x7f800000u;
    static __device__ type of(float v) { return __float_as_uint(v); }
    static __device__ float value(type b) { return __uint_as_float(b); }
};
template <>
struct metric_bits<double> {
    using type = unsigned long long;
    static constexpr type infinity = 0x7ff0000000000000ull;
    static __device__ type of(double v)
    {
        return static_cast<type>(__double_as_longlong(v));
    }
    static __device__ double value(type b)
    {
        return __longlong_as_double(static_cast<long long>(b));
    }
};

/*! R~ = rho(R) and y^~ = rho(Q^H y) of vector v (channel c) for every pass, into
 *  s_r [passes][dims][dims] and s_yhat [passes][dims]; threads tid of T. */
template <typename real>
__device__ inline void load_model(const chunk_args& a,
                                  const workspace<real>& w,
                                  int passes,
                                  std::size_t c,
                                  std::size_t v,
                                  real* s_r,
                                  real* s_yhat,
                                  int tid,
                                  int T)
{
    const int nt = a.nt, nr = a.nr, dims = 2 * nt;
    // R~ = rho(R): block (k, j) of complex r is [[Re r, -Im r], [Im r, Re r]].
    for (int i = tid; i < passes * dims * dims; i += T) {
        const int pass = i / (dims * dims), row = (i / dims) % dims, col = i % dims;
        const int k = row / 2, j = col / 2;
        real v = 0;
        if (j >= k) {
            const cplx<real> rc = w.r[(c * passes + pass) * nt * nt + k * nt + j];
            const bool im_row = row & 1, im_col = col & 1;
            v = im_row == im_col ? rc.re : (im_row ? rc.im : -rc.im);
        }
        s_r[i] = v;
    }
    // y^~ = rho(Q^H y): interleaved real and imaginary parts.
    for (int i = tid; i < passes * nt; i += T) {
        const int pass = i / nt, k = i % nt;
        const cplx<real>* qm = w.q + (c * passes + pass) * nr * nt;
        cplx<real> acc{ 0, 0 };
        for (int rr = 0; rr < nr; rr++)
            acc = acc + conj_mul(qm[rr * nt + k], from_float2<real>(a.y[v * nr + rr]));
        s_yhat[pass * dims + 2 * k] = acc.re;
        s_yhat[pass * dims + 2 * k + 1] = acc.im;
    }
}

/*! LLRs of vector v from best[stream][point], the least metric of any candidate with that
 *  point on that stream (bit_minima on the CPU): (min0 - min1) / n0, +-clip where a side
 *  is missing, everything clipped to +-clip. Threads tid of T, one bit each. */
template <typename real>
__device__ inline void
write_llrs_from_minima(const chunk_args& a,
                       const typename metric_bits<real>::type* best,
                       std::size_t v,
                       std::size_t c,
                       int tid,
                       int T)
{
    const int nt = a.nt, m = a.m, npoints = 1 << m;
    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    const real clip = real(a.list_llr_clip);
    for (int bit = tid; bit < nt * m; bit += T) {
        const int stream = bit / m, k = bit % m;
        real min0 = INFINITY, min1 = INFINITY;
        for (int q = 0; q < npoints; q++) {
            const real d = metric_bits<real>::value(best[stream * npoints + q]);
            if ((q >> (m - 1 - k)) & 1)
                min1 = fmin(min1, d);
            else
                min0 = fmin(min0, d);
        }
        real llr;
        if (isinf(min0) || isinf(min1)) // a side missing: +-clip towards the side present
            llr = isinf(min0) ? clip : -clip;
        else
            llr = (min0 - min1) / n0;
        a.llr[v * std::size_t(nt * m) + bit] = float(fmin(fmax(llr, -clip), clip));
    }
}

/*! One thread per (matrix, pass): the complex QRs into the workspace. */
template <typename real>
void launch_qr(const chunk_args& a, int passes, const workspace<real>& w, cudaStream_t s)
{
    const std::size_t per_thread =
        std::size_t(a.nr * a.nt + a.nt * a.nt) * sizeof(cplx<real>);
    const int qr_threads = block_threads_for(per_thread);
    const std::size_t qr_smem = qr_threads * per_thread;
    const std::size_t qr_jobs = a.nch * passes;
    allow_dynamic_smem(qr_kernel<real>, qr_smem);
    qr_kernel<real>
        <<<unsigned((qr_jobs + qr_threads - 1) / qr_threads), qr_threads, qr_smem, s>>>(
            a, passes, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("mrvd::qr_kernel");
}

inline std::size_t workspace_bytes(int nt, int nr, int passes, bool dbl)
{
    const std::size_t c = dbl ? sizeof(cplx<double>) : sizeof(cplx<float>);
    return std::size_t(passes) * (std::size_t(nr) * nt + std::size_t(nt) * nt) * c;
}

} // namespace mrvd
} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
