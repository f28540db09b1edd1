/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The parallel sphere detector on the GPU (parallel-sphere-detector-gpu.txt, sections 4
 * and 6), the algorithm of lib/core/detect/references/psd_ref.cc:
 *  - psd_qr_kernel: one thread per channel matrix, the real QR (modified Gram-Schmidt)
 *    of the stacked real-valued decomposition, in shared memory.
 *  - psd_register_kernel (the default for nt <= 4): one problem per thread, a
 *    depth-first Schnorr-Euchner search compiled per nt, the QR model and the path in
 *    registers (register_model.cuh); many problems per SM at once, which the block
 *    mapping cannot have (docs/performance.md).
 *  - psd_thread_kernel (the default for nt > 4): the same search for any nt, its state
 *    indexed at run time (local memory).
 *  - psd_kernel (psd_block_search): one block per problem, problems handed out by a
 * persistent grid through an atomic counter, since exact ML work varies with channel and
 * noise (section 6). Per level, the block expands exp_x nodes at once, one thread per
 *    child (the Expand and Evaluate pipeline, Fig. 3), sorts them by (metric, index)
 *    through block-wide ranking, which is the reference's stable sort, and at the
 *    leaves searches the minimum. The control flow (offsets, radius) is uniform across
 *    the block. All buffers live in shared memory.
 * Every search keeps to the plan's node budget (max_nodes): the block search counts the
 * nodes it evaluates, as the reference, the depth-first searches the nodes they descend
 * into (inside the radius; each evaluates at most its level's PAM levels). Once it is
 * spent and a leaf stands, the search stops with the best leaf so far and counts itself
 * in device_errors::search_budget_hits. Each search's first descent reaches a leaf
 * unpruned (the radius is still infinite), the successive-cancellation point the
 * reference falls back on, so a leaf always stands after at most one descent.
 */
#include "detect/blocks/block_matrices.cuh"
#include "detect/blocks/constellation_table.cuh"
#include "common/cuda_check.cuh"
#include "common/launch_config.cuh"
#include "common/gpu_math.cuh"
#include "detect/kernels/chunk_args.cuh"
#include "detect/kernels/psd.cuh"
#include "detect/blocks/register_model.cuh"
#include "detect/gpu_registry.cuh"

#include <algorithm>

#include <cmath>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxDims = 16;
constexpr int kMaxEval = 2048; // nodes per level the block sorts at once

template <typename real>
struct psd_workspace {
    real* q; // [nch][2nr][2nt]
    real* r; // [nch][2nt][2nt]
};

template <typename real>
psd_workspace<real> carve(void* ws, std::size_t nch, int nt, int nr)
{
    psd_workspace<real> w;
    w.q = static_cast<real*>(ws);
    w.r = w.q + nch * (2 * nr) * (2 * nt);
    return w;
}

// Real QR of [Re H, -Im H; Im H, Re H] (real parts of all streams, then imaginary parts).
template <typename real>
__global__ void psd_qr_kernel(chunk_args a, psd_workspace<real> w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, rows = 2 * nr, dims = 2 * nt, T = blockDim.x;
    const int pq = rows * dims, pr = dims * dims;
    const std::size_t c0 = blockIdx.x * std::size_t(T);
    const std::size_t count = a.nch - c0 < std::size_t(T) ? a.nch - c0 : std::size_t(T);
    real* qbase = reinterpret_cast<real*>(smem);
    real* rbase = qbase + std::size_t(T) * pq;
    for (std::size_t i = threadIdx.x; i < std::size_t(T) * nr * nt; i += T) {
        const std::size_t t = i / (nr * nt);
        const int e = int(i % (nr * nt)), rr = e / nt, cc = e % nt;
        float2 h = make_float2(0.f, 0.f);
        if (t < count)
            h = a.h[(c0 + t) * nr * nt + e];
        qbase[(rr * dims + cc) * T + t] = h.x;
        qbase[(rr * dims + nt + cc) * T + t] = -h.y;
        qbase[((nr + rr) * dims + cc) * T + t] = h.y;
        qbase[((nr + rr) * dims + nt + cc) * T + t] = h.x;
    }
    __syncthreads();
    const thread_matrix<real> q{ qbase, T, int(threadIdx.x) };
    const thread_matrix<real> r{ rbase, T, int(threadIdx.x) };
    if (threadIdx.x < count) {
        for (int k = 0; k < dims; k++) {
            for (int j = 0; j < k; j++)
                r[k * dims + j] = 0;
            real nk = 0;
            for (int i = 0; i < rows; i++)
                nk += q[i * dims + k] * q[i * dims + k];
            const real rkk = sqrt(nk);
            r[k * dims + k] = rkk;
            if (rkk > 0)
                for (int i = 0; i < rows; i++)
                    q[i * dims + k] = q[i * dims + k] / rkk;
            for (int j = k + 1; j < dims; j++) {
                real dot = 0;
                for (int i = 0; i < rows; i++)
                    dot += q[i * dims + k] * q[i * dims + j];
                r[k * dims + j] = dot;
                for (int i = 0; i < rows; i++)
                    q[i * dims + j] -= dot * q[i * dims + k];
            }
        }
    }
    __syncthreads();
    store_block_matrices(w.q + c0 * pq, qbase, count, pq, T);
    store_block_matrices(w.r + c0 * pr, rbase, count, pr, T);
}

// A node: the PAM level of every fixed real unknown and its path metric.
template <typename real>
struct node_buf {
    real* metric;          // [cap]
    unsigned char* levels; // [cap][dims]
};

template <typename real>
__global__ void __launch_bounds__(kThreads) psd_kernel(chunk_args a,
                                                       psd_plan plan,
                                                       psd_workspace<real> w,
                                                       long long max_nodes,
                                                       unsigned* counter)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int nt = a.nt, nr = a.nr, m = a.m, dims = 2 * nt, rows = 2 * nr;
    const int npam = 1 << (m / 2);
    const real scale = real(a.pam_scale);
    const int nlev = plan.nlevels;

    // Shared layout: R, y^, then per level 1..nlev-1 a sorted buffer, then the scratch
    // of freshly expanded children (max_eval), then the best leaf.
    real* s_r = reinterpret_cast<real*>(smem);
    real* s_yhat = s_r + dims * dims;
    real* p = s_yhat + dims;
    node_buf<real> buf[18];
    for (int x = 1; x < nlev; x++) {
        buf[x].metric = p;
        p += plan.eval[x];
    }
    node_buf<real> kids;
    kids.metric = p;
    p += plan.max_eval;
    unsigned char* pb = reinterpret_cast<unsigned char*>(p);
    for (int x = 1; x < nlev; x++) {
        buf[x].levels = pb;
        pb += plan.eval[x] * dims;
    }
    kids.levels = pb;
    pb += plan.max_eval * dims;
    unsigned char* best_levels = pb;
    pb += dims;
    int* s_rank_target =
        reinterpret_cast<int*>((reinterpret_cast<std::size_t>(pb) + 15) / 16 * 16);
    __shared__ real s_radius;
    __shared__ int s_best_index;
    __shared__ real s_red_metric[kThreads / 32];
    __shared__ int s_red_index[kThreads / 32];
    __shared__ unsigned s_problem;
    __shared__ int s_size[18], s_off[18], s_x;

    for (;;) {
        if (threadIdx.x == 0)
            s_problem = atomicAdd(counter, 1u);
        __syncthreads();
        const std::size_t v = s_problem;
        if (v >= a.n)
            return;
        const std::size_t c = channel_of(a, v);
        for (int i = threadIdx.x; i < dims * dims; i += blockDim.x)
            s_r[i] = w.r[c * dims * dims + i];
        for (int k = threadIdx.x; k < dims; k += blockDim.x) {
            const real* qm = w.q + c * rows * dims;
            real acc = 0;
            for (int rr = 0; rr < nr; rr++) {
                const float2 y = a.y[v * nr + rr];
                acc +=
                    qm[rr * dims + k] * real(y.x) + qm[(nr + rr) * dims + k] * real(y.y);
            }
            s_yhat[k] = acc;
        }
        if (threadIdx.x == 0) {
            s_radius = INFINITY;
            s_x = 0;
        }
        for (int j = threadIdx.x; j < dims; j += blockDim.x)
            best_levels[j] =
                0; // defined even if bad input leaves no leaf inside the sphere
        __syncthreads();

        // Expands parents [first, first+count) of level index x (x = 0: the root) onto
        // level x+1 into kids; returns the number of children.
        auto expand = [&](int x, int first, int count) -> int {
            const int from = plan.lvl[x], to = plan.lvl[x + 1];
            const int g = from - to;
            int per = 1;
            for (int i = 0; i < g; i++)
                per *= npam;
            const int total = count * per;
            for (int cidx = threadIdx.x; cidx < total; cidx += blockDim.x) {
                const int parent = first + cidx / per;
                int digits = cidx % per;
                unsigned char* lv = kids.levels + cidx * dims;
                real metric;
                if (x == 0) {
                    metric = 0;
                } else {
                    metric = buf[x].metric[parent];
                    const unsigned char* plv = buf[x].levels + parent * dims;
                    for (int j = from - 1; j < dims; j++)
                        lv[j] = plv[j];
                }
                if (x > 0 && !(metric < s_radius)) {
                    kids.metric[cidx] = INFINITY; // outside the sphere: never expanded
                    continue;
                }
                // Rows from-2 (most significant digit) down to to-1.
                int div = per;
                for (int row = from - 2; row >= to - 1; row--) {
                    div /= npam;
                    const int l = digits / div;
                    digits %= div;
                    lv[row] = static_cast<unsigned char>(l);
                    real b = s_yhat[row];
                    for (int j = row + 1; j < dims; j++)
                        b -=
                            s_r[row * dims + j] * pam_amplitude<real>(lv[j], npam, scale);
                    const real e =
                        b - s_r[row * dims + row] * pam_amplitude<real>(l, npam, scale);
                    metric += e * e;
                }
                kids.metric[cidx] = metric;
            }
            __syncthreads();
            return total;
        };

        // Sorted copy of kids[0, n) into buf[x] by (metric, index): each child's rank.
        auto sort_into = [&](int x, int n) {
            for (int i = threadIdx.x; i < n; i += blockDim.x) {
                const real mi = kids.metric[i];
                int rank = 0;
                for (int j = 0; j < n; j++) {
                    const real mj = kids.metric[j];
                    rank += (mj < mi) || (mj == mi && j < i) || (isnan(mi) && !isnan(mj))
                                ? 1
                                : 0;
                }
                s_rank_target[i] = rank;
            }
            __syncthreads();
            for (int i = threadIdx.x; i < n; i += blockDim.x) {
                const int t = s_rank_target[i];
                buf[x].metric[t] = kids.metric[i];
                for (int j = 0; j < dims; j++)
                    buf[x].levels[t * dims + j] = kids.levels[i * dims + j];
            }
            __syncthreads();
        };

        // Minimum leaf of kids[0, n) by (metric, index); a new radius if it beats it.
        auto offer_leaves = [&](int n) {
            real bm = INFINITY;
            int bi = -1;
            for (int i = threadIdx.x; i < n; i += blockDim.x)
                if (kids.metric[i] < bm) {
                    bm = kids.metric[i];
                    bi = i;
                }
            for (int off = 16; off > 0; off /= 2) {
                const real om = __shfl_down_sync(0xffffffffu, bm, off);
                const int oi = __shfl_down_sync(0xffffffffu, bi, off);
                if (om < bm || (om == bm && oi >= 0 && (bi < 0 || oi < bi))) {
                    bm = om;
                    bi = oi;
                }
            }
            if (threadIdx.x % 32 == 0) {
                s_red_metric[threadIdx.x / 32] = bm;
                s_red_index[threadIdx.x / 32] = bi;
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                real m0 = INFINITY;
                int i0 = -1;
                for (int wi = 0; wi < int(blockDim.x / 32); wi++) {
                    const real om = s_red_metric[wi];
                    const int oi = s_red_index[wi];
                    if (om < m0 || (om == m0 && oi >= 0 && (i0 < 0 || oi < i0))) {
                        m0 = om;
                        i0 = oi;
                    }
                }
                s_best_index = (i0 >= 0 && m0 < s_radius) ? i0 : -1;
                if (s_best_index >= 0)
                    s_radius = m0;
            }
            __syncthreads();
            if (s_best_index >= 0)
                for (int j = threadIdx.x; j < dims; j += blockDim.x)
                    best_levels[j] = kids.levels[s_best_index * dims + j];
            __syncthreads();
        };

        const int n1 = expand(0, 0, 1);
        if (nlev == 1) {
            offer_leaves(n1);
        } else {
            sort_into(1, n1);
            if (threadIdx.x == 0) {
                s_size[1] = n1;
                s_off[1] = 0;
                s_x = 1;
            }
            __syncthreads();
            long long nodes = n1; // uniform across the block, as the control flow
            while (s_x >= 1) {
                const int x = s_x;
                const int off = s_off[x];
                if (nodes >= max_nodes && s_radius < INFINITY) {
                    if (threadIdx.x == 0)
                        atomicAdd(&a.errors->search_budget_hits, 1ull);
                    break; // the best leaf so far stands for ML's
                }
                const bool go = off < s_size[x] && buf[x].metric[off] < s_radius;
                __syncthreads();
                if (go) {
                    const int count = min(plan.exp[x], s_size[x] - off);
                    const int n = expand(x, off, count);
                    nodes += n;
                    if (threadIdx.x == 0)
                        s_off[x] = off + count;
                    if (x + 1 == nlev) {
                        offer_leaves(n);
                    } else {
                        sort_into(x + 1, n);
                        if (threadIdx.x == 0) {
                            s_size[x + 1] = n;
                            s_off[x + 1] = 0;
                            s_x = x + 1;
                        }
                    }
                } else if (threadIdx.x == 0) {
                    s_x = x - 1; // the rest of this buffer lies outside the sphere
                }
                __syncthreads();
            }
        }

        // The ML decision as +-list_llr_clip per bit.
        for (int bit = threadIdx.x; bit < nt * m; bit += blockDim.x) {
            const int stream = bit / m, k = bit % m;
            const int li = best_levels[stream], lq = best_levels[nt + stream];
            const int point = a.from_levels[li * npam + lq];
            a.llr[v * std::size_t(nt * m) + bit] =
                ((point >> (m - 1 - k)) & 1) ? a.list_llr_clip : -a.list_llr_clip;
        }
        __syncthreads();
    }
}

