/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * N-way parallel SSFE on the GPU (nway-mimo-detector-gpu.txt, section IV), the algorithm
 * of lib/core/nway_ref.cc:
 *  - nway_qr_kernel: one thread per (channel matrix, pass): the QR (Algorithm 1) of the
 *    modified real-valued decomposition of H with its columns rotated by the pass, once
 *    per matrix, obtained from a complex modified Gram-Schmidt (see the kernel).
 *  - nway_kernel: one thread per candidate (M points x N passes, Algorithm 2), the N
 *    passes of a problem in one block, several problems per block when M*N is small
 *    (IV-C); path history in registers. Each candidate folds its metric into the least
 *    metric per (stream, point) with shared-memory atomics; one thread per bit then
 *    takes hypothesis and counter-hypothesis from those nt*M minima instead of scanning
 *    all N*M candidates (the same minima as Algorithm 3 and IV-D).
 * y^ = Q^T y~ is formed in the search kernel from the stored Q (classical projection; the
 * reference's modified form, and its real rather than complex QR, differ only by
 * rounding).
 */
#include "block_matrices.cuh"
#include "constellation_table.cuh"
#include "cuda_check.cuh"
#include "gpu_math.cuh"
#include "kernels.cuh"
#include "nway.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxDims = 16; // 2 * max nt

template <typename real>
struct nway_workspace {
    cplx<real>* q; // [nch][passes][nr][nt]
    cplx<real>* r; // [nch][passes][nt][nt]
};

template <typename real>
nway_workspace<real> carve(void* ws, std::size_t nch, int nt, int nr, int passes)
{
    nway_workspace<real> w;
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
__global__ void nway_qr_kernel(chunk_args a, int passes, nway_workspace<real> w)
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
            real nk = 0;
            for (int i = 0; i < nr; i++)
                nk += norm2(q[i * nt + k]);
            const real rkk = sqrt(nk);
            r[k * nt + k] = { rkk, 0 };
            if (rkk > 0)
                for (int i = 0; i < nr; i++)
                    q[i * nt + k] = { q[i * nt + k].re / rkk, q[i * nt + k].im / rkk };
            for (int j = k + 1; j < nt; j++) {
                cplx<real> dot{ 0, 0 };
                for (int i = 0; i < nr; i++)
                    dot = dot + conj_mul(q[i * nt + k], q[i * nt + j]);
                r[k * nt + j] = dot;
                for (int i = 0; i < nr; i++)
                    q[i * nt + j] = q[i * nt + j] - dot * q[i * nt + k];
            }
        }
    }
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < count * pq; i += T)
        w.q[j0 * pq + i] = qbase[(i % pq) * T + i / pq];
    for (std::size_t i = threadIdx.x; i < count * pr; i += T)
        w.r[j0 * pr + i] = rbase[(i % pr) * T + i / pr];
}

template <typename real>
__device__ inline real amplitude(int level, int npam, real scale)
{
    return real(2 * level - (npam - 1)) * scale;
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
    static __device__ type of(double v) { return static_cast<type>(__double_as_longlong(v)); }
    static __device__ double value(type b) { return __longlong_as_double(static_cast<long long>(b)); }
};

// Shared memory of one problem: R and y^ of every pass, then best[stream][point], the
// least metric of any candidate carrying that point on that stream.
template <typename real>
struct problem_smem {
    real* r;
    real* yhat;
    typename metric_bits<real>::type* best;
};

template <typename real>
__host__ __device__ std::size_t problem_smem_bytes(int passes, int nt, int npoints)
{
    const int dims = 2 * nt;
    const std::size_t bytes = sizeof(real) * std::size_t(passes * dims * dims + passes * dims) +
                              sizeof(typename metric_bits<real>::type) * std::size_t(nt) * npoints;
    return (bytes + 15) / 16 * 16;
}

template <typename real>
__device__ problem_smem<real> smem_of(unsigned char* base, int p, std::size_t per_problem, int passes, int dims)
{
    unsigned char* b = base + p * per_problem;
    problem_smem<real> s;
    s.r = reinterpret_cast<real*>(b);
    s.yhat = s.r + passes * dims * dims;
    s.best = reinterpret_cast<typename metric_bits<real>::type*>(s.yhat + passes * dims);
    return s;
}

