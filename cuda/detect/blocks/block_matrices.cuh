/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per-thread small matrices for the one-thread-per-channel kernels (QR, filters, checks),
 * kept in shared memory rather than in local memory (a per-thread array indexed at run
 * time), element-major so that the threads of a warp touching the same element hit
 * consecutive words. The block's channel matrices are loaded with coalesced reads.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_BLOCK_MATRICES_CUH
#define INCLUDED_GPUMIMO_CUDA_BLOCK_MATRICES_CUH

#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

/*! Element e of thread t's matrix lives at base[e * threads + t]. */
template <typename T>
struct thread_matrix {
    T* base;
    int threads;
    int t;
    __device__ T& operator[](int e) const { return base[e * threads + t]; }
};

/*! Loads H of channels [c0, c0 + blockDim.x) (row-major nr x nt each) into `smem`, one
 *  thread_matrix per thread, coalesced; channels past nch read as zero. */
template <typename real>
__device__ inline thread_matrix<cplx<real>>
load_block_channels(const chunk_args& a, cplx<real>* smem, std::size_t c0)
{
    const int per = a.nr * a.nt;
    const int threads = blockDim.x;
    const std::size_t avail = a.nch > c0 ? a.nch - c0 : 0;
    const std::size_t count = avail < std::size_t(threads) ? avail : std::size_t(threads);
    const float2* src = a.h + c0 * per;
    for (std::size_t i = threadIdx.x; i < std::size_t(threads) * per; i += threads) {
        const int t = int(i / per), e = int(i % per);
        smem[e * threads + t] =
            t < int(count) ? from_float2<real>(src[i]) : cplx<real>{ 0, 0 };
    }
    __syncthreads();
    return { smem, threads, int(threadIdx.x) };
}

/*! Writes the first `count` thread matrices of `per` elements each, kept element-major
 *  at `src` (element e of thread t at src[e * threads + t]), to dst as consecutive
 *  row-major matrices, with coalesced stores. Call after a __syncthreads(). */
template <typename T>
__device__ inline void
store_block_matrices(T* dst, const T* src, std::size_t count, int per, int threads)
{
    for (std::size_t i = threadIdx.x; i < count * per; i += threads)
        dst[i] = src[(i % per) * threads + i / per];
}

/*! Step k of a complex modified Gram-Schmidt on q (nr x nt, in place): R_kk = ||q_k||,
 *  q_k normalised, then R_kj = q_k^H q_j and q_j -= R_kj q_k for j > k. With norm2 given,
 *  also downdates the squared norms of the later columns (for the sorted QR). */
template <typename real>
__device__ inline void mgs_step(const thread_matrix<cplx<real>>& q,
                                const thread_matrix<cplx<real>>& r,
                                int k,
                                int nt,
                                int nr,
                                real* norm2_downdate = nullptr)
{
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
        if (norm2_downdate)
            norm2_downdate[j] -= norm2(dot);
    }
}

/*! Threads per block (a multiple of 32, 32..128) so that each thread's matrices
 *  (bytes_per_thread) fit in about 96 KB of shared memory. */
inline int block_threads_for(std::size_t bytes_per_thread)
{
    const std::size_t budget = 96 * 1024;
    std::size_t t = budget / (bytes_per_thread ? bytes_per_thread : 1);
    t = t >= 128 ? 128 : (t >= 64 ? 64 : 32);
    return int(t);
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
