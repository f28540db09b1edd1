/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The synchroniser on the GPU (core/frame/frame_sync_engine.h): find_frame's metric at
 * every position of the buffer at once, search_step's loop over it in one thread block,
 * then each found frame's residual offset and its correction, one block per frame.
 * The CPU reference slides its sums along a window; here every tile of positions starts
 * from sums taken directly at its first position and adds the differences (a block
 * scan), so the metrics agree with the reference's to rounding and a sample's damage
 * reaches no further than its tile, as the reference's reaches no further than its
 * window.
 *
 * Device layouts:
 *   samples  [antenna][max_input]            (two of them: the kept tail moves over)
 *   S        [antenna][position]              (each antenna's sum over half a symbol)
 *   P, M     [position]                       (find_frame's P(d) and M(d), in double)
 *   first    [tile]                           (the tile's first position with M >= t)
 *   out      [antenna][frame][frame.samples()]
 */
#include "common/cuda_check.cuh"
#include "common/device_memory.cuh"
#include "common/gpu_math.cuh"
#include "common/warp_reduce.cuh"
#include "detail/gpu_engines.h"
#include "frame/gpu_frame_sync.cuh"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

namespace gc = gr::gpumimo::cuda;

namespace {

constexpr int kMetricThreads = 256;
constexpr int kPerThread = 4;
constexpr int kTile = kMetricThreads * kPerThread; // positions per metric block
constexpr int kSearchThreads = 1024;
constexpr int kFrameThreads = 256;
constexpr unsigned kNone = 0xffffffffu; // no position

// Double-double numbers (hi + lo, about 106 bits): the tiles' running sums. A burst far
// louder than the rest (1e10 in amplitude, 1e20 in power) enters a sum and leaves it
// again by subtraction; in double its rounding (1e20 x 1e-16) would stay behind for the
// rest of the tile and swamp the next frame's preamble, in double-double it is 1e-12.
// Every term added is exact in double (a product of two floats, halved), so the sums
// lose nothing but the double-double's own rounding.
struct dd {
    double hi, lo;
};
__device__ inline dd two_sum(double a, double b)
{
    const double s = __dadd_rn(a, b), bb = __dadd_rn(s, -a);
    return { s, __dadd_rn(__dadd_rn(a, -__dadd_rn(s, -bb)), __dadd_rn(b, -bb)) };
}
__device__ inline dd renormalise(dd s, double e)
{
    const double hi = __dadd_rn(s.hi, e);
    return { hi, __dadd_rn(e, -__dadd_rn(hi, -s.hi)) };
}
__device__ inline dd operator+(dd x, dd y)
{
    const dd s = two_sum(x.hi, y.hi);
    return renormalise({ s.hi, 0 }, s.lo + x.lo + y.lo);
}
__device__ inline dd operator+(dd x, double y)
{
    const dd s = two_sum(x.hi, y);
    return renormalise({ s.hi, 0 }, s.lo + x.lo);
}
__device__ inline double value(dd x) { return x.hi + x.lo; }

// find_frame's running sums: P (complex) and R.
struct sums {
    dd pr, pi, r;
};
struct add_sums {
    __device__ sums operator()(const sums& a, const sums& b) const
    {
        return { a.pr + b.pr, a.pi + b.pi, a.r + b.r };
    }
};
struct min_of {
    __device__ unsigned operator()(unsigned a, unsigned b) const { return a < b ? a : b; }
};

// A sample as find_frame reads it: unusable ones (core/limits.h) count as zeros.
__device__ inline float2 sample(const float2* x, std::size_t stride, int a, std::size_t i)
{
    const float2 v = x[std::size_t(a) * stride + i];
    return gc::usable2(v) ? v : make_float2(0, 0);
}

// s.p += sign conj(u) v and s.r += sign |u|^2 / 2 ... term by term, each product of two
// floats exact in double.
__device__ inline void add_product(sums& s, float2 u, float2 v, double sign)
{
    s.pr = s.pr + sign * (double(u.x) * v.x);
    s.pr = s.pr + sign * (double(u.y) * v.y);
    s.pi = s.pi + sign * (double(u.x) * v.y);
    s.pi = s.pi + -sign * (double(u.y) * v.x);
}
__device__ inline void add_energy(sums& s, float2 u, double sign)
{
    s.r = s.r + sign * 0.5 * (double(u.x) * u.x);
    s.r = s.r + sign * 0.5 * (double(u.y) * u.y);
}

// A complex sum, half_sums_kernel's: in double, not double-double as P and R. These
// are sums of amplitudes, not powers: a burst 1e10 louder in power (1e5 in amplitude)
// leaves a rounding of about 1e5 x sqrt(N/2) x 1e-16 behind, far below any signal's sum.
struct csum {
    double re, im;
};
struct add_csum {
    __device__ csum operator()(const csum& a, const csum& b) const { return { a.re + b.re, a.im + b.im }; }
};

// S[a][j] = sum_{m < half} x_a[j + m] for j < count (= n - half + 1), each antenna's sum
// over half a symbol, as find_frame slides s1 and s2: a tile's first sum taken directly,
// the rest by a block scan of the steps x[j + half] - x[j]. Grid: (tiles, antennas).
__global__ void __launch_bounds__(kMetricThreads) half_sums_kernel(const float2* x,
                                                                   std::size_t stride,
                                                                   unsigned count,
                                                                   int half,
                                                                   double2* S,
                                                                   std::size_t s_stride)
{
    using reduce_sums = cub::BlockReduce<csum, kMetricThreads>;
    using scan_sums = cub::BlockScan<csum, kMetricThreads>;
    __shared__ union {
        typename reduce_sums::TempStorage reduce;
        typename scan_sums::TempStorage scan;
    } tmp;
    __shared__ csum at_first;
    const int a = blockIdx.y;
    const unsigned d0 = blockIdx.x * unsigned(kTile);
    csum acc{};
    for (int m = threadIdx.x; m < half; m += blockDim.x) {
        const float2 v = sample(x, stride, a, d0 + m);
        acc.re = acc.re + double(v.x);
        acc.im = acc.im + double(v.y);
    }
    const csum total = reduce_sums(tmp.reduce).Reduce(acc, add_csum());
    if (threadIdx.x == 0)
        at_first = total;
    __syncthreads();
    csum delta[kPerThread];
    csum mine{};
    const unsigned base = d0 + threadIdx.x * kPerThread;
    for (int q = 0; q < kPerThread; q++) {
        const unsigned j = base + q;
        csum s{};
        if (j + 1 < count) {
            const float2 x0 = sample(x, stride, a, j), xh = sample(x, stride, a, j + half);
            s.re = double(xh.x) - double(x0.x);
            s.im = double(xh.y) - double(x0.y);
        }
        delta[q] = s;
        mine = add_csum()(mine, s);
    }
    csum before;
    scan_sums(tmp.scan).ExclusiveScan(mine, before, csum{}, add_csum());
    csum run = add_csum()(at_first, before);
    for (int q = 0; q < kPerThread; q++) {
        const unsigned j = base + q;
        if (j < count)
            S[std::size_t(a) * s_stride + j] = make_double2(run.re, run.im);
        run = add_csum()(run, delta[q]);
    }
}

// find_frame's centred P and M at position j from the running sums and each antenna's
// half sums (the halves' means taken out: blind to a DC offset).
__device__ inline double centred(const sums& s,
                                 const double2* S,
                                 std::size_t s_stride,
                                 int antennas,
                                 unsigned j,
                                 int half,
                                 double2& p)
{
    double cr = 0, ci = 0, e = 0;
    for (int a = 0; a < antennas; a++) {
        const double2 s1 = S[std::size_t(a) * s_stride + j], s2 = S[std::size_t(a) * s_stride + j + half];
        cr += s1.x * s2.x + s1.y * s2.y; // conj(s1) s2
        ci += s1.x * s2.y - s1.y * s2.x;
        e += s1.x * s1.x + s1.y * s1.y + s2.x * s2.x + s2.y * s2.y;
    }
    const double pr = value(s.pr) - cr / half, pi = value(s.pi) - ci / half;
    const double r = value(s.r) - e / (2.0 * half);
    p = make_double2(pr, pi);
    return r > 0 ? (pr * pr + pi * pi) / (r * r) : 0.0;
}

// M(d) and P(d) for the tile's kTile positions, and the tile's first position with
// M >= threshold (kNone if none). positions = n - N + 1.
__global__ void __launch_bounds__(kMetricThreads) metric_kernel(const float2* x,
                                                                std::size_t stride,
                                                                int antennas,
                                                                unsigned positions,
                                                                int N,
                                                                double threshold,
                                                                const double2* S,
                                                                std::size_t s_stride,
                                                                double2* P,
                                                                double* M,
                                                                unsigned* tile_first)
{
    using reduce_sums = cub::BlockReduce<sums, kMetricThreads>;
    using scan_sums = cub::BlockScan<sums, kMetricThreads>;
    using reduce_min = cub::BlockReduce<unsigned, kMetricThreads>;
    __shared__ union {
        typename reduce_sums::TempStorage reduce;
        typename scan_sums::TempStorage scan;
        typename reduce_min::TempStorage min;
    } tmp;
    __shared__ sums at_first;
    const unsigned d0 = blockIdx.x * unsigned(kTile);
    const int half = N / 2;

    // The sums at the tile's first position, as find_frame starts them.
    sums acc{};
    for (int i = threadIdx.x; i < antennas * N; i += blockDim.x) {
        const int a = i / N, m = i % N;
        const float2 v = sample(x, stride, a, d0 + m);
        add_energy(acc, v, 1.0);
        if (m < half)
            add_product(acc, v, sample(x, stride, a, d0 + m + half), 1.0);
    }
    const sums total = reduce_sums(tmp.reduce).Reduce(acc, add_sums());
    if (threadIdx.x == 0)
        at_first = total;
    __syncthreads();

    // What each step j -> j + 1 adds (find_frame's slide), this thread's kPerThread.
    sums delta[kPerThread];
    sums mine{};
    const unsigned base = d0 + threadIdx.x * kPerThread;
    for (int q = 0; q < kPerThread; q++) {
        const unsigned j = base + q;
        sums s{};
        if (j + 1 < positions)
            for (int a = 0; a < antennas; a++) {
                const float2 x0 = sample(x, stride, a, j), xh = sample(x, stride, a, j + half),
                             xn = sample(x, stride, a, j + N);
                add_product(s, xh, xn, 1.0);
                add_product(s, x0, xh, -1.0);
                add_energy(s, xn, 1.0);
                add_energy(s, x0, -1.0);
            }
        delta[q] = s;
        mine = add_sums()(mine, s);
    }
    sums before;
    scan_sums(tmp.scan).ExclusiveScan(mine, before, sums{}, add_sums());
    sums run = add_sums()(at_first, before);
    unsigned first = kNone;
    for (int q = 0; q < kPerThread; q++) {
        const unsigned j = base + q;
        if (j < positions) {
            double2 p;
            const double m = centred(run, S, s_stride, antennas, j, half, p);
            P[j] = p;
            M[j] = m;
            if (m >= threshold && j < first)
                first = j;
        }
        run = add_sums()(run, delta[q]);
    }
    __syncthreads(); // the scan's storage is reused
    const unsigned f = reduce_min(tmp.min).Reduce(first, min_of());
    if (threadIdx.x == 0)
        tile_first[blockIdx.x] = f;
}

// The search kernel's block-wide reductions over unsigned values (kNone: no candidate).
__device__ unsigned block_min(unsigned v, unsigned* slot)
{
    __syncthreads();
    if (threadIdx.x == 0)
        *slot = kNone;
    __syncthreads();
    v = gc::warp_min(v);
    if ((threadIdx.x & 31) == 0 && v != kNone)
        atomicMin(slot, v);
    __syncthreads();
    return *slot;
}
// The largest candidate, kNone where none: candidates are offset by one so that 0
// means none.
__device__ unsigned block_max_or_none(unsigned v, unsigned* slot)
{
    __syncthreads();
    if (threadIdx.x == 0)
        *slot = 0;
    __syncthreads();
    const unsigned shifted = gc::warp_max(v == kNone ? 0u : v + 1);
    if ((threadIdx.x & 31) == 0 && shifted)
        atomicMax(slot, shifted);
    __syncthreads();
    return *slot ? *slot - 1 : kNone;
}
// The block's sum of v (every thread's; one value per warp added in warp order).
__device__ double block_sum_double(double v, double* slot)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        slot[threadIdx.x / 32] = v;
    __syncthreads();
    double sum = slot[0];
    for (int w = 1; w < kSearchThreads / 32; w++)
        sum += slot[w];
    return sum;
}
__device__ double block_max_double(double v, double* slot)
{
    for (int o = 16; o > 0; o /= 2)
        v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();
    if (threadIdx.x < 32)
        slot[threadIdx.x] = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        slot[threadIdx.x / 32] = v;
    __syncthreads();
    double m = slot[0];
    for (int w = 1; w < kSearchThreads / 32; w++)
        m = fmax(m, slot[w]);
    return m;
}

struct search_shape {
    unsigned n, N, cp, len, margin, window, back, max_frames, tiles;
    double threshold;
};

// search_step's loop (frame_receiver.cc) over the metrics of the whole buffer, in one
// block: the first crossing from the window's start (the tiles' first crossings skip
// quiet stretches), the peak over the symbol after it, the plateau within 90% of the
// peak, the estimate a little early, and where the search goes on.
__global__ void __launch_bounds__(kSearchThreads) search_kernel(search_shape s,
                                                                const double2* P,
                                                                const double* M,
                                                                const unsigned* tile_first,
                                                                gpu_sync_found* frames,
                                                                gpu_sync_totals* totals)
{
    __shared__ unsigned slot;
    __shared__ double dslot[32];
    const unsigned tid = threadIdx.x;
    unsigned pos = 0, count = 0;
    while (s.n - pos >= s.len + s.margin && count < s.max_frames) {
        const unsigned w = min(s.n - pos, s.window);
        const unsigned hi_pos = pos + w - s.N + 1; // the window's positions: [pos, hi_pos)
        // The first crossing: the rest of pos's tile, then the tiles' own first ones.
        const unsigned tile_end = min((pos / kTile + 1) * kTile, hi_pos);
        unsigned c = pos + tid;
        unsigned f = block_min(c < tile_end && M[c] >= s.threshold ? c : kNone, &slot);
        for (unsigned t0 = pos / kTile + 1; f == kNone && t0 * kTile < hi_pos; t0 += kSearchThreads) {
            const unsigned t = t0 + tid;
            unsigned cand = t < s.tiles && t * kTile < hi_pos ? tile_first[t] : kNone;
            f = block_min(cand < hi_pos ? cand : kNone, &slot);
        }
        unsigned advance;
        if (f == kNone) {
            advance = w - s.margin;
        } else {
            const unsigned end = min(hi_pos, f + s.N);
            double peak_m = -1;
            for (unsigned d0 = f; d0 < end; d0 += kSearchThreads) {
                const unsigned d = d0 + tid;
                peak_m = fmax(peak_m, block_max_double(d < end ? M[d] : -1.0, dslot));
            }
            unsigned peak = kNone; // the first position holding the maximum
            for (unsigned d0 = f; peak == kNone && d0 < end; d0 += kSearchThreads) {
                const unsigned d = d0 + tid;
                peak = block_min(d < end && M[d] == peak_m ? d : kNone, &slot);
            }
            const double floor = 0.9 * peak_m;
            // The plateau: from the peak down and up while M stays >= 90% of it.
            unsigned lo = kNone;
            for (unsigned d0 = f; d0 < peak; d0 += kSearchThreads) {
                const unsigned d = d0 + tid;
                const unsigned below = block_max_or_none(d < peak && M[d] < floor ? d : kNone, &slot);
                if (below != kNone)
                    lo = below;
            }
            lo = lo == kNone ? f : lo + 1;
            unsigned hi = kNone;
            for (unsigned d0 = peak + 1; hi == kNone && d0 < end; d0 += kSearchThreads) {
                const unsigned d = d0 + tid;
                hi = block_min(d < end && M[d] < floor ? d : kNone, &slot);
            }
            hi = hi == kNone ? end - 1 : hi - 1;
            const unsigned mid = (lo + hi) / 2, mid_rel = mid - pos;
            const unsigned start_rel = mid_rel > s.back ? mid_rel - s.back : 0;
            // repeat_after: the metric a symbol on, +- a quarter of the prefix, averaged.
            const unsigned next = mid + s.N + s.cp, q = s.cp / 4;
            double repeat = 0;
            if (start_rel + s.len <= w)
                for (unsigned d0 = next - q; d0 <= next + q; d0 += kSearchThreads) {
                    const unsigned d = d0 + tid;
                    repeat += block_sum_double(d <= next + q ? M[d] : 0.0, dslot);
                }
            if (start_rel + s.len > w) { // its frame runs past the window: again, in view
                advance = start_rel - s.margin;
            } else if (repeat / double(2 * q + 1) >= sync_repeat_ratio * M[mid]) {
                advance = start_rel + s.N + s.cp; // a tone or a periodic signal: not a frame
            } else {
                if (tid == 0) {
                    const double2 p = P[mid];
                    frames[count] = gpu_sync_found{ pos + start_rel, mid, M[mid],
                                           atan2(p.y, p.x) / (2 * M_PI * double(s.N / 2)) };
                }
                count++;
                advance = start_rel + s.len;
            }
        }
        pos += max(1u, advance);
    }
    if (tid == 0)
        *totals = gpu_sync_totals{ pos, count };
}

// The residual offset from the prefixes (frame_corrector::correct): one block per frame
// slot, those past the count idle. prefix_t: core::prefix_sample_positions.
__global__ void __launch_bounds__(kFrameThreads) refine_kernel(const float2* x,
                                                               std::size_t stride,
                                                               int antennas,
                                                               int N,
                                                               const int* prefix_t,
                                                               int nprefix,
                                                               const gpu_sync_found* frames,
                                                               const gpu_sync_totals* totals,
                                                               double* cfo)
{
    using reduce = cub::BlockReduce<double2, kFrameThreads>;
    __shared__ typename reduce::TempStorage tmp;
    const unsigned f = blockIdx.x;
    if (f >= totals->frames)
        return;
    const gpu_sync_found fr = frames[f];
    double2 acc = make_double2(0, 0);
    for (int i = threadIdx.x; i < nprefix * antennas; i += blockDim.x) {
        const int a = i % antennas, t = prefix_t[i / antennas];
        const float2 u = x[std::size_t(a) * stride + fr.start + t];
        const float2 v = x[std::size_t(a) * stride + fr.start + t + N];
        const gc::cplx<double> c = gc::conj_mul(gc::from_float2<double>(u), gc::from_float2<double>(v));
        acc.x += c.re;
        acc.y += c.im;
    }
    const double2 sum = reduce(tmp).Reduce(acc, [](double2 a, double2 b) {
        return make_double2(a.x + b.x, a.y + b.y);
    });
    if (threadIdx.x == 0) {
        // The coarse rotation turns every product by e^{-2 pi i coarse N}.
        double ts, tc;
        sincospi(-2.0 * fr.coarse_cfo * N, &ts, &tc);
        const double re = sum.x * tc - sum.y * ts, im = sum.x * ts + sum.y * tc;
        cfo[f] = fr.coarse_cfo + atan2(im, re) / (2 * M_PI * double(N));
    }
}

// A frame's IQ sums in kIqChunks parts, each a block: with one block per frame and
// antenna the kernel ran on a few dozen of the H200's 132 SMs (12 us a frame of the
// stream receiver against the correction's 3 us, which reads the same samples).
constexpr unsigned kIqChunks = 16;

// One block per found frame, antenna and chunk (blockIdx.z) of the frame: whether every
// sample of the chunk was usable (usable [frame][antenna][chunk]), and the sums of the
// IQ learning windows chunk, chunk + kIqChunks, ... (iq_learning_windows: fft_len
// samples from each start in windows) for the IQ state (frame_corrector::correct: the
// window's sum of y^2 and of |y|^2, in double) into window_sums
// [frame][antenna][window][3]; iq_reduce_kernel adds the windows up in order.
__global__ void __launch_bounds__(kFrameThreads)
    iq_sums_kernel(const float2* x,
                   std::size_t stride,
                   unsigned len,
                   unsigned fft_len,
                   const unsigned* windows,
                   unsigned nwindows,
                   const gpu_sync_found* frames,
                   const gpu_sync_totals* totals,
                   double* window_sums,
                   int* usable)
{
    struct three {
        double a_re, a_im, b;
    };
    using reduce_ok = cub::BlockReduce<int, kFrameThreads>;
    using reduce_sums = cub::BlockReduce<three, kFrameThreads>;
    __shared__ union {
        typename reduce_ok::TempStorage ok;
        typename reduce_sums::TempStorage sums;
    } tmp;
    const unsigned f = blockIdx.x, chunk = blockIdx.z;
    const int a = blockIdx.y;
    if (f >= totals->frames)
        return;
    const std::size_t start = std::size_t(a) * stride + frames[f].start;
    const unsigned per = (len + kIqChunks - 1) / kIqChunks;
    const unsigned from = chunk * per, to = min(len, from + per);
    int ok = 1;
    for (unsigned t = from + threadIdx.x; t < to; t += blockDim.x)
        ok &= gc::usable2(x[start + t]) ? 1 : 0; // every sample, as the corrector's check
    ok = reduce_ok(tmp.ok).Reduce(ok, [](int u, int v) { return u & v; });
    const std::size_t fa = std::size_t(f) * gridDim.y + a;
    if (threadIdx.x == 0)
        usable[fa * kIqChunks + chunk] = ok;
    for (unsigned w = chunk; w < nwindows; w += kIqChunks) {
        __syncthreads(); // tmp is free again
        three acc{ 0, 0, 0 };
        for (unsigned t = threadIdx.x; t < fft_len; t += blockDim.x) {
            const float2 v = x[start + windows[w] + t];
            const double xr = v.x, xi = v.y;
            acc.a_re += xr * xr - xi * xi;
            acc.a_im += 2 * xr * xi;
            acc.b += xr * xr + xi * xi;
        }
        const three s = reduce_sums(tmp.sums).Reduce(acc, [](three u, three v) {
            return three{ u.a_re + v.a_re, u.a_im + v.a_im, u.b + v.b };
        });
        if (threadIdx.x == 0) {
            double* q = window_sums + (fa * nwindows + w) * 3;
            q[0] = s.a_re;
            q[1] = s.a_im;
            q[2] = s.b;
        }
    }
}

// One block per found frame, a thread per antenna: the frame's windows added in order
// into sums [frame][antenna][4] (sum y^2, sum |y|^2 and the windows' sum of |sum y^2|^2),
// and usable [frame] 1 where every chunk of every antenna was usable (what
// correct_kernel's learning reads; once here rather than in each of its blocks).
__global__ void iq_reduce_kernel(const double* window_sums,
                                 unsigned nwindows,
                                 const int* chunk_usable,
                                 int antennas,
                                 const gpu_sync_totals* totals,
                                 double* sums,
                                 int* usable)
{
    const unsigned f = blockIdx.x;
    const int a = int(threadIdx.x);
    if (f >= totals->frames || a >= antennas)
        return;
    double q[4] = { 0, 0, 0, 0 };
    for (unsigned w = 0; w < nwindows; w++) {
        const double* p =
            window_sums + ((std::size_t(f) * antennas + a) * nwindows + w) * 3;
        q[0] += p[0];
        q[1] += p[1];
        q[2] += p[2];
        q[3] += p[0] * p[0] + p[1] * p[1];
    }
    for (int i = 0; i < 4; i++)
        sums[(std::size_t(f) * antennas + a) * 4 + i] = q[i];
    if (a == 0) {
        int all = 1;
        for (int b = 0; b < antennas; b++)
            for (unsigned k = 0; k < kIqChunks; k++)
                all &= chunk_usable[(std::size_t(f) * antennas + b) * kIqChunks + k];
        usable[f] = all;
    }
}

// out[a][f][t] = x[a][start + t] e^{-2 pi i cfo t}, and damaged[f] where a sample of the
// frame is unusable. With an IQ compensation beta != 0, x - beta conj(x) first: frame f's
// beta from the state the call began with and the usable frames before f (iq_beta after
// iq_learn, as frame_corrector goes frame after frame), worked out by the block's first
// threads; the first block also leaves the state after every frame of the call in
// state_out (the host swaps the two where frames were found).
// The reference's phasor comes from a recurrence in double; here
// from the phase itself, the same to about 1e-12.
__global__ void correct_kernel(const float2* x,
                               std::size_t stride,
                               int antennas,
                               unsigned len,
                               unsigned max_frames,
                               const gpu_sync_found* frames,
                               const gpu_sync_totals* totals,
                               const double* cfo,
                               const iq_state* state_in,
                               const double* iq_sums,
                               const int* iq_usable,
                               iq_state* state_out,
                               float2* out,
                               int* damaged)
{
    __shared__ float2 beta[32];
    const unsigned f = blockIdx.y;
    const unsigned frames_found = totals->frames;
    if (f >= frames_found)
        return;
    if (threadIdx.x < unsigned(antennas)) {
        const int a = int(threadIdx.x);
        iq_state s = state_in[a];
        const bool last = blockIdx.x == 0 && f == 0; // this block leaves the call's state
        double br, bi;
        iq_beta(s, &br, &bi); // frame 0's
        const unsigned upto = last ? frames_found : f;
        for (unsigned g = 0; g < upto; g++) {
            if (iq_usable[g]) {
                const double* q = iq_sums + (std::size_t(g) * antennas + a) * 4;
                iq_learn(s, q[0], q[1], q[2], q[3]);
            }
            if (g + 1 == f)
                iq_beta(s, &br, &bi); // after the frames before f
        }
        beta[a] = make_float2(float(br), float(bi));
        if (last)
            state_out[a] = s;
    }
    __syncthreads();
    const unsigned start = frames[f].start;
    const double k = cfo[f];
    for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < len; t += gridDim.x * blockDim.x) {
        const double turns = k * double(t);
        double s, c;
        sincospi(-2.0 * (turns - rint(turns)), &s, &c);
        const float wr = float(c), wi = float(s);
        bool bad = false;
        for (int a = 0; a < antennas; a++) {
            float2 v = x[std::size_t(a) * stride + start + t];
            bad |= !gc::usable2(v);
            const float2 b = beta[a];
            if (b.x != 0 || b.y != 0) { // frame_corrector's float arithmetic
                const float br = b.x, bi = b.y;
                v = make_float2(__fsub_rn(v.x, __fadd_rn(__fmul_rn(br, v.x), __fmul_rn(bi, v.y))),
                                __fsub_rn(v.y, __fsub_rn(__fmul_rn(bi, v.x), __fmul_rn(br, v.y))));
            }
            out[(std::size_t(a) * max_frames + f) * len + t] =
                make_float2(v.x * wr - v.y * wi, v.x * wi + v.y * wr);
        }
        if (bad)
            damaged[f] = 1; // racing writers all write 1
    }
}

} // namespace

gpu_frame_sync::gpu_frame_sync(const frame_format& frame,
                               int antennas,
                               std::size_t max_input,
                               std::size_t max_frames,
                               int device,
                               bool host_output)
    : d_frame(frame),
      d_antennas(antennas),
      d_cap(max_input),
      d_max_frames(max_frames),
      d_len(frame.samples()),
      d_device(device)
{
    if (max_input >= (std::size_t(1) << 31))
        throw std::invalid_argument("gpu frame_sync_engine: max_input must be below 2^31");
    const gc::device_guard keep;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(device));
    d_stream = std::make_unique<gc::stream>();
    for (auto& b : d_samples)
        b = gc::device_buffer<float2>(std::size_t(antennas) * d_cap);
    d_stage = gc::pinned_buffer<float2>(std::size_t(antennas) * d_cap);
    d_S = gc::device_buffer<double2>(std::size_t(antennas) * d_cap);
    d_P = gc::device_buffer<double2>(d_cap);
    d_M = gc::device_buffer<double>(d_cap);
    d_tile_first = gc::device_buffer<unsigned>(d_cap / kTile + 1);
    d_found = gc::device_buffer<gpu_sync_found>(max_frames);
    d_totals = gc::device_buffer<gpu_sync_totals>(1);
    d_cfo = gc::device_buffer<double>(max_frames);
    d_damaged = gc::device_buffer<int>(max_frames);
    if (antennas > 32)
        throw std::invalid_argument("gpu frame_sync_engine: at most 32 antennas (the IQ state's threads)");
    for (auto& q : d_iq) {
        q = gc::device_buffer<iq_state>(std::size_t(antennas));
        GPUMIMO_CUDA_CHECK(cudaMemset(q.get(), 0, std::size_t(antennas) * sizeof(iq_state)));
    }
    const std::vector<std::uint32_t> windows = iq_learning_windows(frame);
    d_iq_windows = gc::upload(std::vector<unsigned>(windows.begin(), windows.end()));
    d_iq_nwindows = unsigned(windows.size());
    d_iq_window_sums = gc::device_buffer<double>(max_frames * std::size_t(antennas) *
                                                 windows.size() * 3);
    d_iq_chunk_usable =
        gc::device_buffer<int>(max_frames * std::size_t(antennas) * kIqChunks);
    d_iq_sums = gc::device_buffer<double>(max_frames * std::size_t(antennas) * 4);
    d_iq_usable = gc::device_buffer<int>(max_frames);
    d_out = gc::device_buffer<float2>(std::size_t(antennas) * max_frames * d_len);
    if (host_output)
        d_host_out = gc::pinned_buffer<float2>(std::size_t(antennas) * max_frames * d_len);
    d_host_found = gc::pinned_buffer<gpu_sync_found>(max_frames);
    d_host_totals = gc::pinned_buffer<gpu_sync_totals>(1);
    d_host_cfo = gc::pinned_buffer<double>(max_frames);
    d_host_damaged = gc::pinned_buffer<int>(max_frames);
    const std::vector<int> prefix = prefix_sample_positions(frame);
    d_prefix = gc::upload(prefix);
    d_nprefix = int(prefix.size());
}

