/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * APSM training of all users at once (core::gpu_apsm_trainer), the same steps as the
 * reference apsm_train (lib/core/apsm/apsm_ref.cc) with less arithmetic:
 *
 *  0. apsm_ls::launch (apsm_ls.cu): the least-squares start of every user's linear
 *     part (ls_init), in double, on a second stream beside the Gram matrix.
 *  1. apsm_gram_kernel: the Gaussian kernel value between every pair of real training
 *     samples, once for all users (they share the received vectors), by the whole GPU.
 *  2. apsm_train_kernel: one block per user walks through the training steps. The
 *     Gaussian part of the filter at each window sample (pred[j] = sum_i g_i k(x_i, x_j))
 *     is computed over the dictionary once, from a Gram row prefetched a step ahead,
 *     when the sample enters the window; after that it is updated with each step's
 *     coefficient changes (the window's betas times the window's Gram entries, kept in
 *     shared memory) and each eviction, which is exactly what a full evaluation would
 *     add up to. The linear part is a 32-term dot product, evaluated directly.
 *  3. apsm_residual_kernel: every training sample's filter value with the final
 *     coefficients, for the noise variance of the LLRs.
 *
 * Real samples are stored as rows of max_dim floats ([Re r; Im r] or [Im r; -Re r],
 * zero padded), the reference's order.
 */
#include "apsm/apsm_ls.cuh"
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"

#include "detail/apsm_internal.h"

#include <gnuradio/gpumimo/core/apsm/gpu_apsm.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

constexpr int max_dim = 32; // 16 antennas, two reals each
constexpr int warp = 32;
constexpr std::size_t max_training_symbols = 4096; // a 256 MiB Gram matrix
constexpr int gram_tile = 32;

// K[i][j] = exp(-||x_i - x_j||^2 / (2 sigma^2)) for all pairs, ld = total. A block
// computes a 32 x 32 tile from two 32-row slices of the samples in shared memory.
__global__ void apsm_gram_kernel(const float* __restrict__ x,
                                 int total,
                                 float neg_half_inv_var,
                                 float* __restrict__ gram)
{
    __shared__ float s_i[gram_tile][max_dim + 1], s_j[gram_tile][max_dim + 1];
    const int i0 = blockIdx.y * gram_tile, j0 = blockIdx.x * gram_tile;
    for (int e = threadIdx.y * blockDim.x + threadIdx.x; e < gram_tile * max_dim;
         e += blockDim.x * blockDim.y) {
        const int row = e / max_dim, col = e % max_dim;
        s_i[row][col] = i0 + row < total ? x[std::size_t(i0 + row) * max_dim + col] : 0.0f;
        s_j[row][col] = j0 + row < total ? x[std::size_t(j0 + row) * max_dim + col] : 0.0f;
    }
    __syncthreads();
    const int j = j0 + threadIdx.x;
    for (int r = threadIdx.y; r < gram_tile; r += blockDim.y) {
        const int i = i0 + r;
        float dist2 = 0.0f;
#pragma unroll
        for (int d = 0; d < max_dim; d++) {
            const float diff = s_i[r][d] - s_j[threadIdx.x][d];
            dist2 = fmaf(diff, diff, dist2);
        }
        if (i < total && j < total)
            gram[std::size_t(i) * total + j] = expf(dist2 * neg_half_inv_var);
    }
}