// Exact ML by a depth-first sphere search, one problem per thread (problems from the
// persistent counter as each thread finishes one). At each level the PAM levels are
// enumerated in Schnorr-Euchner order, nearest to the centre b_i / R_ii first and then
// alternately outwards, so the metrics of a level's candidates never decrease and the
// level is left at the first one outside the radius. The radius starts infinite and
// becomes the metric of each better leaf. Same real model and QR as the block search.
template <typename real>
__global__ void psd_thread_kernel(chunk_args a,
                                  psd_workspace<real> w,
                                  long long max_nodes,
                                  unsigned* counter)
{
    const int nt = a.nt, nr = a.nr, m = a.m, dims = 2 * nt, rows = 2 * nr;
    const int npam = 1 << (m / 2);
    const real scale = real(a.pam_scale);
    for (;;) {
        const std::size_t v = atomicAdd(counter, 1u);
        if (v >= a.n)
            return;
        const std::size_t c = channel_of(a, v);
        const real* R = w.r + c * dims * dims;
        real yhat[kMaxDims];
        {
            const real* qm = w.q + c * rows * dims;
            for (int k = 0; k < dims; k++) {
                real acc = 0;
                for (int rr = 0; rr < nr; rr++) {
                    const float2 y = a.y[v * nr + rr];
                    acc += qm[rr * dims + k] * real(y.x) +
                           qm[(nr + rr) * dims + k] * real(y.y);
                }
                yhat[k] = acc;
            }
        }
        int level[kMaxDims], lo[kMaxDims], hi[kMaxDims], best[kMaxDims];
        real b[kMaxDims], pm[kMaxDims + 1];
        for (int j = 0; j < dims; j++)
            best[j] = 0;
        real radius = INFINITY;
        pm[dims] = 0;

        // Enters level i: its centre, and its enumeration reset to "nothing emitted".
        auto enter = [&](int i) {
            real bi = yhat[i];
            for (int j = i + 1; j < dims; j++)
                bi -= R[i * dims + j] * pam_amplitude<real>(level[j], npam, scale);
            b[i] = bi;
            lo[i] = npam;
            hi[i] = -1;
        };
        // The next PAM level of level i in Schnorr-Euchner order, or -1 when none is
        // left.
        auto next = [&](int i) -> int {
            const real centre = b[i] / R[i * dims + i];
            if (lo[i] > hi[i]) {
                const real l = rint((centre / scale + real(npam - 1)) * real(0.5));
                const int l0 = int(fmin(fmax(l, real(0)), real(npam - 1)));
                lo[i] = hi[i] = l0;
                return l0;
            }
            const int down = lo[i] - 1, up = hi[i] + 1;
            const bool can_down = down >= 0, can_up = up < npam;
            if (!can_down && !can_up)
                return -1;
            const bool take_down =
                can_down &&
                (!can_up || fabs(centre - pam_amplitude<real>(down, npam, scale)) <=
                                fabs(pam_amplitude<real>(up, npam, scale) - centre));
            if (take_down)
                lo[i] = down;
            else
                hi[i] = up;
            return take_down ? down : up;
        };

        int i = dims - 1;
        enter(i);
        long long entered = 0;
        while (i < dims) {
            const int l = next(i);
            if (l < 0) {
                i++;
                continue;
            }
            const real e = b[i] - R[i * dims + i] * pam_amplitude<real>(l, npam, scale);
            const real metric = pm[i + 1] + e * e;
            if (!(metric < radius)) {
                i++; // the rest of this level is no closer: leave it
                continue;
            }
            level[i] = l;
            pm[i] = metric;
            if (i == 0) {
                radius = metric;
                for (int j = 0; j < dims; j++)
                    best[j] = level[j];
                i++; // the other leaves here cannot beat this one
            } else if (++entered >= max_nodes && radius < INFINITY) {
                // Out of budget: a radius of 0 leaves every level at its next
                // candidate, and the best leaf so far stands for ML's.
                atomicAdd(&a.errors->search_budget_hits, 1ull);
                radius = 0;
                i++;
            } else {
                i--;
                enter(i);
            }
        }

        for (int bit = 0; bit < nt * m; bit++) {
            const int stream = bit / m, k = bit % m;
            const int point = a.from_levels[best[stream] * npam + best[nt + stream]];
            a.llr[v * std::size_t(nt * m) + bit] =
                ((point >> (m - 1 - k)) & 1) ? a.list_llr_clip : -a.list_llr_clip;
        }
    }
}

