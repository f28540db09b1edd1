/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * N-way parallel SSFE on the GPU (nway-mimo-detector-gpu.txt, section IV), the algorithm
 * of lib/core/detect/references/nway_ref.cc:
 *  - mrvd::qr_kernel (mrvd_model.cuh): one thread per (channel matrix, pass): the QR
 *    (Algorithm 1) of the modified real-valued decomposition of H with its columns
 *    rotated by the pass, once per matrix, from a complex modified Gram-Schmidt.
 *  - nway_kernel: one thread per candidate (M points x N passes, Algorithm 2), the N
 *    passes of a problem in one block, several problems per block when M*N is small
 *    (IV-C); path history in registers. Each candidate folds its metric into the least
 *    metric per (stream, point) with shared-memory atomics; one thread per bit then
 *    takes hypothesis and counter-hypothesis from those nt*M minima instead of scanning
 *    all N*M candidates (the same minima as Algorithm 3 and IV-D).
 *  - nway_register_kernel (nt <= 4): one thread per (problem, pass) with the pass's
 *    QR and all its M candidates in registers; the QR fused in when every vector has
 *    its own H, from mrvd::qr_kernel once per matrix otherwise. The generic nway_kernel
 *    serves nt > 4.
 * y^ = Q^T y~ is formed in the search kernel from the stored Q (classical projection; the
 * reference's modified form, and its real rather than complex QR, differ only by
 * rounding).
 */
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/blocks/mrvd_model.cuh"
#include "detect/kernels/nway.cuh"
#include "detect/blocks/register_model.cuh"
#include "detect/gpu_registry.cuh"

#include <algorithm>
#include <type_traits>

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

// nt > 4 (nt <= 4 runs nway_register_kernel). NT > 0 would compile it for one nt so
// that the completion's loops unroll; NT = 0: any nt.
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

// nt <= 4: `split` threads per (problem, pass), everything of the pass in their
// registers (register_model.cuh): its QR (FUSED: computed here from H, as each vector
// has its own matrix; otherwise R and Q from mrvd::qr_kernel, once per matrix), then
// every split-th of its M candidates, the greedy completion unrolled over the streams
// in the complex form (both real levels of a stream from one interference sum). The
// threads of a problem meet in the shared per-(stream, point) minima and share out its
// bits. split > 1 (the QR repeated) keeps enough threads per SM when few passes and
// large tables would leave the SM nearly empty. The same candidates and metrics as
// nway_kernel, at a fraction of its loads.
template <typename real, int NT, int NRP, bool FUSED>
__global__ void __launch_bounds__(128) nway_register_kernel(chunk_args a,
                                                             int passes,
                                                             mrvd::workspace<real> w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    using bits_of = mrvd::metric_bits<real>;
    using bits_t = typename bits_of::type;
    const int m = a.m, npam = 1 << (m / 2), npoints = 1 << m;
    const int T = blockDim.x, pass = threadIdx.x % passes, part = threadIdx.x / passes;
    const int split = T / passes, p = threadIdx.y;
    const std::size_t v_raw = blockIdx.x * std::size_t(blockDim.y) + p;
    const bool active = v_raw < a.n;
    const std::size_t v = active ? v_raw : a.n - 1;
    const std::size_t c = channel_of(a, v);
    const real scale = real(a.pam_scale);
    bits_t* best = reinterpret_cast<bits_t*>(smem) + std::size_t(p) * NT * npoints;
    for (int i = threadIdx.x; i < NT * npoints; i += T)
        best[i] = bits_of::infinity;

    register_model<real, NT> md;
    if (FUSED)
        qr_in_registers<real, NT, NRP>(a, c, v, pass, md);
    else
        load_model_registers<real, NT>(a, w, passes, c, v, pass, md);
    __syncthreads();

    constexpr int top = NT - 1;
    const real r_top = md.r[top][top].re;
    for (int k = part; k < npoints; k += split) {
        int li[NT], lq[NT];
        cplx<real> x[NT];
        // Full expansion of the last column: point k.
        li[top] = a.i_levels[k];
        lq[top] = a.q_levels[k];
        x[top] = { pam_amplitude<real>(li[top], npam, scale),
                   pam_amplitude<real>(lq[top], npam, scale) };
        const cplx<real> e_top = md.yhat[top] - r_top * x[top];
        real d = norm2(e_top);
        // Greedy completion, stream by stream.
#pragma unroll
        for (int s = NT - 2; s >= 0; s--) {
            cplx<real> b = md.yhat[s];
#pragma unroll
            for (int j = s + 1; j < NT; j++)
                b = b - md.r[s][j] * x[j];
            const real rss = md.r[s][s].re;
            lq[s] = nearest_level(b.im / rss, scale, npam);
            li[s] = nearest_level(b.re / rss, scale, npam);
            x[s] = { pam_amplitude<real>(li[s], npam, scale),
                     pam_amplitude<real>(lq[s], npam, scale) };
            d += norm2(b - rss * x[s]);
        }
        if (active) {
            const bits_t db = bits_of::of(d);
#pragma unroll
            for (int j = 0; j < NT; j++) {
                const int point = a.from_levels[li[j] * npam + lq[j]];
                atomicMin(&best[md.stream[j] * npoints + point], db);
            }
        }
    }
    __syncthreads();
    if (active)
        mrvd::write_llrs_from_minima<real>(a, best, v, c, threadIdx.x, T);
}

