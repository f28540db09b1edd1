/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * N-way parallel SSFE on the GPU (nway-mimo-detector-gpu.txt, section IV), the algorithm
 * of lib/core/nway_ref.cc:
 *  - mrvd::qr_kernel (mrvd_model.cuh): one thread per (channel matrix, pass): the QR
 *    (Algorithm 1) of the modified real-valued decomposition of H with its columns
 *    rotated by the pass, once per matrix, from a complex modified Gram-Schmidt.
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
#include "constellation_table.cuh"
#include "cuda_check.cuh"
#include "gpu_math.cuh"
#include "kernels.cuh"
#include "mrvd_model.cuh"
#include "nway.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxDims = 16; // 2 * max nt

// Shared memory of one problem: R and y^ of every pass, then best[stream][point], the
// least metric of any candidate carrying that point on that stream.
template <typename real>
struct problem_smem {
    real* r;
    real* yhat;
    typename mrvd::metric_bits<real>::type* best;
};

template <typename real>
__host__ __device__ std::size_t problem_smem_bytes(int passes, int nt, int npoints)
{
    const int dims = 2 * nt;
    const std::size_t bytes =
        sizeof(real) * std::size_t(passes * dims * dims + passes * dims) +
        sizeof(typename mrvd::metric_bits<real>::type) * std::size_t(nt) * npoints;
    return (bytes + 15) / 16 * 16;
}

template <typename real>
__device__ problem_smem<real>
smem_of(unsigned char* base, int p, std::size_t per_problem, int passes, int dims)
{
    unsigned char* b = base + p * per_problem;
    problem_smem<real> s;
    s.r = reinterpret_cast<real*>(b);
    s.yhat = s.r + passes * dims * dims;
    s.best =
        reinterpret_cast<typename mrvd::metric_bits<real>::type*>(s.yhat + passes * dims);
    return s;
}

// NT > 0: compiled for nt = NT, so that the greedy completion's loops unroll and the
// levels and their amplitudes stay in registers (a run-time-indexed array would live in
// local memory, a load per multiply-add); NT = 0: any nt.
template <typename real, int NT>
__global__ void
nway_kernel(chunk_args a, int passes, mrvd::workspace<real> w, std::size_t per_problem)
{
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int kLevels = NT > 0 ? 2 * NT : kMaxDims;
    const int nt = NT > 0 ? NT : a.nt, m = a.m, dims = 2 * nt;
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
    using bits_of = mrvd::metric_bits<real>;
    for (int i = tid; i < nt * npoints; i += T)
        s.best[i] = bits_of::infinity;

    mrvd::load_model(a, w, passes, c, v, s.r, s.yhat, tid, T);
    __syncthreads();

    for (int cand = tid; cand < cands; cand += T) {
        const int pass = cand / npoints, k = cand % npoints;
        const real* R = s.r + pass * dims * dims;
        const real* yh = s.yhat + pass * dims;
        int levels[kLevels];
        real amps[kLevels];
        // Full expansion of the last complex column (levels dims-2: Re, dims-1: Im).
        const int li = a.i_levels[k], lq = a.q_levels[k];
        levels[dims - 1] = lq;
        levels[dims - 2] = li;
        amps[dims - 1] = pam_amplitude<real>(lq, npam, scale);
        amps[dims - 2] = pam_amplitude<real>(li, npam, scale);
        const real e1 = yh[dims - 1] - R[(dims - 1) * dims + dims - 1] * amps[dims - 1];
        const real e2 = yh[dims - 2] - R[(dims - 2) * dims + dims - 1] * amps[dims - 1] -
                        R[(dims - 2) * dims + dims - 2] * amps[dims - 2];
        real d = e1 * e1 + e2 * e2;
#pragma unroll
        for (int i = dims - 3; i >= 0; i--) {
            real b = yh[i];
#pragma unroll
            for (int j = i + 1; j < dims; j++)
                b -= R[i * dims + j] * amps[j];
            const real rii = R[i * dims + i];
            levels[i] = nearest_level(b / rii, scale, npam);
            amps[i] = pam_amplitude<real>(levels[i], npam, scale);
            const real e = b - rii * amps[i];
            d += e * e;
        }
        // Algorithm 3 and IV-D merged: hypotheses per (stream, point), bits follow below.
#pragma unroll
        for (int j = 0; j < nt; j++) {
            const int point = a.from_levels[levels[2 * j] * npam + levels[2 * j + 1]];
            atomicMin(&s.best[((j + pass) % nt) * npoints + point], bits_of::of(d));
        }
    }
    __syncthreads();
    if (!active)
        return;

    mrvd::write_llrs_from_minima<real>(a, s.best, v, c, tid, T);
}

template <typename real>
void launch(const chunk_args& a, int passes, void* ws, cudaStream_t s)
{
    const mrvd::workspace<real> w = mrvd::carve<real>(ws, a.nch, a.nt, a.nr, passes);
    mrvd::launch_qr(a, passes, w, s);

    const int cands = (1 << a.m) * passes;
    const std::size_t per_problem = problem_smem_bytes<real>(passes, a.nt, 1 << a.m);
    const int threads = cands >= 256 ? 256 : (cands + 31) / 32 * 32;
    const int problems = threads >= 128 ? 1 : 128 / threads;
    const std::size_t smem = per_problem * problems;
    auto run = [&](auto kernel) {
        GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        kernel<<<unsigned((a.n + problems - 1) / problems),
                 dim3(threads, problems),
                 smem,
                 s>>>(a, passes, w, per_problem);
        GPUMIMO_CUDA_CHECK_LAUNCH("nway_kernel");
    };
    switch (a.nt) {
    case 1:
        return run(nway_kernel<real, 1>);
    case 2:
        return run(nway_kernel<real, 2>);
    case 3:
        return run(nway_kernel<real, 3>);
    case 4:
        return run(nway_kernel<real, 4>);
    default:
        return run(nway_kernel<real, 0>);
    }
}

} // namespace

std::size_t nway_workspace_bytes(int nt, int nr, int passes, bool dbl)
{
    return mrvd::workspace_bytes(nt, nr, passes, dbl);
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