// The Schnorr-Euchner order of one real level's PAM levels around its centre: nearest
// first, then alternately outwards, so that the levels' distances never decrease.
template <typename real>
struct se_order {
    real centre, scale;
    int npam, lo, hi;
    __device__ __forceinline__ int first()
    {
        lo = hi = nearest_level(centre, scale, npam);
        return lo;
    }
    // The next level, or -1 when none is left.
    __device__ __forceinline__ int next()
    {
        const int down = lo - 1, up = hi + 1;
        const bool can_down = down >= 0, can_up = up < npam;
        if (!can_down && !can_up)
            return -1;
        const bool take_down =
            can_down && (!can_up || fabs(centre - pam_amplitude<real>(down, npam, scale)) <=
                                        fabs(pam_amplitude<real>(up, npam, scale) - centre));
        if (take_down)
            return lo = down;
        return hi = up;
    }
};

template <typename real, int NT>
struct sphere_state {
    register_model<real, NT> md;
    real inv_r[NT]; // 1 / r_ss: centres by a multiplication, not a division per node
    cplx<real> x[NT];
    int li[NT], lq[NT], best_li[NT], best_lq[NT];
    real radius, scale;
    int npam;
    unsigned budget_left; // descents left (budget_left32 of the budget)
    bool out_of_budget;   // set once the budget is spent and a leaf stands
};