template <typename real, int NT>
void launch_register(const chunk_args& a, int passes, const mrvd::workspace<real>& w, cudaStream_t s)
{
    if (!register_qr_fused(a.nt, a.nr, a.group))
        mrvd::launch_qr(a, passes, w, s);
    const std::size_t per_problem =
        std::size_t(NT) * (std::size_t(1) << a.m) * sizeof(typename mrvd::metric_bits<real>::type);
    // Threads per problem: passes x split, split doubled (up to the candidates of a
    // pass) until the problems whose tables fit in an SM's shared memory (~200 KB)
    // bring at least 1024 threads, what the registers of the nt = 4 kernel allow.
    int split = 1;
    while (split * 2 <= (1 << a.m) && split * passes < 32 &&
           (200 * 1024 / per_problem) * passes * split < 1024)
        split *= 2;
    const int per = passes * split;
    const int by_threads = std::max(1, 128 / per);
    const int by_smem = int(std::max<std::size_t>(1, (48 * 1024) / per_problem));
    const int problems = std::min(by_threads, by_smem);
    const std::size_t smem = per_problem * problems;
    const unsigned blocks = unsigned((a.n + problems - 1) / problems);
    dispatch_register_instance<NT>(a, [&](auto nrp, auto fused) {
        nway_register_kernel<real, NT, decltype(nrp)::value, decltype(fused)::value>
            <<<blocks, dim3(per, problems), smem, s>>>(a, passes, w);
        GPUMIMO_CUDA_CHECK_LAUNCH("nway_register_kernel");
    });
}

template <typename real>
void launch(const chunk_args& a, int passes, void* ws, cudaStream_t s)
{
    const mrvd::workspace<real> w = mrvd::carve<real>(ws, a.nch, a.nt, a.nr, passes);
    if (register_kernel_serves(a.nt))
        return dispatch_nt(a.nt, [&](auto nt) {
            launch_register<real, decltype(nt)::value>(a, passes, w, s);
        });
    mrvd::launch_qr(a, passes, w, s);

    const int cands = (1 << a.m) * passes;
    const std::size_t per_problem = problem_smem_bytes<real>(passes, a.nt, 1 << a.m);
    const int threads = cands >= 256 ? 256 : (cands + 31) / 32 * 32;
    const int problems = threads >= 128 ? 1 : 128 / threads;
    const std::size_t smem = per_problem * problems;
    auto run = [&](auto kernel) {
        allow_dynamic_smem(kernel, smem);
        kernel<<<unsigned((a.n + problems - 1) / problems),
                 dim3(threads, problems),
                 smem,
                 s>>>(a, passes, w, per_problem);
        GPUMIMO_CUDA_CHECK_LAUNCH("nway_kernel");
    };
    run(nway_kernel<real, 0>);
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

// The registry's GPU entry of nway.
namespace {
int passes_of(int nt, const core::detector_params& p)
{
    return p.nway.passes > 0 ? p.nway.passes : nt;
}
} // namespace

const gpu_detector_entry& nway_gpu_detector()
{
    static const gpu_detector_entry e{
        supported,
        [](int nt, int nr, const core::detector_params& p, bool dbl) {
            return nway_workspace_bytes(nt, nr, passes_of(nt, p), dbl);
        },
        no_plan,
        [](const gpu_launch& l, cudaStream_t s) {
            launch_nway(l.a, passes_of(l.a.nt, *l.params), l.ws, l.dbl, s);
        } };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
