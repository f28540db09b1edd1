/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the OFDM FFT's device code shares: a chunk's geometry (where each symbol of each
 * channel lies, prefixes included), sample decoding and encoding, and what the cuFFT
 * load and store callbacks (ofdm_fft_callbacks.cu, linked into cuFFT's kernels at plan
 * time) are told. Included by ofdm_fft.cu and by the callbacks' own compilation, which
 * is LTO-IR only. Only the CUDA toolkit here.
 */
#ifndef INCLUDED_GPUMIMO_OFDM_FFT_DEVICE_CUH
#define INCLUDED_GPUMIMO_OFDM_FFT_DEVICE_CUH

#include "common/fast_divmod.cuh"
#include "common/gpu_math.cuh" // usable2: an input sample no transform of can overflow

#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <cuda_fp16.h>

#include <cstddef>

namespace gr {
namespace gpumimo {
namespace cuda {

// Everything a chunk's kernels (or the callbacks) need, by value.
struct chunk_geometry {
    int n, ncar, channels, nsym, period, phase;
    long long period_len;
    int cp[core::kMaxCpPattern];
    int cp_prefix[2 * core::kMaxCpPattern +
                  1]; // sum of the doubled pattern's first j prefixes
    int max_cp;
    int in_fmt, out_fmt; // core::sample_format
    float scale;
    std::size_t in_pitch, out_pitch; // samples per channel in the device buffers
};

__device__ __forceinline__ long long time_offset(const chunk_geometry& g, int s)
{
    const int periods = s / g.period, rem = s % g.period;
    return periods * g.period_len + (g.cp_prefix[g.phase + rem] - g.cp_prefix[g.phase]) +
           (long long)rem * g.n;
}
__device__ __forceinline__ int cp_of(const chunk_geometry& g, int s)
{
    return g.cp[(g.phase + s) % g.period];
}

// Where symbol s of channel c lies in a chunk's buffers, in samples: forward, the
// start of its body (after the prefix) in the input and of its carriers in the output;
// inverse, the start of its carriers in the input and of its prefix in the output.
struct symbol_place {
    std::size_t in, out;
    int cp; // the symbol's prefix length
};
__device__ __forceinline__ symbol_place
place_of(const chunk_geometry& g, bool forward, int c, int s)
{
    const std::size_t start = std::size_t(time_offset(g, s));
    const std::size_t carriers = std::size_t(s) * g.ncar;
    symbol_place p;
    p.cp = cp_of(g, s);
    p.in = c * g.in_pitch + (forward ? start + p.cp : carriers);
    p.out = c * g.out_pitch + (forward ? carriers : start);
    return p;
}

__device__ __forceinline__ float2 decode(int fmt, const void* base, std::size_t i)
{
    switch (fmt) {
    case int(core::sample_format::fc32):
        return static_cast<const float2*>(base)[i];
    case int(core::sample_format::fc16): {
        const __half2 h = static_cast<const __half2*>(base)[i];
        return __half22float2(h);
    }
    case int(core::sample_format::sc16): {
        const short2 v = static_cast<const short2*>(base)[i];
        return make_float2(v.x * (1.f / 32768.f), v.y * (1.f / 32768.f));
    }
    default: {
        const char2 v = static_cast<const char2*>(base)[i];
        return make_float2(v.x * (1.f / 128.f), v.y * (1.f / 128.f));
    }
    }
}

__device__ __forceinline__ float saturate(float x, float lo, float hi)
{
    return isnan(x) ? x : fminf(fmaxf(x, lo), hi);
}

__device__ __forceinline__ void encode(int fmt, float2 v, void* base, std::size_t i)
{
    switch (fmt) {
    case int(core::sample_format::fc32):
        static_cast<float2*>(base)[i] = v;
        return;
    case int(core::sample_format::fc16):
        static_cast<__half2*>(base)[i] = __floats2half2_rn(
            saturate(v.x, -65504.f, 65504.f), saturate(v.y, -65504.f, 65504.f));
        return;
    case int(core::sample_format::sc16): {
        const float a = rintf(v.x * 32768.f), b = rintf(v.y * 32768.f);
        static_cast<short2*>(base)[i] =
            make_short2(short(isnan(a) ? 0.f : fminf(fmaxf(a, -32768.f), 32767.f)),
                        short(isnan(b) ? 0.f : fminf(fmaxf(b, -32768.f), 32767.f)));
        return;
    }
    default: {
        const float a = rintf(v.x * 128.f), b = rintf(v.y * 128.f);
        static_cast<char2*>(base)[i] =
            make_char2(char(isnan(a) ? 0.f : fminf(fmaxf(a, -128.f), 127.f)),
                       char(isnan(b) ? 0.f : fminf(fmaxf(b, -128.f), 127.f)));
        return;
    }
    }
}




// What the callbacks of a slot's plans read: written into the slot's device copy, with
// the row tables, by a preparation kernel before each chunk's transforms, in stream
// order (cuFFT hands the callbacks one fixed pointer per plan, set at plan time).
struct fft_callback_info {
    const void* in;     // the chunk's raw input
    void* out;          // its raw output
    const float2* work; // the transforms' buffer: callbacks find their transform from
                        // the plan's data pointer's distance to it
    const float* window; // n taps or null
    const int* lookup;   // the carrier of each bin (-1: unused), both directions
    // Per (channel, symbol) row of the chunk, in samples: forward, where the row's body
    // starts in `in` and its carriers in `out`; inverse, where its carriers start in
    // `in` and its prefix in `out` (cp_rows: the prefix's length).
    const std::size_t* in_rows;
    const std::size_t* out_rows;
    const int* cp_rows;
    unsigned* zeroed; // (channel, symbol) pairs zeroed for non-finite input
    fast_divmod by_n; // by the transform size
    float scale;
};

} // namespace cuda
} // namespace gpumimo
} // namespace gr

#endif