// The budget as a 32-bit count down: one register and a compare with zero per descent
// (a 64-bit count and limit measured the same: the 8% the budget costs the 4x4 16-QAM
// rate at 20 dB is the descent's branch, docs/performance.md); budgets beyond 2^32 - 1
// (hours of search) act as 2^32 - 1.
inline unsigned budget_left32(long long max_nodes)
{
    return unsigned(std::min<long long>(std::max<long long>(max_nodes, 1), 0xffffffffll));
}

// Counts a node the search is about to descend into; false when the budget is spent and
// a leaf stands: the radius becomes 0, so that every level on the path is left at its
// next candidate and the best leaf so far stands for ML's. Counting descents, not every
// candidate evaluated, keeps the count out of the innermost loops (counting every
// candidate cost 10-20% of the kernel's rate).
template <typename real, int NT>
__device__ __forceinline__ bool may_descend(sphere_state<real, NT>& st)
{
    if (--st.budget_left != 0)
        return true;
    if (!(st.radius < INFINITY)) { // no leaf yet: look again at the next descent
        st.budget_left = 1;
        return true;
    }
    st.out_of_budget = true;
    st.radius = 0;
    return false;
}

// Depth-first sphere search below stream S (streams NT-1..S+1 fixed in st.x, path metric
// pd): the imaginary level of stream S, then its real level (the interleaved order; both
// share the centre's interference sum), each in Schnorr-Euchner order and left at the
// first level outside the radius. One template instance per stream, so the whole path
// lives in registers.
template <typename real, int NT, int S>
__device__ __forceinline__ void sphere_search(sphere_state<real, NT>& st, real pd)
{
    cplx<real> b = st.md.yhat[S];
#pragma unroll
    for (int j = S + 1; j < NT; j++)
        b = b - st.md.r[S][j] * st.x[j];
    const real rss = st.md.r[S][S].re;
    se_order<real> im{ b.im * st.inv_r[S], st.scale, st.npam, 0, 0 };
    for (int lq = im.first(); lq >= 0; lq = im.next()) {
        const real aq = pam_amplitude<real>(lq, st.npam, st.scale);
        const real eq = b.im - rss * aq;
        const real pq = pd + eq * eq;
        if (!(pq < st.radius))
            break;
        se_order<real> re{ b.re * st.inv_r[S], st.scale, st.npam, 0, 0 };
        for (int li = re.first(); li >= 0; li = re.next()) {
            const real ai = pam_amplitude<real>(li, st.npam, st.scale);
            const real ei = b.re - rss * ai;
            const real pi = pq + ei * ei;
            if (!(pi < st.radius))
                break;
            st.x[S] = { ai, aq };
            st.li[S] = li;
            st.lq[S] = lq;
            if constexpr (S == 0) {
                st.radius = pi; // a better leaf; its siblings are no closer
#pragma unroll
                for (int j = 0; j < NT; j++) {
                    st.best_li[j] = st.li[j];
                    st.best_lq[j] = st.lq[j];
                }
                break;
            } else {
                if (!may_descend(st))
                    return;
                sphere_search<real, NT, S - 1>(st, pi);
            }
        }
    }
}

