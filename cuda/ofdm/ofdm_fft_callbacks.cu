/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cuFFT load and store callbacks that fuse the OFDM FFT's conversions into cuFFT's own
 * kernels: the forward load decodes the input format, skips the prefix and windows; the
 * forward store selects the used carriers, scales and encodes; the inverse load places
 * the carriers into their bins; the inverse store scales, windows, encodes and writes
 * each sample to the body and, for the prefix's tail, once more. Compiled to LTO-IR
 * only (cuda/CMakeLists.txt) and linked into cuFFT's kernels at plan time
 * (cufftXtSetJITCallback), so the data crosses device memory once, as plain cuFFT's does,
 * instead of three times with conversion kernels around the transform.
 *
 * A symbol with a non-finite input sample comes out zero and is counted, as with the
 * kernels: the load turns such a sample into NaN, which every output of its transform
 * then holds (each output sums every input; NaN survives every sum and product), and
 * the store zeroes non-finite outputs, counting each symbol once at its first carrier
 * (forward) or first sample (inverse).
 *
 * Each comes in one variant per sample format (gpumimo_ofdm_load_forward_sc16, ...):
 * the plan names the one its configuration needs, so no format is decided per sample.
 * Where a symbol lies is looked up per (channel, symbol) row in tables the chunk's
 * preparation kernel fills (ofdm_fft.cu), not worked out per sample: cuFFT's kernels
 * run the callbacks for every element with few threads to hide their latency, and the
 * first version, which divided and read the prefix pattern per element, took 4.8 times
 * plain cuFFT's time against 1.5 for identity callbacks.
 * cuFFT finds the callbacks by these names (ofdm_fft.cu); they must keep exactly the
 * signatures of cufftJITCallbackLoadC and cufftJITCallbackStoreC. The file is compiled
 * twice, loads (GPUMIMO_FFT_LOADS) and stores (GPUMIMO_FFT_STORES) apart: cuFFT links a
 * plan's load and store modules together, and one fatbin given for both defines every
 * callback twice (cufftMakePlan then fails with CUFFT_INTERNAL_ERROR).
 */
#include "ofdm/ofdm_fft_device.cuh"

#include <cufftXt.h>

namespace gc = gr::gpumimo::cuda;
using gr::gpumimo::core::sample_format;

namespace {

struct place {
    unsigned row, x; // (channel, symbol) row of the chunk, element of its transform
};

__device__ __forceinline__ place where(const gc::fft_callback_info& f,
                                       const void* data,
                                       unsigned long long offset)
{
    // The plans run in place on f.work at the start of each power-of-two part of the
    // chunk's batch: the data pointer tells which part.
    const unsigned e =
        unsigned(static_cast<const float2*>(data) - f.work) + unsigned(offset);
    place p;
    p.row = f.by_n.divmod(e, p.x);
    return p;
}

#ifdef GPUMIMO_FFT_LOADS
__device__ __forceinline__ cufftComplex poisoned_if_not_finite(float2 v)
{
    if (!gc::usable2(v))
        return make_float2(__int_as_float(0x7fc00000), __int_as_float(0x7fc00000));
    return v;
}

template <sample_format F>
__device__ __forceinline__ cufftComplex load_forward(void* data, unsigned long long offset, void* info)
{
    const gc::fft_callback_info& f = *static_cast<const gc::fft_callback_info*>(info);
    const place p = where(f, data, offset);
    float2 v = gc::decode(int(F), f.in, f.in_rows[p.row] + p.x);
    if (!gc::usable2(v))
        return poisoned_if_not_finite(v);
    if (f.window) {
        const float w = f.window[p.x];
        v = make_float2(v.x * w, v.y * w);
    }
    return v;
}

template <sample_format F>
__device__ __forceinline__ cufftComplex load_inverse(void* data, unsigned long long offset, void* info)
{
    const gc::fft_callback_info& f = *static_cast<const gc::fft_callback_info*>(info);
    const place p = where(f, data, offset);
    const int j = f.lookup[p.x];
    if (j < 0)
        return make_float2(0.f, 0.f);
    return poisoned_if_not_finite(gc::decode(int(F), f.in, f.in_rows[p.row] + unsigned(j)));
}
#endif

#ifdef GPUMIMO_FFT_STORES
template <sample_format F>
__device__ __forceinline__ void
store_forward(void* data, unsigned long long offset, cufftComplex v, void* info)
{
    const gc::fft_callback_info& f = *static_cast<const gc::fft_callback_info*>(info);
    const place p = where(f, data, offset);
    const int j = f.lookup[p.x];
    if (j < 0)
        return; // a bin no carrier uses
    if (!gc::usable2(v)) {
        v = make_float2(0.f, 0.f);
        if (j == 0)
            atomicAdd(f.zeroed, 1u);
    } else {
        v = make_float2(v.x * f.scale, v.y * f.scale);
    }
    gc::encode(int(F), v, f.out, f.out_rows[p.row] + unsigned(j));
}

template <sample_format F>
__device__ __forceinline__ void
store_inverse(void* data, unsigned long long offset, cufftComplex v, void* info)
{
    const gc::fft_callback_info& f = *static_cast<const gc::fft_callback_info*>(info);
    const place p = where(f, data, offset);
    const int cp = f.cp_rows[p.row], k = int(p.x), n = int(f.by_n.divisor);
    if (!gc::usable2(v)) {
        v = make_float2(0.f, 0.f);
        if (k == 0)
            atomicAdd(f.zeroed, 1u);
    } else {
        const float w = (f.window ? f.window[k] : 1.f) * f.scale;
        v = make_float2(v.x * w, v.y * w);
    }
    const std::size_t base = f.out_rows[p.row]; // the symbol's first prefix sample
    gc::encode(int(F), v, f.out, base + cp + k);
    if (k >= n - cp) // the prefix repeats the body's tail
        gc::encode(int(F), v, f.out, base + (k - (n - cp)));
}
#endif

} // namespace

// The named variants cuFFT links (global namespace, these exact signatures).
#define GPUMIMO_FFT_LOAD(name, impl, fmt)                                               \
    __device__ cufftComplex name(void* data, unsigned long long offset, void* info, void*) \
    {                                                                                     \
        return impl<sample_format::fmt>(data, offset, info);                              \
    }
#define GPUMIMO_FFT_STORE(name, impl, fmt)                                              \
    __device__ void name(                                                               \
        void* data, unsigned long long offset, cufftComplex v, void* info, void*)        \
    {                                                                                   \
        impl<sample_format::fmt>(data, offset, v, info);                                \
    }

#ifdef GPUMIMO_FFT_LOADS
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_forward_fc32, load_forward, fc32)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_forward_fc16, load_forward, fc16)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_forward_sc16, load_forward, sc16)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_forward_sc8, load_forward, sc8)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_inverse_fc32, load_inverse, fc32)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_inverse_fc16, load_inverse, fc16)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_inverse_sc16, load_inverse, sc16)
GPUMIMO_FFT_LOAD(gpumimo_ofdm_load_inverse_sc8, load_inverse, sc8)
#endif
#ifdef GPUMIMO_FFT_STORES
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_forward_fc32, store_forward, fc32)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_forward_fc16, store_forward, fc16)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_forward_sc16, store_forward, sc16)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_forward_sc8, store_forward, sc8)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_inverse_fc32, store_inverse, fc32)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_inverse_fc16, store_inverse, fc16)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_inverse_sc16, store_inverse, sc16)
GPUMIMO_FFT_STORE(gpumimo_ofdm_store_inverse_sc8, store_inverse, sc8)
#endif
