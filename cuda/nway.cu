/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * N-way parallel SSFE on the GPU (nway-mimo-detector-gpu.txt, section IV), the algorithm
 * of lib/core/nway_ref.cc:
 *  - nway_qr_kernel: one thread per (channel matrix, pass): the modified real-valued
 *    decomposition of H with its columns rotated by the pass, and its modified
 *    Gram-Schmidt QR (Algorithm 1), once per matrix.
 *  - nway_kernel: one thread per candidate (M points x N passes, Algorithm 2), the N
 *    passes of a problem in one block, several problems per block when M*N is small
 *    (IV-C); path history in registers; then one thread per bit merges hypotheses and
 *    counter-hypotheses over all N*M candidates (Algorithm 3 and IV-D).
 * y^ = Q^T y~ is formed in the search kernel from the stored Q (classical projection; the
 * reference's modified form differs only by rounding).
 */
#include "constellation_table.cuh"
#include "cuda_check.cuh"
#include "gpu_math.cuh"
#include "kernels.cuh"
#include "nway.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxDims = 16;   // 2 * max nt
constexpr int kMaxRows = 32;   // 2 * max nr

template <typename real>
struct nway_workspace {
    real* q; // [nch][passes][2nr][2nt]
    real* r; // [nch][passes][2nt][2nt]
};

template <typename real>
nway_workspace<real> carve(void* ws, std::size_t nch, int nt, int nr, int passes)
{
    nway_workspace<real> w;
    w.q = static_cast<real*>(ws);
    w.r = w.q + nch * passes * (2 * nr) * (2 * nt);
    return w;
}

template <typename real>
__global__ void nway_qr_kernel(chunk_args a, int passes, nway_workspace<real> w)
{
    const std::size_t idx = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (idx >= a.nch * passes)
        return;
    const std::size_t c = idx / passes;
    const int pass = int(idx % passes);
    const int nt = a.nt, nr = a.nr, rows = 2 * nr, dims = 2 * nt;
    real q[kMaxRows][kMaxDims];
    const float2* h = a.h + c * nr * nt;
    // Interleaved real decomposition of H(:, rotated): column j holds stream (j+pass)%nt.
    for (int r = 0; r < nr; r++)
        for (int j = 0; j < nt; j++) {
            const float2 v = h[r * nt + (j + pass) % nt];
            q[2 * r][2 * j] = v.x;
            q[2 * r][2 * j + 1] = -v.y;
            q[2 * r + 1][2 * j] = v.y;
            q[2 * r + 1][2 * j + 1] = v.x;
        }
    real* rout = w.r + (c * passes + pass) * dims * dims;
    for (int i = 0; i < dims * dims; i++)
        rout[i] = 0;
    for (int k = 0; k < dims; k++) {
        real nk = 0;
        for (int i = 0; i < rows; i++)
            nk += q[i][k] * q[i][k];
        const real rkk = sqrt(nk);
        rout[k * dims + k] = rkk;
        if (rkk > 0)
            for (int i = 0; i < rows; i++)
                q[i][k] /= rkk;
        for (int j = k + 1; j < dims; j++) {
            real dot = 0;
            for (int i = 0; i < rows; i++)
                dot += q[i][k] * q[i][j];
            rout[k * dims + j] = dot;
            for (int i = 0; i < rows; i++)
                q[i][j] -= dot * q[i][k];
        }
    }
    real* qout = w.q + (c * passes + pass) * rows * dims;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < dims; j++)
            qout[i * dims + j] = q[i][j];
}

template <typename real>
__device__ inline real amplitude(int level, int npam, real scale)
{
    return real(2 * level - (npam - 1)) * scale;
}

// Shared memory of one problem: R and y^ of every pass, then each candidate's metric and
// points.
template <typename real>
struct problem_smem {
    real* r;
    real* yhat;
    real* metric;
    unsigned char* points;
};

template <typename real>
__device__ problem_smem<real> smem_of(unsigned char* base, int p, std::size_t per_problem, int passes, int dims, int cands)
{
    unsigned char* b = base + p * per_problem;
    problem_smem<real> s;
    s.r = reinterpret_cast<real*>(b);
    s.yhat = s.r + passes * dims * dims;
    s.metric = s.yhat + passes * dims;
    s.points = reinterpret_cast<unsigned char*>(s.metric + cands);
    return s;
}

template <typename real>
__global__ void nway_kernel(chunk_args a,
                            int passes,
                            nway_workspace<real> w,
                            std::size_t per_problem)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, m = a.m, dims = 2 * nt, rows = 2 * nr;
    const int npam = 1 << (m / 2);
    const int npoints = 1 << m;
    const int cands = npoints * passes;
    const int tid = threadIdx.x, p = threadIdx.y, T = blockDim.x;
    const std::size_t v_raw = blockIdx.x * std::size_t(blockDim.y) + p;
    const bool active = v_raw < a.n;
    const std::size_t v = active ? v_raw : a.n - 1;
    const std::size_t c = channel_of(a, v);
    const real scale = real(a.pam_scale);
    const problem_smem<real> s = smem_of<real>(smem, p, per_problem, passes, dims, cands);

    for (int i = tid; i < passes * dims * dims; i += T)
        s.r[i] = w.r[c * passes * dims * dims + i];
    for (int i = tid; i < passes * dims; i += T) {
        const int pass = i / dims, k = i % dims;
        const real* qm = w.q + (c * passes + pass) * rows * dims;
        real acc = 0;
        for (int rr = 0; rr < nr; rr++) {
            const float2 y = a.y[v * nr + rr];
            acc += qm[(2 * rr) * dims + k] * real(y.x) + qm[(2 * rr + 1) * dims + k] * real(y.y);
        }
        s.yhat[i] = acc;
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
        s.metric[cand] = d;
        for (int j = 0; j < nt; j++)
            s.points[cand * nt + (j + pass) % nt] =
                a.from_levels[levels[2 * j] * npam + levels[2 * j + 1]];
    }
    __syncthreads();
    if (!active)
        return;

    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    const real clip = real(a.list_llr_clip);
    for (int bit = tid; bit < nt * m; bit += T) {
        const int stream = bit / m, k = bit % m;
        real min0 = INFINITY, min1 = INFINITY;
        for (int cand = 0; cand < cands; cand++) {
            const real d = s.metric[cand];
            if ((s.points[cand * nt + stream] >> (m - 1 - k)) & 1)
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
    const int qr_threads = 64;
    const std::size_t qr_jobs = a.nch * passes;
    nway_qr_kernel<real><<<unsigned((qr_jobs + qr_threads - 1) / qr_threads), qr_threads, 0, s>>>(a, passes, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("nway_qr_kernel");

    const int dims = 2 * a.nt;
    const int cands = (1 << a.m) * passes;
    std::size_t per_problem = sizeof(real) * (passes * dims * dims + passes * dims + cands) +
                              std::size_t(cands) * a.nt;
    per_problem = (per_problem + 15) / 16 * 16;
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
    const std::size_t r = dbl ? sizeof(double) : sizeof(float);
    return std::size_t(passes) * (std::size_t(2 * nr) * (2 * nt) + std::size_t(2 * nt) * (2 * nt)) * r;
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