// nt <= 4: the thread-per-problem search with the problem's QR model and path in
// registers (register_model.cuh: the complex QR and its interleaved real model instead
// of the stacked real QR; another level order, the same ML decision). FUSED: the sorted
// QR is computed here from H (strong streams decided first: fewer nodes); otherwise
// the unsorted QR comes from mrvd::qr_kernel, once per matrix.
template <typename real, int NT, int NRP, bool FUSED>
__global__ void __launch_bounds__(128) psd_register_kernel(chunk_args a,
                                                           mrvd::workspace<real> w,
                                                           unsigned budget,
                                                           unsigned* counter)
{
    const int m = a.m, npam = 1 << (m / 2);
    for (;;) {
        const std::size_t v = atomicAdd(counter, 1u);
        if (v >= a.n)
            return;
        const std::size_t c = channel_of(a, v);
        sphere_state<real, NT> st;
        if (FUSED)
            qr_in_registers<real, NT, NRP, true>(a, c, v, 0, st.md);
        else
            load_model_registers<real, NT>(a, w, 1, c, v, 0, st.md);
#pragma unroll
        for (int s = 0; s < NT; s++)
            st.inv_r[s] = real(1) / st.md.r[s][s].re;
        st.radius = INFINITY;
        st.scale = real(a.pam_scale);
        st.npam = npam;
        st.budget_left = budget;
        st.out_of_budget = false;
#pragma unroll
        for (int j = 0; j < NT; j++) // defined even if bad input leaves no leaf inside
            st.best_li[j] = st.best_lq[j] = 0;
        sphere_search<real, NT, NT - 1>(st, real(0));
        if (st.out_of_budget)
            atomicAdd(&a.errors->search_budget_hits, 1ull);

        float* out = a.llr + v * std::size_t(NT * m);
#pragma unroll
        for (int j = 0; j < NT; j++) {
            const int point = a.from_levels[st.best_li[j] * npam + st.best_lq[j]];
            const int stream = st.md.stream[j];
            for (int k = 0; k < m; k++)
                out[stream * m + k] =
                    ((point >> (m - 1 - k)) & 1) ? a.list_llr_clip : -a.list_llr_clip;
        }
    }
}

