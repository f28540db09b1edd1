/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Multi-pass trellis traversal on the GPU (mtt-soft-mimo-detector-gpu.txt, section 5),
 * the same algorithm as lib/core/detect/references/mtt_ref.cc:
 *  - mtt_prep_kernel: one thread per channel matrix, sorted QR by modified Gram-Schmidt
 *    (the reference's operations in the same order), Q, R and the column order to the
 *    workspace; once per matrix, however many vectors share it.
 *  - mtt_kernel: Q threads per problem (one per trellis vertex) and several problems per
 *    block so warps are full (section 5); paths and partial distances in shared memory;
 *    each edge reduction reuses the intermediate vectors delta_k (eq. 13) computed once
 *    per path, expanded so that a (vertex, path) pair costs two FMAs (see the kernel).
 * Path extension picks the nearest point by slicing b / R_aa per dimension: the paper's
 * search over all Q outgoing edges finds the same point (|b - R_aa p|^2 = R_aa^2 |b/R_aa
 * - p|^2 on a square grid) in O(1) instead of O(Q).
 */
#include "detect/blocks/block_matrices.cuh"
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/kernels/mtt.cuh"
#include "detect/gpu_registry.cuh"

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kMaxNt = 8;

template <typename real>
struct mtt_workspace {
    cplx<real>* q;       // [nch][nr][nt]
    cplx<real>* r;       // [nch][nt][nt]
    unsigned char* perm; // [nch][nt]
};

template <typename real>
mtt_workspace<real> carve(void* ws, std::size_t nch, int nt, int nr)
{
    mtt_workspace<real> w;
    w.q = static_cast<cplx<real>*>(ws);
    w.r = w.q + nch * nr * nt;
    w.perm = reinterpret_cast<unsigned char*>(w.r + nch * nt * nt);
    return w;
}

// One thread per channel matrix; the matrices in shared memory (block_matrices.cuh).
template <typename real>
__global__ void mtt_prep_kernel(chunk_args a, mtt_workspace<real> w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, T = blockDim.x;
    const std::size_t c0 = blockIdx.x * std::size_t(T);
    cplx<real>* qbase = reinterpret_cast<cplx<real>*>(smem);
    cplx<real>* rbase = qbase + std::size_t(T) * nr * nt;
    const thread_matrix<cplx<real>> q = load_block_channels<real>(a, qbase, c0);
    const thread_matrix<cplx<real>> r{ rbase, T, int(threadIdx.x) };
    const std::size_t c = c0 + threadIdx.x;
    if (c < a.nch) {
        int perm[kMaxNt];
        real norm2v[kMaxNt];
        for (int j = 0; j < nt; j++) {
            perm[j] = j;
            norm2v[j] = 0;
            for (int i = 0; i < nt; i++)
                r[i * nt + j] = { 0, 0 };
            for (int i = 0; i < nr; i++)
                norm2v[j] += norm2(q[i * nt + j]);
        }
        // Wübben's sorted QR: the remaining column of least norm next
        // (lib/core/common/linalg.cc).
        for (int k = 0; k < nt; k++) {
            int best = k;
            for (int j = k + 1; j < nt; j++)
                if (norm2v[j] < norm2v[best])
                    best = j;
            if (best != k) {
                const int tp = perm[k];
                perm[k] = perm[best];
                perm[best] = tp;
                const real tn = norm2v[k];
                norm2v[k] = norm2v[best];
                norm2v[best] = tn;
                for (int i = 0; i < nr; i++) {
                    const cplx<real> t = q[i * nt + k];
                    q[i * nt + k] = q[i * nt + best];
                    q[i * nt + best] = t;
                }
                for (int i = 0; i < k; i++) {
                    const cplx<real> t = r[i * nt + k];
                    r[i * nt + k] = r[i * nt + best];
                    r[i * nt + best] = t;
                }
            }
            mgs_step(q, r, k, nt, nr, norm2v);
        }
        for (int j = 0; j < nt; j++)
            w.perm[c * nt + j] = static_cast<unsigned char>(perm[j]);
    }
    __syncthreads();
    // Coalesced write-out of the block's Q and R.
    const std::size_t count = a.nch - c0 < std::size_t(T) ? a.nch - c0 : std::size_t(T);
    const int pq = nr * nt, pr = nt * nt;
    store_block_matrices(w.q + c0 * pq, qbase, count, pq, T);
    store_block_matrices(w.r + c0 * pr, rbase, count, pr, T);
}

// What path k offers every vertex of the next stage in an edge reduction, packed for
// one vector load: w = metric_k + |u_k|^2, (a, b) = -2 u_k.
template <typename real>
struct alignas(4 * sizeof(real)) edge_term {
    real w, a, b, pad;
};

template <int Q>
__host__ __device__ constexpr int problems_per_block()
{
    return Q >= 128 ? 1 : 128 / Q;
}

template <typename real, int Q>
__global__ void __launch_bounds__(Q* problems_per_block<Q>())
    mtt_kernel(chunk_args a, mtt_workspace<real> w, int npam)
{
    constexpr int P = problems_per_block<Q>();
    __shared__ cplx<real> s_points[Q];
    __shared__ unsigned char s_from_levels[Q];
    __shared__ cplx<real> s_r[P][kMaxNt * kMaxNt];
    __shared__ cplx<real> s_yhat[P][kMaxNt];
    __shared__ unsigned char s_path[2][P][Q][kMaxNt];
    __shared__ real s_metric[2][P][Q];
    __shared__ edge_term<real> s_term[P][Q];
    __shared__ real s_list[P][Q];

    const int q = threadIdx.x;
    const int p = threadIdx.y;
    const int nt = a.nt, nr = a.nr, m = a.m;
    const std::size_t v_raw = blockIdx.x * std::size_t(P) + p;
    const bool active = v_raw < a.n;
    const std::size_t v = active ? v_raw : a.n - 1; // idle problems compute, never write
    const std::size_t c = channel_of(a, v);

    for (int i = p * Q + q; i < Q; i += P * Q) {
        s_points[i] = point_of<real>(a, i);
        s_from_levels[i] = a.from_levels[i];
    }
    for (int i = q; i < nt * nt; i += Q)
        s_r[p][i] = w.r[c * nt * nt + i];
    for (int j = q; j < nt; j += Q) {
        cplx<real> acc{ 0, 0 };
        for (int i = 0; i < nr; i++)
            acc = acc + conj_mul(w.q[(c * nr + i) * nt + j],
                                 from_float2<real>(a.y[v * nr + i]));
        s_yhat[p][j] = acc;
    }
    __syncthreads();

    const cplx<real>* R = s_r[p];
    const cplx<real>* yhat = s_yhat[p];
    const real n0 = real(a.scalar_noise ? a.noise[0] : a.noise[c]);
    const real scale = real(a.pam_scale);

    // Stage 0 (column nt-1): one path per vertex.
    int cur = 0;
    s_metric[cur][p][q] = norm2(yhat[nt - 1] - R[(nt - 1) * nt + nt - 1] * s_points[q]);
    s_path[cur][p][q][nt - 1] = static_cast<unsigned char>(q);
    __syncthreads();

    for (int t = 0; t < nt; t++) {
        const int col = nt - 1 - t;
        if (t > 0) {
            // Edge reduction at stage t: vertex q keeps its best incoming path (eq. 9).
            // With u_k = y^_col - delta_k (eq. 13) and v_q = R_col,col p_q,
            //   metric_k + |u_k - v_q|^2 = (metric_k + |u_k|^2) - 2 Re(u_k conj v_q) +
            //   |v_q|^2,
            // whose last term is the same for every k: each path k publishes
            // (metric_k + |u_k|^2, -2 u_k) once, and each (q, k) pair costs two FMAs.
            cplx<real> delta{ 0, 0 };
            for (int j = col + 1; j < nt; j++)
                delta = delta + R[col * nt + j] * s_points[s_path[cur][p][q][j]];
            const cplx<real> u = yhat[col] - delta;
            s_term[p][q] = {
                s_metric[cur][p][q] + norm2(u), real(-2) * u.re, real(-2) * u.im, 0
            };
            __syncthreads();
            const cplx<real> vq = R[col * nt + col].re * s_points[q];
            real best = INFINITY;
            int from = 0;
            for (int k = 0; k < Q; k++) {
                const edge_term<real> e = s_term[p][k];
                const real d = e.w + e.a * vq.re + e.b * vq.im;
                if (d < best) {
                    best = d;
                    from = k;
                }
            }
            best += norm2(vq);
            const int nxt = cur ^ 1;
            for (int j = col + 1; j < nt; j++)
                s_path[nxt][p][q][j] = s_path[cur][p][from][j];
            s_path[nxt][p][q][col] = static_cast<unsigned char>(q);
            s_metric[nxt][p][q] = best;
            __syncthreads();
            cur = nxt;
        }

        if (a.mtt_one_pass) {
            if (t < nt - 1)
                continue;
            // OT: every stream's bits from the last stage's Q complete paths; a missing
            // counter-hypothesis gives +-list_llr_clip, every LLR is clipped to it (the
            // CPU reference's bit_minima::write_llr).
            const real clip = real(a.list_llr_clip);
            for (int bit = q; bit < nt * m && active; bit += Q) {
                const int column = bit / m, b = bit % m;
                real min0 = INFINITY, min1 = INFINITY;
                for (int k = 0; k < Q; k++) {
                    const real dk = s_metric[cur][p][k];
                    if ((s_path[cur][p][k][column] >> (m - 1 - b)) & 1)
                        min1 = fmin(min1, dk);
                    else
                        min0 = fmin(min0, dk);
                }
                real llr;
                if (min0 == INFINITY)
                    llr = clip;
                else if (min1 == INFINITY)
                    llr = -clip;
                else
                    llr = fmin(fmax((min0 - min1) / n0, -clip), clip);
                const int stream = w.perm[c * nt + column];
                a.llr[v * std::size_t(nt * m) + stream * m + b] = float(llr);
            }
            break;
        }

        // L_t: thread q extends its own path through the remaining stages (eqs. 10-11).
        unsigned char pts[kMaxNt];
        for (int j = col; j < nt; j++)
            pts[j] = s_path[cur][p][q][j];
        real d = s_metric[cur][p][q];
        for (int row = col - 1; row >= 0; row--) {
            cplx<real> b = yhat[row];
            for (int j = row + 1; j < nt; j++)
                b = b - R[row * nt + j] * s_points[pts[j]];
            const real rdiag = R[row * nt + row].re;
            const int li = nearest_level(b.re / rdiag, scale, npam);
            const int lq = nearest_level(b.im / rdiag, scale, npam);
            const int best = s_from_levels[li * npam + lq];
            pts[row] = static_cast<unsigned char>(best);
            d += norm2(b - R[row * nt + row] * s_points[best]);
        }
        s_list[p][q] = d;
        __syncthreads();

        // LLRs of the bits of column col's stream from L_t (eq. 8, Algorithm 3).
        if (q < m && active) {
            real min0 = INFINITY, min1 = INFINITY;
            for (int k = 0; k < Q; k++) {
                const real dk = s_list[p][k];
                if ((k >> (m - 1 - q)) & 1)
                    min1 = fmin(min1, dk);
                else
                    min0 = fmin(min0, dk);
            }
            const int stream = w.perm[c * nt + col];
            a.llr[v * std::size_t(nt * m) + stream * m + q] = core::saturate_llr((min0 - min1) / n0);
        }
        __syncthreads();
    }
}

template <typename real, int Q>
void launch(const chunk_args& a, void* ws, int npam, cudaStream_t s)
{
    const mtt_workspace<real> w = carve<real>(ws, a.nch, a.nt, a.nr);
    const std::size_t per_thread =
        std::size_t(a.nr * a.nt + a.nt * a.nt) * sizeof(cplx<real>);
    const int prep_threads = block_threads_for(per_thread);
    const std::size_t prep_smem = prep_threads * per_thread;
    allow_dynamic_smem(mtt_prep_kernel<real>, prep_smem);
    mtt_prep_kernel<real><<<unsigned((a.nch + prep_threads - 1) / prep_threads),
                            prep_threads,
                            prep_smem,
                            s>>>(a, w);
    GPUMIMO_CUDA_CHECK_LAUNCH("mtt_prep_kernel");
    constexpr int P = problems_per_block<Q>();
    mtt_kernel<real, Q><<<unsigned((a.n + P - 1) / P), dim3(Q, P), 0, s>>>(a, w, npam);
    GPUMIMO_CUDA_CHECK_LAUNCH("mtt_kernel");
}

template <typename real>
void launch_for(const chunk_args& a, void* ws, int npam, cudaStream_t s)
{
    switch (a.m) {
    case 2:
        return launch<real, 4>(a, ws, npam, s);
    case 4:
        return launch<real, 16>(a, ws, npam, s);
    case 6:
        return launch<real, 64>(a, ws, npam, s);
    case 8:
        return launch<real, 256>(a, ws, npam, s);
    }
}

} // namespace

std::size_t mtt_workspace_bytes(int nt, int nr, bool dbl)
{
    const std::size_t c = dbl ? sizeof(cplx<double>) : sizeof(cplx<float>);
    return (std::size_t(nr) * nt + std::size_t(nt) * nt) * c + nt;
}

void launch_mtt(const chunk_args& a, void* ws, bool dbl, cudaStream_t s)
{
    if (a.n == 0)
        return;
    const int npam = 1 << (a.m / 2);
    if (dbl)
        launch_for<double>(a, ws, npam, s);
    else
        launch_for<float>(a, ws, npam, s);
}

// The registry's GPU entry of mtt (one-pass or multi-pass: chunk_args::mtt_one_pass).
const gpu_detector_entry& mtt_gpu_detector()
{
    static const gpu_detector_entry e{
        supported,
        [](int nt, int nr, const core::detector_params&, bool dbl) {
            return mtt_workspace_bytes(nt, nr, dbl);
        },
        no_plan,
        [](const gpu_launch& l, cudaStream_t s) { launch_mtt(l.a, l.ws, l.dbl, s); } };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