template <typename real>
__global__ void nway_kernel(chunk_args a,
                            int passes,
                            nway_workspace<real> w,
                            std::size_t per_problem)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, m = a.m, dims = 2 * nt;
    const int npam = 1 << (m / 2);
    const int npoints = 1 << m;
    const int cands = npoints * passes;
    const int tid = threadIdx.x, p = threadIdx.y, T = blockDim.x;
    const std::size_t v_raw = blockIdx.x * std::size_t(blockDim.y) + p;
    const bool active = v_raw < a.n;
    const std::size_t v = active ? v_raw : a.n - 1;
    const std::size_t c = channel_of(a, v);
    const real scale = real(a.pam_scale);
    const problem_smem<real> s = smem_of<real>(smem, p, per_problem, passes, dims);
    using bits_of = metric_bits<real>;
    for (int i = tid; i < nt * npoints; i += T)
        s.best[i] = bits_of::infinity;

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
        s.r[i] = v;
    }
    // y^~ = rho(Q^H y): interleaved real and imaginary parts.
    for (int i = tid; i < passes * nt; i += T) {
        const int pass = i / nt, k = i % nt;
        const cplx<real>* qm = w.q + (c * passes + pass) * nr * nt;
        cplx<real> acc{ 0, 0 };
        for (int rr = 0; rr < nr; rr++)
            acc = acc + conj_mul(qm[rr * nt + k], from_float2<real>(a.y[v * nr + rr]));
        s.yhat[pass * dims + 2 * k] = acc.re;
        s.yhat[pass * dims + 2 * k + 1] = acc.im;
    }
    __syncthreads();

    for (int cand = tid; cand < cands; cand += T) {
        const int pass = cand / npoints, k = cand % npoints;
        const real* R = s.r + pass * dims * dims;
        const real* yh = s.yhat + pass * dims;
        int levels[kMaxDims];
        // Full expansion of the last complex column (levels dims-2: Re, dims-1: Im).
        const int li = a.i_levels[k], lq = a.q_levels[k];
        levels[dims - 1] = lq;
        levels[dims - 2] = li;
        const real a1 = amplitude<real>(lq, npam, scale);
        const real a2 = amplitude<real>(li, npam, scale);
        const real e1 = yh[dims - 1] - R[(dims - 1) * dims + dims - 1] * a1;
        const real e2 = yh[dims - 2] - R[(dims - 2) * dims + dims - 1] * a1 -
                        R[(dims - 2) * dims + dims - 2] * a2;
        real d = e1 * e1 + e2 * e2;
        for (int i = dims - 3; i >= 0; i--) {
            real b = yh[i];
            for (int j = i + 1; j < dims; j++)
                b -= R[i * dims + j] * amplitude<real>(levels[j], npam, scale);
            const real rii = R[i * dims + i];
            levels[i] = nearest_level(b / rii, scale, npam);
            const real e = b - rii * amplitude<real>(levels[i], npam, scale);
            d += e * e;
        }
        // Algorithm 3 and IV-D merged: hypotheses per (stream, point), bits follow below.
        for (int j = 0; j < nt; j++) {
            const int point = a.from_levels[levels[2 * j] * npam + levels[2 * j + 1]];
            atomicMin(&s.best[((j + pass) % nt) * npoints + point], bits_of::of(d));
        }
    }
    __syncthreads();
    if (!active)
        return;

    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    const real clip = real(a.list_llr_clip);
    for (int bit = tid; bit < nt * m; bit += T) {
        const int stream = bit / m, k = bit % m;
        real min0 = INFINITY, min1 = INFINITY;
        for (int q = 0; q < npoints; q++) {
            const real d = bits_of::value(s.best[stream * npoints + q]);
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

template <typename real>
void launch(const chunk_args& a, int passes, void* ws, cudaStream_t s)
{
    const nway_workspace<real> w = carve<real>(ws, a.nch, a.nt, a.nr, passes);
    const std::size_t per_thread = std::size_t(a.nr * a.nt + a.nt * a.nt) * sizeof(cplx<real>);
    const int qr_threads = block_threads_for(per_thread);
    const std::size_t qr_smem = qr_threads * per_thread;
    const std::size_t qr_jobs = a.nch * passes;
    GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(nway_qr_kernel<real>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(qr_smem)));
    nway_qr_kernel<real><<<unsigned((qr_jobs + qr_threads - 1) / qr_threads), qr_threads, qr_smem, s>>>(a, passes, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("nway_qr_kernel");

    const int cands = (1 << a.m) * passes;
    const std::size_t per_problem = problem_smem_bytes<real>(passes, a.nt, 1 << a.m);
    const int threads = cands >= 256 ? 256 : (cands + 31) / 32 * 32;
    const int problems = threads >= 128 ? 1 : 128 / threads;
    const std::size_t smem = per_problem * problems;
    GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
        nway_kernel<real>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    nway_kernel<real><<<unsigned((a.n + problems - 1) / problems), dim3(threads, problems), smem, s>>>(
        a, passes, w, per_problem);
    GPUMIMO_CUDA_CHECK_LAUNCH("nway_kernel");
}

} // namespace

std::size_t nway_workspace_bytes(int nt, int nr, int passes, bool dbl)
{
    const std::size_t c = dbl ? sizeof(cplx<double>) : sizeof(cplx<float>);
    return std::size_t(passes) * (std::size_t(nr) * nt + std::size_t(nt) * nt) * c;
}

void launch_nway(const chunk_args& a, int passes, void* ws, bool dbl, cudaStream_t s)
{
    if (a.n == 0)
        return;
    if (dbl)
        launch<double>(a, passes, ws, s);
    else
        launch<float>(a, passes, ws, s);
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