template <typename real, int NT>
void launch_register(
    const chunk_args& a, long long max_nodes, void* ws, unsigned* counter, cudaStream_t s)
{
    const mrvd::workspace<real> w = mrvd::carve<real>(ws, a.nch, a.nt, a.nr, 1);
    if (!register_qr_fused(a.nt, a.nr, a.group))
        mrvd::launch_qr(a, 1, w, s);
    dispatch_register_instance<NT>(a, [&](auto nrp, auto fused) {
        const auto kernel =
            psd_register_kernel<real, NT, decltype(nrp)::value, decltype(fused)::value>;
        const int threads = 128;
        const std::size_t blocks =
            persistent_blocks(kernel, threads, 0, (a.n + threads - 1) / threads);
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
        kernel<<<unsigned(blocks), threads, 0, s>>>(
            a, w, budget_left32(max_nodes), counter);
        GPUMIMO_CUDA_CHECK_LAUNCH("psd_register_kernel");
    });
}

template <typename real>
void launch(const chunk_args& a,
            const psd_plan& plan,
            long long max_nodes,
            bool block_search,
            void* ws,
            unsigned* counter,
            cudaStream_t s)
{
    if (!block_search && register_kernel_serves(a.nt))
        return dispatch_nt(a.nt, [&](auto nt) {
            launch_register<real, decltype(nt)::value>(a, max_nodes, ws, counter, s);
        });
    const psd_workspace<real> w = carve<real>(ws, a.nch, a.nt, a.nr);
    const std::size_t per_thread =
        std::size_t(4 * a.nr * a.nt + 4 * a.nt * a.nt) * sizeof(real);
    const int qr_threads = block_threads_for(per_thread);
    const std::size_t qr_smem = qr_threads * per_thread;
    allow_dynamic_smem(psd_qr_kernel<real>, qr_smem);
    psd_qr_kernel<real>
        <<<unsigned((a.nch + qr_threads - 1) / qr_threads), qr_threads, qr_smem, s>>>(a,
                                                                                      w);
    GPUMIMO_CUDA_CHECK_LAUNCH("psd_qr_kernel");

    if (!block_search) {
        const int threads = 128;
        const std::size_t blocks = persistent_blocks(
            psd_thread_kernel<real>, threads, 0, (a.n + threads - 1) / threads);
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
        psd_thread_kernel<real>
            <<<unsigned(blocks), threads, 0, s>>>(a, w, max_nodes, counter);
        GPUMIMO_CUDA_CHECK_LAUNCH("psd_thread_kernel");
        return;
    }
    const std::size_t smem = psd_shared_bytes(plan, a.nt, sizeof(real) == sizeof(double));
    allow_dynamic_smem(psd_kernel<real>, smem);
    const std::size_t blocks = persistent_blocks(psd_kernel<real>, kThreads, smem, a.n);
    GPUMIMO_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
    psd_kernel<real>
        <<<unsigned(blocks), kThreads, smem, s>>>(a, plan, w, max_nodes, counter);
    GPUMIMO_CUDA_CHECK_LAUNCH("psd_kernel");
}

} // namespace