gpu_frame_sync::~gpu_frame_sync() = default;

sync_call_result gpu_frame_sync::search(const std::complex<float>* const* in,
                                        std::uint64_t first_sample,
                                        std::size_t n,
                                        std::size_t max_frames,
                                        double threshold,
                                        std::complex<float>* const* out,
                                        synced_frame* frames)
{
    const sync_call_result r = search_on_device(in, first_sample, n, max_frames, threshold, frames);
    if (r.frames == 0)
        return r;
    const gc::device_guard keep;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
    if (d_host_out.size() == 0)
        throw std::logic_error("gpu_frame_sync::search: made without host_output");
    const cudaStream_t st = d_stream->get();
    // Straight into the caller's output where it is on a device (a device-resident
    // stream buffer to a GPU ofdm_fft) or page-locked (a block's registered stream
    // buffers), else through the pinned buffer and a copy.
    const std::size_t bytes = r.frames * d_len * sizeof(float2);
    bool direct = true;
    for (int a = 0; a < d_antennas; a++)
        direct = direct && (gc::is_device(out[a]) || gc::is_pinned_range(out[a], bytes));
    for (int a = 0; a < d_antennas; a++)
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(direct ? static_cast<void*>(out[a])
                                                  : d_host_out.get() + std::size_t(a) * d_max_frames * d_len,
                                           d_out.get() + std::size_t(a) * d_max_frames * d_len,
                                           bytes, cudaMemcpyDefault, st));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
    if (!direct)
        for (int a = 0; a < d_antennas; a++)
            std::memcpy(out[a], d_host_out.get() + std::size_t(a) * d_max_frames * d_len, bytes);
    return r;
}

