/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT in one pass (ofdm_fft_transform.cuh): each transform of N points is
 * done by N/8 threads holding 8 points each in registers, as a Stockham autosort FFT
 * (radix-8 passes, then one radix-2 or radix-4 pass where log2 N is not a multiple of
 * 3), the points exchanged through shared memory between passes. The first pass reads
 * its points straight from the raw input (decoded, prefix skipped, windowed; or, for
 * the inverse, the carriers placed into their bins) and the last one writes its points
 * straight to the output (carriers selected, scaled, encoded; or windowed, scaled and
 * written to the body and to the prefix), so the data crosses device memory once, in
 * and out, and both ends are coalesced: thread t of a transform reads and writes the
 * points t, t + N/8, t + 2N/8, ...
 *
 * Why our own and not cuFFT: with the conversions as cuFFT callbacks the path took 2.75
 * times plain cuFFT's time, and callbacks that only read their element already 1.48
 * times (docs/performance.md); a transform that owns its loads and stores pays nothing
 * for them. cuFFT stays for the sizes this one does not have (1536, 3072, ...).
 *
 * The inverse is the forward transform of the conjugate, conjugated. The Stockham pass
 * of radix R over a span P (the product of the earlier passes' radices) takes, for
 * butterfly i (0 .. N/R - 1) and k = i mod P, the points i + r N/R, multiplies point r
 * by w^(r k) with w = e^{-2 pi i / (P R)}, transforms the R points and puts output r at
 * (i - k) R + k + r P; after the last pass the points are in natural order (checked
 * against numpy's FFT while designing; the tests hold the kernel to FFTW).
 */
#include "common/cuda_check.cuh"
#include "ofdm/ofdm_fft_transform.cuh"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace cuda {

namespace {

constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }

// How a transform of N points is cut into threads and passes, and a block into
// transforms: 128 threads a block (one transform of 1024 points, eight of 128; more
// threads from 2048 points: one transform a block), registers capped so that 1536
// threads fit an SM (42 a thread). Measured on the H200 at 512 points (fc32, 65,536
// transforms, kernel alone, against plain cuFFT's 2.09 ns): 256 threads a block 2.36
// ns, 256 capped at 32 registers 2.27 (spills), 64 threads 2.20, 128 threads 2.20,
// 128 capped as here 2.12; barriers over fewer warps stall less.
template <int N>
struct transform_shape {
    static constexpr int kThreadsPerFft = N / 8;
    static constexpr int kRadix8Passes = log2_of(N) / 3;
    static constexpr int kTailRadix = 1 << (log2_of(N) % 3); // 1: no tail pass
    static constexpr int kPasses = kRadix8Passes + (kTailRadix > 1 ? 1 : 0);
    static constexpr int kLastRadix = kTailRadix > 1 ? kTailRadix : 8;
    static constexpr int kThreads = kThreadsPerFft > 128 ? kThreadsPerFft : 128;
    static constexpr int kMinBlocks = 1536 / kThreads;
    static constexpr int kFfts = kThreads / kThreadsPerFft;
    // Shared points per transform: one float2 of padding after every 8, so that the
    // first pass's writes (stride 8 points) fall into different banks.
    static constexpr int kPitch = N + N / 8;
    static_assert(N >= 64 && N <= 4096 && (N & (N - 1)) == 0, "powers of two, 64 .. 4096");
    static_assert(kPasses >= 2, "the non-finite flag is read after a pass's barrier");
};

__device__ __forceinline__ int padded(int a) { return a + (a >> 3); }

__device__ __forceinline__ float2 cadd(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__device__ __forceinline__ float2 csub(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}
__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 times_minus_i(float2 a) { return make_float2(a.y, -a.x); }

__device__ __forceinline__ void dft2(float2& a, float2& b)
{
    const float2 t = a;
    a = cadd(t, b);
    b = csub(t, b);
}

// Four points in natural order, in place.
__device__ __forceinline__ void dft4(float2& x0, float2& x1, float2& x2, float2& x3)
{
    const float2 t0 = cadd(x0, x2), t1 = csub(x0, x2);
    const float2 t2 = cadd(x1, x3), t3 = times_minus_i(csub(x1, x3));
    x0 = cadd(t0, t2);
    x1 = cadd(t1, t3);
    x2 = csub(t0, t2);
    x3 = csub(t1, t3);
}

// Eight points in natural order, in place: the even and the odd points' DFT4s, the odd
// ones turned by e^{-i pi k / 4}, then combined.
__device__ __forceinline__ void dft8(float2* v)
{
    float2 e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6];
    float2 o0 = v[1], o1 = v[3], o2 = v[5], o3 = v[7];
    dft4(e0, e1, e2, e3);
    dft4(o0, o1, o2, o3);
    const float h = 0.70710678118654752f;
    o1 = make_float2(h * (o1.x + o1.y), h * (o1.y - o1.x));  // e^{-i pi/4}
    o2 = times_minus_i(o2);                                 // e^{-i pi/2}
    o3 = make_float2(h * (o3.y - o3.x), -h * (o3.x + o3.y)); // e^{-3i pi/4}
    v[0] = cadd(e0, o0);
    v[4] = csub(e0, o0);
    v[1] = cadd(e1, o1);
    v[5] = csub(e1, o1);
    v[2] = cadd(e2, o2);
    v[6] = csub(e2, o2);
    v[3] = cadd(e3, o3);
    v[7] = csub(e3, o3);
}

// The thread's 8 / R butterflies of a pass of radix R over span P: butterfly m holds
// v[m R .. m R + R - 1] (butterfly index i = t + m N/8).
template <int N, int R, int P>
__device__ __forceinline__ void butterflies(float2 (&v)[8], int t, const float2* twiddles)
{
    constexpr int T = N / 8;
#pragma unroll
    for (int m = 0; m < 8 / R; m++) {
        float2* x = v + m * R;
        if (P > 1) {
            const int k = (t + m * T) & (P - 1);
            // w^r from the table's w: each power at most 3 products from the table's
            // value, so rounding stays a few units in the last place.
            float2 w[R];
            w[1] = __ldg(twiddles + k * (N / (P * R)));
#pragma unroll
            for (int r = 2; r < R; r++)
                w[r] = (r % 2 == 0) ? cmul(w[r / 2], w[r / 2]) : cmul(w[r - 1], w[1]);
#pragma unroll
            for (int r = 1; r < R; r++)
                x[r] = cmul(x[r], w[r]);
        }
        if (R == 8)
            dft8(x);
        else if (R == 4)
            dft4(x[0], x[1], x[2], x[3]);
        else
            dft2(x[0], x[1]);
    }
}

// A pass's outputs to where the next pass reads them.
template <int N, int R, int P>
__device__ __forceinline__ void to_shared(const float2 (&v)[8], int t, float2* area)
{
    constexpr int T = N / 8;
#pragma unroll
    for (int m = 0; m < 8 / R; m++) {
        const int i = t + m * T, k = i & (P - 1), j = (i - k) * R + k;
#pragma unroll
        for (int r = 0; r < R; r++)
            area[padded(j + r * P)] = v[m * R + r];
    }
}

template <int N, int R>
__device__ __forceinline__ void from_shared(float2 (&v)[8], int t, const float2* area)
{
    constexpr int T = N / 8;
#pragma unroll
    for (int m = 0; m < 8 / R; m++)
#pragma unroll
        for (int r = 0; r < R; r++)
            v[m * R + r] = area[padded(t + m * T + r * (N / R))];
}

// Pass Q and the ones after it; the tail pass (radix 2 or 4) comes last, so pass Q's
// span is 8^Q. Afterwards v[m R + r] (R the last radix) holds point t + m N/8 + r N/R.
template <int N, int Q>
__device__ __forceinline__ void
run_passes(float2 (&v)[8], int t, float2* area, const float2* twiddles)
{
    using S = transform_shape<N>;
    constexpr int R = Q < S::kRadix8Passes ? 8 : S::kTailRadix;
    constexpr int P = 1 << (3 * Q);
    if constexpr (Q > 0)
        from_shared<N, R>(v, t, area);
    butterflies<N, R, P>(v, t, twiddles);
    if constexpr (Q + 1 < S::kPasses) {
        __syncthreads(); // the whole area read before it is overwritten
        to_shared<N, R, P>(v, t, area);
        __syncthreads();
        run_passes<N, Q + 1>(v, t, area, twiddles);
    }
}

// The first pass's points from the raw input, the sample format fixed (kFmt) so that
// the thread's eight loads go out back to back before any is used: with the format
// decided per sample, each load waited for the one before (3.3 ns per 512-point
// transform on the H200 against plain cuFFT's 2.1). Returns false when a point is not
// finite.
template <int N, bool kForward, int kFmt>
__device__ __forceinline__ bool load_points(float2 (&v)[8],
                                            int t,
                                            const void* __restrict__ in,
                                            std::size_t in_base,
                                            const float* __restrict__ window,
                                            const int* __restrict__ carrier_of_bin)
{
    constexpr int T = N / 8;
    if constexpr (kForward) {
#pragma unroll
        for (int r = 0; r < 8; r++)
            v[r] = decode(kFmt, in, in_base + t + r * T);
        if (window)
#pragma unroll
            for (int r = 0; r < 8; r++) {
                const float w = window[t + r * T];
                v[r] = make_float2(v[r].x * w, v[r].y * w);
            }
    } else {
        int j[8];
#pragma unroll
        for (int r = 0; r < 8; r++)
            j[r] = carrier_of_bin[t + r * T];
#pragma unroll
        for (int r = 0; r < 8; r++)
            v[r] = j[r] >= 0 ? decode(kFmt, in, in_base + j[r]) : make_float2(0.f, 0.f);
#pragma unroll
        for (int r = 0; r < 8; r++)
            v[r].y = -v[r].y; // the inverse: the forward of the conjugate, conjugated
    }
    bool finite = true;
#pragma unroll
    for (int r = 0; r < 8; r++)
        finite &= usable2(v[r]);
    return finite;
}

// The last pass's points to the output, the format fixed (kFmt). v[m R + r] (R the last
// pass's radix) is point t + m N/8 + r N/R: a bin (forward) or a time sample (inverse).
template <int N, bool kForward, int kFmt>
__device__ __forceinline__ void store_points(const float2 (&v)[8],
                                             int t,
                                             bool zero,
                                             float scale,
                                             int cp,
                                             void* __restrict__ out,
                                             std::size_t out_base,
                                             const float* __restrict__ window,
                                             const int* __restrict__ carrier_of_bin)
{
    constexpr int T = N / 8, R = transform_shape<N>::kLastRadix;
    const auto point = [&](int m, int r) { return t + m * T + r * (N / R); };
    if constexpr (kForward) {
        int j[8];
#pragma unroll
        for (int m = 0; m < 8 / R; m++)
#pragma unroll
            for (int r = 0; r < R; r++)
                j[m * R + r] = carrier_of_bin[point(m, r)];
#pragma unroll
        for (int m = 0; m < 8 / R; m++)
#pragma unroll
            for (int r = 0; r < R; r++) {
                const float2 x = v[m * R + r];
                if (j[m * R + r] >= 0)
                    encode(kFmt,
                           zero ? make_float2(0.f, 0.f)
                                : make_float2(x.x * scale, x.y * scale),
                           out,
                           out_base + j[m * R + r]);
            }
    } else {
#pragma unroll
        for (int m = 0; m < 8 / R; m++)
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int e = point(m, r);
                const float2 x = v[m * R + r];
                const float w = (window ? window[e] : 1.f) * scale;
                const float2 y =
                    zero ? make_float2(0.f, 0.f) : make_float2(x.x * w, -x.y * w);
                encode(kFmt, y, out, out_base + cp + e);
                if (e >= N - cp) // the prefix repeats the body's tail
                    encode(kFmt, y, out, out_base + e - (N - cp));
            }
    }
}

#define GPUMIMO_FOR_FORMAT(fmt, call)                                                   \
    switch (fmt) {                                                                     \
    case int(core::sample_format::fc32): {                                             \
        constexpr int kFmt = int(core::sample_format::fc32);                           \
        call;                                                                          \
    } break;                                                                           \
    case int(core::sample_format::fc16): {                                             \
        constexpr int kFmt = int(core::sample_format::fc16);                           \
        call;                                                                          \
    } break;                                                                           \
    case int(core::sample_format::sc16): {                                             \
        constexpr int kFmt = int(core::sample_format::sc16);                           \
        call;                                                                          \
    } break;                                                                           \
    default: {                                                                         \
        constexpr int kFmt = int(core::sample_format::sc8);                            \
        call;                                                                          \
    }                                                                                  \
    }

// One (channel, symbol) row of the chunk per N/8 threads.
template <int N, bool kForward>
__global__ void __launch_bounds__(transform_shape<N>::kThreads, transform_shape<N>::kMinBlocks)
    single_pass_kernel(chunk_geometry g,
                       const void* __restrict__ in,
                       void* __restrict__ out,
                       const float* __restrict__ window,
                       const int* __restrict__ carrier_of_bin,
                       const float2* __restrict__ twiddles,
                       unsigned* zeroed)
{
    using S = transform_shape<N>;
    constexpr int T = S::kThreadsPerFft;
    __shared__ float2 shared[S::kFfts * S::kPitch];
    __shared__ int bad[S::kFfts]; // the row's input holds a non-finite sample
    const int f = threadIdx.x / T, t = threadIdx.x % T;
    const unsigned row = blockIdx.x * S::kFfts + f;
    // A block's last transforms may have no row: their threads still take part in the
    // barriers, on zeros, and write nothing.
    const bool live = row < unsigned(g.channels) * unsigned(g.nsym);

    symbol_place at{};
    if (live)
        at = place_of(g, kForward, int(row / unsigned(g.nsym)), int(row % unsigned(g.nsym)));
    if (t == 0)
        bad[f] = 0;
    __syncthreads();

    float2 v[8];
    bool finite = true;
    if (live) {
        GPUMIMO_FOR_FORMAT(g.in_fmt,
                           finite = (load_points<N, kForward, kFmt>(
                               v, t, in, at.in, window, carrier_of_bin)))
    } else {
#pragma unroll
        for (int r = 0; r < 8; r++)
            v[r] = make_float2(0.f, 0.f);
    }
    if (!finite)
        bad[f] = 1; // read after the first pass's barrier

    run_passes<N, 0>(v, t, shared + f * S::kPitch, twiddles);

    if (!live)
        return;
    const bool zero = bad[f] != 0;
    GPUMIMO_FOR_FORMAT(g.out_fmt,
                       (store_points<N, kForward, kFmt>(
                           v, t, zero, g.scale, at.cp, out, at.out, window, carrier_of_bin)))
    if (t == 0 && zero)
        atomicAdd(zeroed, 1u);
}

#undef GPUMIMO_FOR_FORMAT

template <int N, bool kForward>
void launch(const chunk_geometry& g, const single_pass_buffers& b, cudaStream_t stream)
{
    using S = transform_shape<N>;
    const unsigned rows = unsigned(g.channels) * unsigned(g.nsym);
    const unsigned blocks = (rows + S::kFfts - 1) / S::kFfts;
    single_pass_kernel<N, kForward><<<blocks, S::kThreads, 0, stream>>>(
        g, b.in, b.out, b.window, b.carrier_of_bin, b.twiddles, b.zeroed);
    GPUMIMO_CUDA_CHECK_LAUNCH("single_pass_kernel");
}

template <bool kForward>
void launch_size(const chunk_geometry& g, const single_pass_buffers& b, cudaStream_t stream)
{
    switch (g.n) {
    case 64:
        return launch<64, kForward>(g, b, stream);
    case 128:
        return launch<128, kForward>(g, b, stream);
    case 256:
        return launch<256, kForward>(g, b, stream);
    case 512:
        return launch<512, kForward>(g, b, stream);
    case 1024:
        return launch<1024, kForward>(g, b, stream);
    case 2048:
        return launch<2048, kForward>(g, b, stream);
    case 4096:
        return launch<4096, kForward>(g, b, stream);
    default:
        throw std::invalid_argument("single-pass OFDM FFT: no transform of " +
                                    std::to_string(g.n) + " points");
    }
}

} // namespace

bool single_pass_supports(int fft_len)
{
    return fft_len >= 64 && fft_len <= 4096 && (fft_len & (fft_len - 1)) == 0;
}

std::vector<float2> single_pass_twiddles(int fft_len)
{
    std::vector<float2> table(fft_len);
    for (int m = 0; m < fft_len; m++) {
        const double a = -2.0 * M_PI * m / fft_len;
        table[m] = make_float2(float(std::cos(a)), float(std::sin(a)));
    }
    return table;
}

void enqueue_single_pass(const chunk_geometry& g,
                         bool forward,
                         const single_pass_buffers& b,
                         cudaStream_t stream)
{
    if (g.channels < 1 || g.nsym < 1)
        return;
    if (forward)
        launch_size<true>(g, b, stream);
    else
        launch_size<false>(g, b, stream);
}

} // namespace cuda
} // namespace gpumimo
} // namespace gr