bool psd_make_plan(const std::vector<int>& lvl,
                   const std::vector<int>& exp,
                   int npam,
                   int nt,
                   psd_plan& plan,
                   std::string* why)
{
    const int nlev = int(lvl.size()) - 1;
    if (nlev < 1 || nlev > 16 || 2 * nt > kMaxDims) {
        if (why)
            *why = "psd level set outside the CUDA kernel's limits";
        return false;
    }
    plan.nlevels = nlev;
    plan.max_eval = 0;
    for (int x = 0; x <= nlev; x++)
        plan.lvl[x] = lvl[x];
    for (int x = 0; x < nlev; x++)
        plan.exp[x] = exp[x];
    for (int x = 1; x <= nlev; x++) {
        const double eval = exp[x - 1] * std::pow(double(npam), lvl[x - 1] - lvl[x]);
        if (eval > kMaxEval) {
            if (why)
                *why = "psd level " + std::to_string(lvl[x]) + " evaluates " +
                       std::to_string(long(eval)) +
                       " nodes at once; the CUDA kernel sorts at most " +
                       std::to_string(kMaxEval);
            return false;
        }
        plan.eval[x] = int(eval);
        plan.max_eval = std::max(plan.max_eval, int(eval));
    }
    return true;
}

std::size_t psd_workspace_bytes(int nt, int nr, bool dbl)
{
    return std::size_t(4 * nr * nt + 4 * nt * nt) *
           (dbl ? sizeof(double) : sizeof(float));
}