sync_call_result gpu_frame_sync::search_on_device(const std::complex<float>* const* in,
                                                  std::uint64_t first_sample,
                                                  std::size_t n,
                                                  std::size_t max_frames,
                                                  double threshold,
                                                  synced_frame* frames)
{
    detail::check_sync_call(n, d_cap, max_frames, d_max_frames, threshold);
    sync_call_result r;
    const std::size_t margin = search_margin(d_frame);
    if (n < d_len + margin || max_frames == 0)
        return r; // nothing searched: what is kept stays kept
    if (threshold == automatic_threshold)
        threshold = sync_threshold(d_frame, d_antennas);
    const gc::device_guard keep;
    GPUMIMO_CUDA_CHECK(cudaSetDevice(d_device));
    const cudaStream_t st = d_stream->get();
    try {
        const float2* x = take_in(in, first_sample, n, st);
        const std::size_t N = d_frame.num.fft_len;
        const unsigned positions = unsigned(n - N + 1);
        const unsigned tiles = (positions + kTile - 1) / kTile;
        const unsigned halves = unsigned(n - N / 2 + 1); // positions of a half-symbol sum
        half_sums_kernel<<<dim3((halves + kTile - 1) / kTile, unsigned(d_antennas)), kMetricThreads, 0, st>>>(
            x, d_cap, halves, int(N / 2), d_S.get(), d_cap);
        GPUMIMO_CUDA_CHECK_LAUNCH("half_sums_kernel");
        metric_kernel<<<tiles, kMetricThreads, 0, st>>>(x, d_cap, d_antennas, positions, int(N),
                                                        threshold, d_S.get(), d_cap, d_P.get(), d_M.get(),
                                                        d_tile_first.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("metric_kernel");
        search_shape s;
        s.n = unsigned(n);
        s.N = unsigned(N);
        s.len = unsigned(d_len);
        s.margin = unsigned(margin);
        s.window = unsigned(search_window(d_frame));
        const int cp0 = d_frame.num.cp_lengths[0];
        s.back = unsigned(cp0 / 2 + cp0 / 4);
        s.cp = unsigned(cp0);
        s.max_frames = unsigned(max_frames);
        s.tiles = tiles;
        s.threshold = threshold;
        search_kernel<<<1, kSearchThreads, 0, st>>>(s, d_P.get(), d_M.get(), d_tile_first.get(),
                                                    d_found.get(), d_totals.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("search_kernel");
        refine_kernel<<<unsigned(max_frames), kFrameThreads, 0, st>>>(
            x, d_cap, d_antennas, int(N), d_prefix.get(), d_nprefix, d_found.get(), d_totals.get(),
            d_cfo.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("refine_kernel");
        GPUMIMO_CUDA_CHECK(
            cudaMemsetAsync(d_damaged.get(), 0, max_frames * sizeof(int), st));
        iq_sums_kernel<<<dim3(unsigned(max_frames), unsigned(d_antennas), kIqChunks),
                         kFrameThreads,
                         0,
                         st>>>(x,
                               d_cap,
                               unsigned(d_len),
                               unsigned(N),
                               d_iq_windows.get(),
                               d_iq_nwindows,
                               d_found.get(),
                               d_totals.get(),
                               d_iq_window_sums.get(),
                               d_iq_chunk_usable.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("iq_sums_kernel");
        iq_reduce_kernel<<<unsigned(max_frames), 32, 0, st>>>(d_iq_window_sums.get(),
                                                              d_iq_nwindows,
                                                              d_iq_chunk_usable.get(),
                                                              d_antennas,
                                                              d_totals.get(),
                                                              d_iq_sums.get(),
                                                              d_iq_usable.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("iq_reduce_kernel");
        const dim3 grid(unsigned((d_len + kFrameThreads - 1) / kFrameThreads), unsigned(max_frames));
        correct_kernel<<<grid, kFrameThreads, 0, st>>>(x, d_cap, d_antennas, unsigned(d_len),
                                                       unsigned(d_max_frames), d_found.get(),
                                                       d_totals.get(), d_cfo.get(), d_iq[d_iq_current].get(),
                                                       d_iq_sums.get(), d_iq_usable.get(),
                                                       d_iq[1 - d_iq_current].get(), d_out.get(),
                                                       d_damaged.get());
        GPUMIMO_CUDA_CHECK_LAUNCH("correct_kernel");
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(d_host_totals.get(), d_totals.get(), sizeof(gpu_sync_totals),
                                           cudaMemcpyDeviceToHost, st));
        GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
        const gpu_sync_totals totals = *d_host_totals.get();
        r.consumed = totals.consumed;
        r.frames = totals.frames;
        if (r.frames > 0) // correct_kernel left the IQ state after them in the other buffer
            d_iq_current = 1 - d_iq_current;
        if (r.frames > max_frames || r.consumed > n)
            throw std::runtime_error("gpu frame_sync_engine: the search kernel's totals are out of range");
        if (r.frames)
            fetch_records(r.frames, st, frames);
    } catch (...) {
        d_continues = false; // the device's copy is not to be trusted: copy anew
        throw;
    }
    d_next_first = first_sample + r.consumed;
    d_kept_from = r.consumed;
    d_kept = n - r.consumed;
    return r;
}

// The call's samples on the device: the last call's unconsumed ones moved over from the
// other buffer (when this call continues the stream), the rest copied in.
const float2* gpu_frame_sync::take_in(const std::complex<float>* const* in,
                                      std::uint64_t first_sample,
                                      std::size_t n,
                                      cudaStream_t st)
{
    const std::size_t kept = d_continues && first_sample == d_next_first && n >= d_kept ? d_kept : 0;
    const int from = d_current, to = 1 - d_current;
    for (int a = 0; a < d_antennas; a++) {
        float2* dst = d_samples[to].get() + std::size_t(a) * d_cap;
        if (kept)
            GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(dst, d_samples[from].get() + std::size_t(a) * d_cap + d_kept_from,
                                               kept * sizeof(float2), cudaMemcpyDeviceToDevice, st));
        // The staging buffer (for pageable input) is free: its last copies ended with the
        // last call's synchronisation.
        gc::copy_to_device_async(dst + kept, in[a] + kept, (n - kept) * sizeof(float2),
                                 d_stage.get() + std::size_t(a) * d_cap + kept, st);
    }
    d_current = to;
    d_continues = true;
    return d_samples[to].get();
}

void gpu_frame_sync::fetch_records(std::size_t count, cudaStream_t st, synced_frame* frames)
{
    auto back = [st](void* host, const void* dev, std::size_t bytes) {
        GPUMIMO_CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, st));
    };
    back(d_host_found.get(), d_found.get(), count * sizeof(gpu_sync_found));
    back(d_host_cfo.get(), d_cfo.get(), count * sizeof(double));
    back(d_host_damaged.get(), d_damaged.get(), count * sizeof(int));
    GPUMIMO_CUDA_CHECK(cudaStreamSynchronize(st));
    for (std::size_t k = 0; k < count; k++) {
        frames[k].start = d_host_found.get()[k].start;
        frames[k].metric = d_host_found.get()[k].metric;
        frames[k].cfo = d_host_cfo.get()[k];
        frames[k].usable = d_host_damaged.get()[k] == 0;
    }
}

const std::complex<float>* gpu_frame_sync::device_frames(int antenna) const
{
    return reinterpret_cast<const std::complex<float>*>(d_out.get() +
                                                        std::size_t(antenna) * d_max_frames * d_len);
}

namespace {
// gpu_frame_sync as the factory's GPU engine (make_frame_sync_engine).
class gpu_frame_sync_engine : public frame_sync_engine
{
public:
    gpu_frame_sync_engine(const frame_format& frame, int antennas, std::size_t max_input, std::size_t max_frames, int device)
        : d_sync(frame, antennas, max_input, max_frames, device, true)
    {
    }
    const char* backend() const override { return "cuda"; }
    sync_call_result search(const std::complex<float>* const* in,
                            std::uint64_t first_sample,
                            std::size_t n,
                            std::size_t max_frames,
                            double threshold,
                            std::complex<float>* const* out,
                            synced_frame* frames) override
    {
        return d_sync.search(in, first_sample, n, max_frames, threshold, out, frames);
    }

private:
    gpu_frame_sync d_sync;
};
} // namespace

namespace detail {
std::unique_ptr<frame_sync_engine> make_gpu_frame_sync_engine(const frame_format& frame,
                                                              int antennas,
                                                              std::size_t max_input,
                                                              std::size_t max_frames,
                                                              int device,
                                                              std::string*)
{
    return std::make_unique<gpu_frame_sync_engine>(frame, antennas, max_input, max_frames, device);
}
} // namespace detail

} // namespace core
} // namespace gpumimo
} // namespace gr