__device__ float warp_sum(float v)
{
#pragma unroll
    for (int o = warp / 2; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

constexpr int train_threads = 256;
constexpr int prefetch_per_thread = 16; // Gram values of the next step in registers

struct train_config {
    int total;    // real training samples (2n)
    int used_end; // the first pass's last window end: total rounded down to steps
    int capacity; // dictionary capacity in real samples
    int span;     // 2W
    int step;     // sample_step
    int passes;
    int ring;     // slots of the window rings: span + min(step, span)
    float wl, wg, epsilon;
    bool gaussian; // wG > 0: the Gram matrix exists
};

// One training step of the reference: the window [lo, end), the live dictionary
// [first, used), and the samples entering the window at this step, [fresh, end).
struct train_step {
    bool valid;
    int pass, end, lo, first, used, fresh;
};

__device__ train_step make_step(const train_config& c, int pass, int end)
{
    train_step s;
    s.valid = true;
    s.pass = pass;
    s.end = end;
    s.lo = end - min(c.span, end);
    s.used = pass == 0 ? end : c.used_end;
    s.first = max(0, s.used - c.capacity); // the oldest entries have left
    s.fresh = max(s.lo, end - c.step);     // a pass starts with an empty window
    return s;
}

__device__ train_step next_step(const train_config& c, const train_step& s)
{
    if (s.end + c.step <= c.total)
        return make_step(c, s.pass, s.end + c.step);
    if (s.pass + 1 < c.passes)
        return make_step(c, s.pass + 1, c.step);
    train_step none{};
    none.valid = false;
    return none;
}

// The Gram values a step's entering samples need, k(x_j, x_i) for j in [fresh, end) and
// i in [first, used). Each entering sample's row is cut into rounds of train_threads
// values; round q of the step is sample q / rounds, values (q % rounds) * train_threads
// + tid of its row, so that every round belongs to one sample for the whole block
// (reduced by warps, not by per-thread atomics). The first prefetch_per_thread rounds
// are loaded one step ahead into registers, their latency hidden behind the step before.
struct gram_rounds {
    int range;  // used - first
    int rounds; // per entering sample: ceil(range / train_threads)
    int all;    // rounds of the step: entering samples x rounds
    __device__ explicit gram_rounds(const train_step& s)
        : range(s.used - s.first),
          rounds((range + train_threads - 1) / train_threads),
          all((s.end - s.fresh) * rounds)
    {
    }
};

struct gram_prefetch {
    float v[prefetch_per_thread];
    float sample; // one of the entering samples' x, 1 / kappa or target values

    __device__ void load(const train_config& c,
                         const train_step& s,
                         const float* __restrict__ gram,
                         const float* __restrict__ x,
                         const float* __restrict__ inv_kappa,
                         const float* __restrict__ tgt)
    {
        const gram_rounds r(s);
        // Walk the rows with a pointer: no 64-bit index products per value.
        const float* p = gram + std::size_t(s.fresh) * c.total + s.first + threadIdx.x;
        const int next_row = c.total - r.rounds * train_threads;
        int off = threadIdx.x, qq = 0;
#pragma unroll
        for (int q = 0; q < prefetch_per_thread; q++) {
            v[q] = (c.gaussian && q < r.all && off < r.range) ? *p : 0.0f;
            p += train_threads;
            off += train_threads;
            if (++qq == r.rounds) {
                qq = 0;
                off = threadIdx.x;
                p += next_row;
            }
        }
        sample = 0.0f;
        const int f = threadIdx.x, nfresh = s.end - s.fresh;
        if (f < nfresh * max_dim)
            sample = x[std::size_t(s.fresh) * max_dim + f];
        else if (f < nfresh * (max_dim + 1))
            sample = inv_kappa[s.fresh + f - nfresh * max_dim];
        else if (f < nfresh * (max_dim + 2))
            sample = tgt[s.fresh + f - nfresh * (max_dim + 1)];
    }
};

// GPUMIMO_APSM_TRAIN_PROFILE: clock64() per phase of the training loop, summed over
// the steps by thread 0 and the linear-part warp's first thread of block 0, printed at
// the end (a diagnostic build, never the installed one).
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
#define PROF_MARK(n)                                                       \
    do {                                                                   \
        const long long now = clock64();                                   \
        if (n > 0)                                                         \
            prof[n - 1] += now - prof_last;                                \
        prof_last = now;                                                   \
    } while (0)
#else
#define PROF_MARK(n) \
    do {             \
    } while (0)
#endif

// One block of train_threads per user (blockIdx.x). Shared memory (dynamic):
//   g[total]       the user's coefficients
//   pred[total]    the Gaussian part at the window's samples, sum_i g_i k(x_i, x_j)
//   beta[span], wslot[span] (ring slot of window sample k)
//   fresh_part[warps][span]  each warp's share of the entering samples' Gaussian parts
//   lin[max_dim], lin_part[lin_parts][max_dim] (the last step's linear-part change)
//   xw[ring][33], ikap[ring], tg[ring]  the window's samples, 1 / kappa(x, x), targets
//   kw[ring][ring + 1]                  the window's Gram matrix
// Ring slot of sample j: j % ring (ring >= span + the entering samples, so the slots of
// the window and of the samples entering never collide).
//
// Each step: (B) the entering samples' sums, rings filled, the next step's Gram values
// requested; barrier; (D) the betas, 4 lanes per window sample; barrier; (E) the betas
// applied: 4 lanes per window sample for the Gaussian parts, lin_parts warps for the
// linear part (summed into lin at the next step's (B)); barrier.
constexpr int lanes_per_sample = 4;
constexpr int lin_parts = 3;
constexpr int pred_threads = train_threads - lin_parts * warp; // 160: 40 samples at once

__global__ void __launch_bounds__(train_threads, 1)
    apsm_train_kernel(const float* __restrict__ x,
                      const float* __restrict__ inv_kappa,
                      const float* __restrict__ target, // users x total
                      const float* __restrict__ gram,
                      const float* __restrict__ lin0, // users x max_dim
                      train_config c,
                      float* __restrict__ coef_out, // users x total
                      float* __restrict__ lin_out)  // users x max_dim
{
    extern __shared__ float smem[];
    const int R = c.ring, tid = threadIdx.x;
    float* g = smem;
    float* pred = g + c.total;
    float* beta = pred + c.total;
    int* wslot = reinterpret_cast<int*>(beta + c.span);
    float* fresh_part = reinterpret_cast<float*>(wslot + c.span); // warps x span
    float* lin = fresh_part + (train_threads / warp) * c.span;
    float* lin_part = lin + max_dim;
    float* xw = lin_part + lin_parts * max_dim;
    float* ikap = xw + R * (max_dim + 1);
    float* tg = ikap + R;
    float* kw = tg + R;
    const int u = blockIdx.x;
    const float* tgt = target + std::size_t(u) * c.total;

    for (int i = tid; i < c.total; i += train_threads) {
        g[i] = 0.0f;
        pred[i] = 0.0f;
    }
    for (int i = tid; i < lin_parts * max_dim; i += train_threads)
        lin_part[i] = 0.0f;
    if (tid < max_dim)
        lin[tid] = lin0[u * max_dim + tid];

    train_step cur = make_step(c, 0, c.step), prev{};
    prev.valid = false;
    int lo_slot = cur.lo % R; // ring slot of sample lo, advanced step by step
    gram_prefetch pf;
    pf.load(c, cur, gram, x, inv_kappa, tgt);
    __syncthreads();

#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    long long prof[11] = { 0 }, prof_last = 0;
    int prof_steps = 0;
#endif
    while (cur.valid) {
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
        prof_steps++;
#endif
        PROF_MARK(0);
        const int lo = cur.lo, end = cur.end, count = end - lo, nfresh = end - cur.fresh;
        int fresh_slot = lo_slot + (cur.fresh - lo); // ring slot of sample fresh
        while (fresh_slot >= R)
            fresh_slot -= R;
        // (A) Entries leaving the dictionary: out of the window's kept Gaussian parts.
        if (c.gaussian && prev.valid && prev.pass == cur.pass && cur.first > prev.first)
            for (int j = lo + tid; j < cur.fresh; j += train_threads) {
                float p = pred[j];
                for (int i = prev.first; i < cur.first; i++)
                    p -= g[i] * gram[std::size_t(i) * c.total + j];
                pred[j] = p;
            }
        PROF_MARK(1);
        // (B) The last step's linear-part change; the entering samples' Gaussian parts
        // over the live dictionary from the prefetched Gram values, and their window
        // Gram entries, x, 1 / kappa and target into the rings.
        if (tid < max_dim) {
            float l = lin[tid];
            for (int q = 0; q < lin_parts; q++)
                l += lin_part[q * max_dim + tid];
            lin[tid] = l;
        }
        PROF_MARK(10);
        if (c.gaussian) {
            const gram_rounds r(cur);
            int ns = 0, qq = 0, off = tid, j_slot = fresh_slot;
            float acc = 0.0f;
            // One value k(x_j, x_i), j = fresh + ns, i = first + off: into the sum (branch
            // free, so the loads of g go out together), and into the window's Gram
            // matrix when i is in the window (an entering pair is written by its rows).
            auto take = [&](float kv) {
                const bool ok = off < r.range;
                const int i = cur.first + (ok ? off : 0);
                acc = fmaf(g[i], ok ? kv : 0.0f, acc);
                if (ok && i >= lo && i < end) {
                    int i_slot = lo_slot + (i - lo);
                    if (i_slot >= R)
                        i_slot -= R;
                    kw[j_slot * (R + 1) + i_slot] = kv;
                    if (i < cur.fresh)
                        kw[i_slot * (R + 1) + j_slot] = kv;
                }
            };
            auto next_round = [&]() { // uniform over the block
                off += train_threads;
                if (++qq == r.rounds) { // each warp's share, summed in (D): no atomics
                    acc = warp_sum(acc);
                    if ((tid & (warp - 1)) == 0)
                        fresh_part[(tid / warp) * c.span + ns] = acc;
                    acc = 0.0f;
                    qq = 0;
                    off = tid;
                    ns++;
                    if (++j_slot == R)
                        j_slot = 0;
                }
            };
#pragma unroll
            for (int q = 0; q < prefetch_per_thread; q++)
                if (q < r.all) {
                    take(pf.v[q]);
                    next_round();
                }
            PROF_MARK(9);
            // Beyond what the registers hold (large training sets): read directly.
            for (int q = prefetch_per_thread; q < r.all; q++) {
                take(off < r.range
                         ? gram[std::size_t(cur.fresh + ns) * c.total + cur.first + off]
                         : 0.0f);
                next_round();
            }
        }
        for (int f = tid; f < nfresh * (max_dim + 2); f += train_threads) {
            const float v = f < train_threads ? pf.sample
                            : f < nfresh * max_dim
                                ? x[std::size_t(cur.fresh) * max_dim + f]
                            : f < nfresh * (max_dim + 1)
                                ? inv_kappa[cur.fresh + f - nfresh * max_dim]
                                : tgt[cur.fresh + f - nfresh * (max_dim + 1)];
            const int e = f < nfresh * max_dim         ? f / max_dim
                          : f < nfresh * (max_dim + 1) ? f - nfresh * max_dim
                                                       : f - nfresh * (max_dim + 1);
            int slot = fresh_slot + e;
            while (slot >= R)
                slot -= R;
            if (f < nfresh * max_dim)
                xw[slot * (max_dim + 1) + f % max_dim] = v;
            else if (f < nfresh * (max_dim + 1))
                ikap[slot] = v;
            else
                tg[slot] = v;
        }
        PROF_MARK(2);
        const train_step nxt = next_step(c, cur);
        if (nxt.valid) // in flight during (D) and (E)
            pf.load(c, nxt, gram, x, inv_kappa, tgt);
        PROF_MARK(3);
        __syncthreads();
        PROF_MARK(4);
        // (D) Equation (9): each window sample's step towards its hyperslab, all from the
        // same filter, weighted 1 / count; 4 lanes per sample share the dot product.
        {
            constexpr int groups = train_threads / lanes_per_sample;
            const int part = tid % lanes_per_sample;
            const float inv_count = 1.0f / float(count);
            const int iterations = (count + groups - 1) / groups; // the same for all
            for (int it = 0; it < iterations; it++) {
                const int k0 = tid / lanes_per_sample + it * groups;
                const int k = k0 < count ? k0 : count - 1; // whole warps in the shuffles
                const int j = lo + k;
                int slot = lo_slot + k;
                if (slot >= R)
                    slot -= R;
                const float* xr = xw + slot * (max_dim + 1) + part * (max_dim / lanes_per_sample);
                const float* lr = lin + part * (max_dim / lanes_per_sample);
                float dot = 0.0f;
#pragma unroll
                for (int d = 0; d < max_dim / lanes_per_sample; d++)
                    dot = fmaf(lr[d], xr[d], dot);
                dot += __shfl_xor_sync(0xffffffffu, dot, 1);
                dot += __shfl_xor_sync(0xffffffffu, dot, 2);
                if (part == 0 && k0 < count) {
                    float gp = 0.0f;
                    if (c.gaussian) {
                        if (j >= cur.fresh) {
                            gp = 0.0f;
                            for (int w = 0; w < train_threads / warp; w++)
                                gp += fresh_part[w * c.span + j - cur.fresh];
                        } else {
                            gp = pred[j];
                        }
                        pred[j] = gp;
                    }
                    const float value = c.wl * dot + c.wg * gp;
                    const float distance = tg[slot] - value;
                    float excess = 0.0f;
                    if (distance > c.epsilon)
                        excess = distance - c.epsilon;
                    else if (distance < -c.epsilon)
                        excess = distance + c.epsilon;
                    beta[k] = excess * inv_count * ikap[slot];
                    wslot[k] = slot;
                }
            }
        }
        PROF_MARK(5);
        __syncthreads();
        PROF_MARK(6);
        // (E) Apply the betas. No test for beta == 0 (adding 0 times a finite value
        // changes nothing): branch-free, so the unrolled loads go out together.
        if (tid < pred_threads) {
            constexpr int groups = pred_threads / lanes_per_sample;
            const int part = tid % lanes_per_sample;
            const int iterations = (count + groups - 1) / groups; // the same for all
            for (int it = 0; it < iterations; it++) {
                const int k0 = tid / lanes_per_sample + it * groups;
                const int k = k0 < count ? k0 : count - 1;
                float p = 0.0f;
                if (c.gaussian) {
                    const float* col = kw + wslot[k];
#pragma unroll 4
                    for (int k2 = part; k2 < count; k2 += lanes_per_sample)
                        p = fmaf(beta[k2], col[wslot[k2] * (R + 1)], p);
                }
                p += __shfl_xor_sync(0xffffffffu, p, 1);
                p += __shfl_xor_sync(0xffffffffu, p, 2);
                if (part == 0 && k0 < count) {
                    pred[lo + k] += p;
                    g[lo + k] += beta[k];
                }
            }
        } else { // the linear part: lin_parts warps, a lane per dimension
            const int part = (tid - pred_threads) / warp, d = (tid - pred_threads) % warp;
            float l = 0.0f;
#pragma unroll 4
            for (int k = part; k < count; k += lin_parts)
                l = fmaf(beta[k], xw[wslot[k] * (max_dim + 1) + d], l);
            lin_part[part * max_dim + d] = l;
        }
        PROF_MARK(7);
        __syncthreads();
        PROF_MARK(8);
        if (nxt.valid) {
            if (nxt.pass == cur.pass) {
                lo_slot += nxt.lo - cur.lo;
                while (lo_slot >= R)
                    lo_slot -= R;
            } else {
                lo_slot = nxt.lo % R;
            }
        }
        prev = cur;
        cur = nxt;
    }
#ifdef GPUMIMO_APSM_TRAIN_PROFILE
    if (blockIdx.x == 0 && (tid == 0 || tid == pred_threads))
        printf("train profile, thread %d, %d steps, cycles per step: A %.0f, B: lin %.0f, "
               "sums %.0f, rings %.0f; prefetch %.0f, barrier %.0f, D %.0f, barrier %.0f, "
               "E %.0f, barrier %.0f\n",
               tid, prof_steps, double(prof[0]) / prof_steps, double(prof[9]) / prof_steps,
               double(prof[8]) / prof_steps, double(prof[1]) / prof_steps,
               double(prof[2]) / prof_steps, double(prof[3]) / prof_steps,
               double(prof[4]) / prof_steps, double(prof[5]) / prof_steps,
               double(prof[6]) / prof_steps, double(prof[7]) / prof_steps);
#endif
    for (int i = tid; i < c.total; i += train_threads)
        coef_out[std::size_t(u) * c.total + i] = g[i];
    if (tid < max_dim) { // with the last step's change
        float l = lin[tid];
        for (int q = 0; q < lin_parts; q++)
            l += lin_part[q * max_dim + tid];
        lin_out[u * max_dim + tid] = l;
    }
}

// Squared training errors summed per user: f(x_j) - target_j over every real sample.
// A block: 32 samples (threadIdx.x) x 8 slices of the dictionary (threadIdx.y).
__global__ void apsm_residual_kernel(const float* __restrict__ x,
                                     const float* __restrict__ target,
                                     const float* __restrict__ gram,
                                     const float* __restrict__ coef,
                                     const float* __restrict__ lin,
                                     int total,
                                     int first,
                                     int used,
                                     float wl,
                                     float wg,
                                     bool gaussian,
                                     float* __restrict__ residual)
{
    __shared__ float partial[8][warp];
    const int u = blockIdx.y;
    const int j = blockIdx.x * warp + threadIdx.x;
    float gs = 0.0f;
    if (gaussian && j < total) {
        const float* cu = coef + std::size_t(u) * total;
        // Column j of the symmetric Gram matrix; four independent sums so that four
        // loads are in flight at once.
        float part[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        const int stride = blockDim.y;
        int i = first + threadIdx.y;
        for (; i + 3 * stride < used; i += 4 * stride)
#pragma unroll
            for (int q = 0; q < 4; q++)
                part[q] = fmaf(cu[i + q * stride],
                               gram[std::size_t(i + q * stride) * total + j], part[q]);
        for (; i < used; i += stride)
            part[0] = fmaf(cu[i], gram[std::size_t(i) * total + j], part[0]);
        gs = (part[0] + part[1]) + (part[2] + part[3]);
    }
    partial[threadIdx.y][threadIdx.x] = gs;
    __syncthreads();
    if (threadIdx.y != 0)
        return;
    float err2 = 0.0f;
    if (j < total) {
        gs = 0.0f;
        for (int s = 0; s < 8; s++)
            gs += partial[s][threadIdx.x];
        float dot = 0.0f;
        for (int d = 0; d < max_dim; d++)
            dot = fmaf(lin[u * max_dim + d], x[std::size_t(j) * max_dim + d], dot);
        const float e = wl * dot + wg * gs - target[std::size_t(u) * total + j];
        err2 = e * e;
    }
    err2 = warp_sum(err2);
    if (threadIdx.x == 0)
        atomicAdd(&residual[u], err2);
}

std::size_t train_smem_bytes(std::size_t total, int span, int step)
{
    const std::size_t ring = std::size_t(span) + std::min(step, span);
    return (2 * total + (2 + train_threads / warp) * std::size_t(span) +
            (1 + lin_parts) * max_dim +
            ring * (max_dim + 1) + 2 * ring + ring * (ring + 1)) *
           sizeof(float);
}

} // namespace

struct gpu_apsm_trainer::impl {
    apsm_params p;
    int antennas, users, device;
    std::size_t max_symbols;
    cuda::device_buffer<float> x, inv_kappa, target, gram, lin0, coef, lin, residual;
    cuda::pinned_buffer<float> h_x, h_inv_kappa, h_target, h_coef, h_lin, h_residual;
    cuda::device_buffer<int> singular;
    cuda::device_buffer<double> ls_scratch; // the least squares' sums per tile
    cuda::pinned_buffer<int> h_singular;
    cuda::stream stream, ls_stream;
    cuda::event inputs_ready, ls_done; // the least squares' stream: after the uploads, done
    cuda::event start{ true }, after_gram{ true }, after_steps{ true }, stop{ true };
    float kernel_ms = 0;
    gpu_apsm_trainer::stage_ms stages;

    impl(const apsm_params& params, int antennas_, int users_, std::size_t max_symbols_, int device_)
        : p(params), antennas(antennas_), users(users_), device(device_), max_symbols(max_symbols_)
    {
        validate(p);
        if (p.norm_bound > 0)
            throw std::invalid_argument("gpu_apsm_trainer: the norm bound (norm_bound > 0) is "
                                        "not implemented on the GPU; use apsm_train");
        if (antennas < 1 || 2 * antennas > max_dim)
            throw std::invalid_argument("gpu_apsm_trainer: 1 to 16 antennas");
        if (users < 1)
            throw std::invalid_argument("gpu_apsm_trainer: at least one user");
        if (max_symbols < 1 || max_symbols > max_training_symbols)
            throw std::invalid_argument("gpu_apsm_trainer: max_symbols must be 1 to " +
                                        std::to_string(max_training_symbols));
        const std::size_t total = 2 * max_symbols;
        const int span = 2 * p.window;
        int limit = 0;
        GPUMIMO_CUDA_CHECK(cudaDeviceGetAttribute(
            &limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        const std::size_t smem = train_smem_bytes(total, span, p.sample_step);
        if (smem > std::size_t(limit))
            throw std::invalid_argument("gpu_apsm_trainer: " + std::to_string(max_symbols) +
                                        " training symbols and window " +
                                        std::to_string(p.window) +
                                        " need more shared memory than the device has");
        if (p.ls_init && users > apsm_ls::max_users())
            throw std::invalid_argument("gpu_apsm_trainer: at most " +
                                        std::to_string(apsm_ls::max_users()) +
                                        " users with the least-squares start");
        // Once here, never per launch (per-launch attribute calls can serialise).
        GPUMIMO_CUDA_CHECK(cudaFuncSetAttribute(
            apsm_train_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));

        x = cuda::device_buffer<float>(total * max_dim);
        inv_kappa = cuda::device_buffer<float>(total);
        target = cuda::device_buffer<float>(users * total);
        gram = cuda::device_buffer<float>(p.gaussian_weight > 0 ? total * total : 1);
        lin0 = cuda::device_buffer<float>(users * max_dim);
        coef = cuda::device_buffer<float>(users * total);
        lin = cuda::device_buffer<float>(users * max_dim);
        residual = cuda::device_buffer<float>(users);
        h_x = cuda::pinned_buffer<float>(total * max_dim);
        h_inv_kappa = cuda::pinned_buffer<float>(total);
        h_target = cuda::pinned_buffer<float>(users * total);
        h_coef = cuda::pinned_buffer<float>(users * total);
        h_lin = cuda::pinned_buffer<float>(users * max_dim);
        h_residual = cuda::pinned_buffer<float>(users);
        singular = cuda::device_buffer<int>(1);
        ls_scratch = cuda::device_buffer<double>(apsm_ls::scratch_size(int(total), users));
        h_singular = cuda::pinned_buffer<int>(1);
    }

    void train(const std::complex<float>* rx,
               std::size_t n,
               const std::complex<float>* sent,
               std::vector<apsm_filter>& filters)
    {
        if (n > max_symbols)
            throw std::invalid_argument("gpu_apsm_trainer::train: " + std::to_string(n) +
                                        " training symbols, made for at most " +
                                        std::to_string(max_symbols));
        // The received vectors once, with the first user's symbols; then the others'.
        check_training_input(rx, n, antennas, sent);
        for (int u = 1; u < users; u++)
            check_training_symbols(sent + std::size_t(u) * n, n);
        const int dim = 2 * antennas;
        const std::size_t total = 2 * n;
        const std::size_t capacity = dictionary_capacity(p, total);
        const double scale = p.normalize_input ? training_input_scale(rx, n, antennas) : 1.0;

        // The real samples, 1 / kappa(x, x) (the step size of equation (9)) and targets.
        std::fill(h_x.get(), h_x.get() + total * max_dim, 0.0f);
        for (std::size_t t = 0; t < n; t++)
            apsm_real_pair(rx + t * antennas, antennas, scale, h_x.get() + 2 * t * max_dim,
                           h_x.get() + (2 * t + 1) * max_dim);
        for (std::size_t j = 0; j < total; j++) {
            double norm2 = 0;
            for (int d = 0; d < dim; d++)
                norm2 += double(h_x.get()[j * max_dim + d]) * h_x.get()[j * max_dim + d];
            h_inv_kappa.get()[j] = float(1.0 / (p.linear_weight * norm2 + p.gaussian_weight));
        }
        for (int u = 0; u < users; u++)
            for (std::size_t t = 0; t < n; t++) {
                h_target.get()[u * total + 2 * t] = sent[u * n + t].real();
                h_target.get()[u * total + 2 * t + 1] = sent[u * n + t].imag();
            }

        train_config c;
        c.total = int(total);
        c.step = p.sample_step;
        c.capacity = int(capacity);
        c.span = 2 * p.window;
        c.ring = c.span + std::min(c.step, c.span);
        c.passes = p.passes;
        c.wl = p.linear_weight;
        c.wg = p.gaussian_weight;
        c.epsilon = p.epsilon;
        c.gaussian = p.gaussian_weight > 0;
        c.used_end = int(total / c.step) * c.step;
        const int used_end = c.used_end;
        const int first = std::max(0, used_end - c.capacity);

        cuda::device_guard guard;
        GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
        const cudaStream_t s = stream.get();
        auto up = [s](float* dst, const float* src, std::size_t count) {
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float),
                                               cudaMemcpyHostToDevice, s));
        };
        up(x.get(), h_x.get(), total * max_dim);
        up(inv_kappa.get(), h_inv_kappa.get(), total);
        up(target.get(), h_target.get(), users * total);
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(residual.get(), 0, users * sizeof(float), s));
        GPUMIMO_CUDA_CHECK(cudaMemsetAsync(singular.get(), 0, sizeof(int), s));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(start.get(), s));
        if (p.ls_init) { // wL * lin = the least-squares filter, on the scaled input
            // On a second stream, beside the Gram matrix (both only read the samples; the
            // least squares' few blocks leave the GPU mostly idle).
            const cudaStream_t s2 = ls_stream.get();
            GPUMIMO_CUDA_CHECK(cudaEventRecord(inputs_ready.get(), s));
            GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(s2, inputs_ready.get(), 0));
            apsm_ls::launch(x.get(), target.get(), c.total, dim, users, 1.0 / p.linear_weight,
                            ls_scratch.get(), lin0.get(), singular.get(), s2);
            GPUMIMO_CUDA_CHECK(cudaEventRecord(ls_done.get(), s2));
        } else {
            // Without ls_init the linear part starts at zero: set on the device, no
            // host buffer or copy.
            GPUMIMO_CUDA_CHECK(cudaMemsetAsync(lin0.get(), 0, users * max_dim * sizeof(float), s));
        }
        if (c.gaussian) {
            const unsigned tiles = unsigned((total + gram_tile - 1) / gram_tile);
            apsm_gram_kernel<<<dim3(tiles, tiles), dim3(gram_tile, 8), 0, s>>>(
                x.get(), c.total, float(-0.5 / p.kernel_variance(antennas)), gram.get());
            GPUMIMO_CUDA_CHECK_LAUNCH("apsm_gram_kernel");
        }
        if (p.ls_init)
            GPUMIMO_CUDA_CHECK(cudaStreamWaitEvent(s, ls_done.get(), 0));
        GPUMIMO_CUDA_CHECK(cudaEventRecord(after_gram.get(), s));
        apsm_train_kernel<<<users, train_threads, train_smem_bytes(total, c.span, c.step), s>>>(
            x.get(), inv_kappa.get(), target.get(), gram.get(), lin0.get(), c, coef.get(),
            lin.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("apsm_train_kernel");
        GPUMIMO_CUDA_CHECK(cudaEventRecord(after_steps.get(), s));
        apsm_residual_kernel<<<dim3(unsigned((total + warp - 1) / warp), users), dim3(warp, 8),
                               0, s>>>(x.get(), target.get(), gram.get(), coef.get(), lin.get(),
                                       c.total, first, used_end, c.wl, c.wg, c.gaussian,
                                       residual.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("apsm_residual_kernel");
        GPUMIMO_CUDA_CHECK(cudaEventRecord(stop.get(), s));
        auto down = [s](float* dst, const float* src, std::size_t count) {
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float),
                                               cudaMemcpyDeviceToHost, s));
        };
        down(h_coef.get(), coef.get(), users * total);
        down(h_lin.get(), lin.get(), users * max_dim);
        down(h_residual.get(), residual.get(), users);
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(h_singular.get(), singular.get(), sizeof(int),
                                           cudaMemcpyDeviceToHost, s));
        // The filters, trimmed to the live dictionary [first, used) as apsm_train does:
        // what does not depend on the GPU's results is filled in while it trains.
        filters.resize(users);
        std::vector<float>& dict = filters[0].dict;
        dict.resize((used_end - first) * std::size_t(dim));
        for (int j = first; j < used_end; j++)
            std::copy(h_x.get() + std::size_t(j) * max_dim,
                      h_x.get() + std::size_t(j) * max_dim + dim,
                      dict.begin() + std::size_t(j - first) * dim);
        for (int u = 0; u < users; u++) {
            apsm_filter& f = filters[u];
            f.antennas = antennas;
            f.input_scale = scale;
            f.linear_weight = p.linear_weight;
            f.gaussian_weight = p.gaussian_weight;
            f.variance = p.kernel_variance(antennas);
            if (u > 0)
                f.dict.assign(dict.begin(), dict.end()); // reuses f.dict's storage
        }

        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(s));
        if (*h_singular.get())
            throw std::invalid_argument(
                "least squares: the training vectors do not span the antennas (singular "
                "or non-finite training set)");
        GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, start.get(), stop.get()));
        GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&stages.gram, start.get(), after_gram.get()));
        GPUMIMO_CUDA_CHECK(
            cudaEventElapsedTime(&stages.steps, after_gram.get(), after_steps.get()));
        GPUMIMO_CUDA_CHECK(cudaEventElapsedTime(&stages.residual, after_steps.get(), stop.get()));

        for (int u = 0; u < users; u++) {
            apsm_filter& f = filters[u];
            f.lin.assign(h_lin.get() + u * max_dim, h_lin.get() + u * max_dim + dim);
            f.gauss.assign(h_coef.get() + u * total + first,
                           h_coef.get() + u * total + used_end);
            f.noise_variance = std::max(double(h_residual.get()[u]) / double(n), 1e-6);
        }
    }
};

gpu_apsm_trainer::gpu_apsm_trainer(
    const apsm_params& params, int antennas, int users, std::size_t max_symbols, int device)
{
    // The stream and events belong to the device current at their creation.
    cuda::device_guard guard;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_impl = std::make_unique<impl>(params, antennas, users, max_symbols, device);
}

gpu_apsm_trainer::~gpu_apsm_trainer() = default;

std::vector<apsm_filter> gpu_apsm_trainer::train(const std::complex<float>* rx,
                                                 std::size_t n,
                                                 const std::complex<float>* sent)
{
    std::vector<apsm_filter> filters;
    d_impl->train(rx, n, sent, filters);
    return filters;
}

void gpu_apsm_trainer::train(const std::complex<float>* rx,
                             std::size_t n,
                             const std::complex<float>* sent,
                             std::vector<apsm_filter>& filters)
{
    d_impl->train(rx, n, sent, filters);
}

float gpu_apsm_trainer::last_kernel_ms() const { return d_impl->kernel_ms; }

gpu_apsm_trainer::stage_ms gpu_apsm_trainer::last_stage_ms() const { return d_impl->stages; }

} // namespace core
} // namespace gpumimo
} // namespace gr