std::size_t psd_shared_bytes(const psd_plan& plan, int nt, bool dbl)
{
    const int dims = 2 * nt;
    const std::size_t real_size = dbl ? sizeof(double) : sizeof(float);
    std::size_t nodes = plan.max_eval;
    for (int x = 1; x < plan.nlevels; x++)
        nodes += plan.eval[x];
    std::size_t bytes = real_size * (dims * dims + dims + nodes) + nodes * dims + dims;
    bytes = (bytes + 15) / 16 * 16 + sizeof(int) * plan.max_eval;
    return bytes + 16;
}

void launch_psd(const chunk_args& a,
                const psd_plan& plan,
                long long max_nodes,
                bool block_search,
                void* ws,
                unsigned* counter,
                bool dbl,
                cudaStream_t s)
{
    if (a.n == 0)
        return;
    if (dbl)
        launch<double>(a, plan, max_nodes, block_search, ws, counter, s);
    else
        launch<float>(a, plan, max_nodes, block_search, ws, counter, s);
}

// The registry's GPU entry of psd: the level plan is made once per detector.
namespace {
bool plan_for(const core::constellation& c,
              int nt,
              const core::detector_params& p,
              psd_plan& plan,
              std::string* why)
{
    std::vector<int> lvl = p.psd.lvl, exp = p.psd.exp;
    if (lvl.empty())
        core::psd_default_levels(nt, c.mod(), lvl, exp);
    return psd_make_plan(lvl, exp, c.pam_size(), nt, plan, why);
}
} // namespace

const gpu_detector_entry& psd_gpu_detector()
{
    static const gpu_detector_entry e{
        [](const core::constellation& c,
           int nt,
           int,
           const core::detector_params& p,
           std::string* why) {
            psd_plan plan;
            if (!plan_for(c, nt, p, plan, why))
                return false;
            if (psd_shared_bytes(plan, nt, true) <= 200 * 1024)
                return true;
            if (why)
                *why = "psd level set needs more shared memory than the CUDA kernel has";
            return false;
        },
        [](int nt, int nr, const core::detector_params&, bool dbl) {
            return psd_workspace_bytes(nt, nr, dbl);
        },
        [](const core::constellation& c, int nt, const core::detector_params& p) {
            auto plan = std::make_shared<psd_plan>();
            plan_for(c, nt, p, *plan, nullptr);
            return std::shared_ptr<const void>(plan);
        },
        [](const gpu_launch& l, cudaStream_t s) {
            launch_psd(l.a,
                       *static_cast<const psd_plan*>(l.plan),
                       l.params->psd.max_nodes,
                       l.params->psd.block_search,
                       l.ws,
                       l.work_counter,
                       l.dbl,
                       s);
        },
        // A chunk lasts as long as its hardest problem (a search of up to ~1,000 times
        // the mean): longer chunks, more of them in flight, dilute that tail (4x4 16-QAM
        // at 20 dB: 62% -> 73% of the bus bound per call).
        std::size_t(1) << 18,
        4
    };
    return e;
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
