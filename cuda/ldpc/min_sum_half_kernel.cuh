/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The min_sum_half decoding kernel: layered min-sum in IEEE half precision, two
 * codewords per thread block, each value a __half2 (codeword 2b in the low half,
 * 2b + 1 in the high one), so every instruction works on both codewords. Same steps as
 * gpu_ldpc_decoder.cu's float kernel (a thread per check of a layer, a barrier per
 * layer) with three differences, each for instructions per edge:
 *  - a check's incoming values t and bit indices stay in registers between the
 *    minimum pass and the update pass (the degree is unrolled up to D);
 *  - the minima are kept without the first one's position (the message to bit j takes
 *    the second minimum where |t_j| equals the first), so one comparison serves both
 *    codewords, and signs are XORed as bits;
 *  - messages and the code's structure are laid out slot by slot, [layer][edge j of a
 *    check][check in the layer], so a warp's 32 checks read consecutive words.
 * Each codeword is first scaled by its own power of two (its largest magnitude into
 * [128, 256)) and scaled back at the end, as ldpc_internal.h's half_scale_exponent says.
 * lib/core/ldpc/cpu_ldpc_decoder.cc (decode_one_half, with ldpc_internal.h's
 * min_sum_messages_half and round_to_half) is the CPU reference, bit for bit. A codeword whose iterations end (early termination or the
 * last one) writes its outputs at once; its half of the block then runs on unobserved,
 * so that the other codeword is not held to its iteration count.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_LDPC_MIN_SUM_HALF_KERNEL_CUH
#define INCLUDED_GPUMIMO_CUDA_LDPC_MIN_SUM_HALF_KERNEL_CUH

#include "ldpc/channel_llr.cuh"

#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpumimo {
namespace core {
namespace half_ldpc {

// The code's structure in slots: layer l's checks are positions
// [layer_offset[l], layer_offset[l + 1]); edge j of the layer's i-th check is slot
// slot_base[l] + j * (the layer's width) + i, which holds its bit (slot_bit) and, in
// shared memory, its message.
struct code_view {
    int n;
    int layers;
    const int* __restrict__ layer_offset;
    const int* __restrict__ slot_base;
    const int* __restrict__ degree; // per position
    const int* __restrict__ slot_bit;
    int slots;
};

struct params {
    int max_iterations;
    bool early_termination;
    float normalisation, offset; // rounded to half in the kernel, as the reference does
    float int8_scale;
    float saturation;
};

constexpr unsigned sign_bits = 0x80008000u;

__device__ __forceinline__ unsigned bits_of(__half2 h)
{
    unsigned u;
    memcpy(&u, &h, sizeof u);
    return u;
}
__device__ __forceinline__ __half2 half2_of(unsigned u)
{
    __half2 h;
    memcpy(&h, &u, sizeof h);
    return h;
}

// ldpc_detail::half_scale_exponent, half_channel_llr and half_output_llr.
__device__ __forceinline__ int scale_exponent(float largest)
{
    if (!(largest > 0.0f))
        return 0;
    int e = 0;
    frexpf(largest, &e);
    return e - 8;
}
__device__ __forceinline__ __half channel_half(float x, int k)
{
    const __half h = __float2half_rn(ldexpf(x, -k));
    return __half2float(h) == 0.0f ? __float2half_rn(0.0f) : h;
}
__device__ __forceinline__ float output_llr(__half app, int k)
{
    return fminf(fmaxf(ldexpf(__half2float(app), k), -FLT_MAX), FLT_MAX);
}

struct check_constants {
    __half2 limit, neg_limit, normalisation, offset;
};

// A thread's check in a layer: its degree, its first slot, the layer's width (edge j is
// j x width slots further) and its bits, all loads issued at once.
template <int D>
struct check_slots {
    int deg = 0;
    int first_slot = 0;
    int width = 0;
    int bit[D];
};

template <int D>
__device__ __forceinline__ void load_check(const code_view& code, int l, int i, check_slots<D>& s)
{
    const int first = code.layer_offset[l];
    s.width = code.layer_offset[l + 1] - first;
    s.deg = 0;
    if (i >= s.width)
        return;
    s.deg = code.degree[first + i];
    s.first_slot = code.slot_base[l] + i;
#pragma unroll
    for (int j = 0; j < D; j++)
        if (j < s.deg)
            s.bit[j] = code.slot_bit[s.first_slot + j * s.width];
}

// One check (of degree exactly DEG when Guarded is false, at most DEG otherwise):
// t = app - R saturated, the two minima and the sign product, then the new messages R'
// and app = t + R'.
template <int DEG, bool Guarded, int D>
__device__ __forceinline__ void update_check(const check_slots<D>& s, __half2* app, __half2* msg,
                                             const check_constants& c)
{
    __half2 t[DEG];
    __half2 min1 = c.limit, min2 = c.limit;
    unsigned sign = 0;
#pragma unroll
    for (int j = 0; j < DEG; j++) {
        if (!Guarded || j < s.deg) {
            t[j] = __hmin2(__hmax2(__hsub2_rn(app[s.bit[j]], msg[s.first_slot + j * s.width]), c.neg_limit), c.limit);
            const __half2 a = __habs2(t[j]);
            sign ^= bits_of(t[j]);
            min2 = __hmin2(__hmax2(min1, a), min2);
            min1 = __hmin2(min1, a);
        }
    }
    // The two magnitudes with the product of all signs: an edge's message is one of
    // them with its own sign taken back out (x ^ (t & sign bit)).
    const __half2 zero = __float2half2_rn(0.0f);
    sign &= sign_bits;
    const unsigned m1 = bits_of(__hmul2_rn(__hmax2(__hsub2_rn(min1, c.offset), zero), c.normalisation)) | sign;
    const unsigned m2 = bits_of(__hmul2_rn(__hmax2(__hsub2_rn(min2, c.offset), zero), c.normalisation)) | sign;
#pragma unroll
    for (int j = 0; j < DEG; j++) {
        if (!Guarded || j < s.deg) {
            const unsigned first_min = __heq2_mask(__habs2(t[j]), min1);
            const unsigned signed_mag = (first_min & m2) | (~first_min & m1);
            const __half2 r = half2_of(signed_mag ^ (bits_of(t[j]) & sign_bits));
            msg[s.first_slot + j * s.width] = r;
            app[s.bit[j]] = __hadd2_rn(t[j], r);
        }
    }
}

// Degrees up to this are unrolled exactly (no per-edge guard), the degree matched at
// run time from D down (the common degrees are the high ones).
constexpr int exact_degrees = 16;
template <int K, int D>
__device__ __forceinline__ void update_exact(const check_slots<D>& s, __half2* app, __half2* msg,
                                             const check_constants& c)
{
    if (s.deg == K)
        update_check<K, false>(s, app, msg, c);
    else if constexpr (K > 1)
        update_exact<K - 1>(s, app, msg, c);
}

template <int D>
__device__ __forceinline__ void update(const check_slots<D>& s, __half2* app, __half2* msg,
                                       const check_constants& c)
{
    if constexpr (D <= exact_degrees)
        update_exact<D>(s, app, msg, c);
    else
        update_check<D, true>(s, app, msg, c);
}

// At most 64 registers for checks up to degree 8 (the 802.16e codes): 5 blocks of 192
// threads then fit an SM's registers, as many as its shared memory holds.
template <int D, typename In>
__global__ void __maxnreg__(D <= 8 ? 64 : 255) decode_kernel(const In* __restrict__ llr,
                              std::size_t frames,
                              code_view code,
                              params p,
                              float* __restrict__ app_out,
                              std::uint8_t* __restrict__ bits_out,
                              int* __restrict__ iterations_out,
                              std::uint8_t* __restrict__ satisfied_out,
                              unsigned* __restrict__ satisfied_count)
{
    extern __shared__ __half2 shared2[];
    const int n = code.n;
    __half2* app = shared2;     // n
    __half2* msg = shared2 + n; // slots
    __shared__ unsigned largest_bits[2]; // each codeword's largest |value|, as float bits
    const std::size_t f0 = 2 * std::size_t(blockIdx.x);
    const bool has_second = f0 + 1 < frames;
    auto value = [&](int cw, int v) { // codeword cw (0 or 1) of the block's pair
        if (cw == 1 && !has_second)
            return 0.0f;
        if constexpr (sizeof(In) == 1)
            return ldpc_device::channel_llr(llr[(f0 + std::size_t(cw)) * n + v], p.int8_scale);
        else
            return ldpc_device::channel_llr(llr[(f0 + std::size_t(cw)) * n + v]);
    };
    if (threadIdx.x < 2)
        largest_bits[threadIdx.x] = 0;
    __syncthreads();
    float largest[2] = { 0.0f, 0.0f };
    for (int v = threadIdx.x; v < n; v += blockDim.x)
        for (int cw = 0; cw < 2; cw++)
            largest[cw] = fmaxf(largest[cw], fabsf(value(cw, v)));
    for (int cw = 0; cw < 2; cw++) // non-negative floats order as their bits do
        atomicMax(&largest_bits[cw], __float_as_uint(largest[cw]));
    __syncthreads();
    const int k[2] = { scale_exponent(__uint_as_float(largest_bits[0])),
                       scale_exponent(__uint_as_float(largest_bits[1])) };
    for (int v = threadIdx.x; v < n; v += blockDim.x)
        app[v] = __halves2half2(channel_half(value(0, v), k[0]), channel_half(value(1, v), k[1]));
    for (int s = threadIdx.x; s < code.slots; s += blockDim.x)
        msg[s] = __float2half2_rn(0.0f);
    __syncthreads();

    const check_constants rule{ __float2half2_rn(p.saturation), __float2half2_rn(-p.saturation),
                                __float2half2_rn(p.normalisation),
                                __floats2half2_rn(ldexpf(p.offset, -k[0]), ldexpf(p.offset, -k[1])) };
    unsigned done = has_second ? 0u : 2u; // bit c: codeword c's outputs are written
    for (int it = 0; it < p.max_iterations; it++) {
        for (int l = 0; l < code.layers; l++) {
            const int width = code.layer_offset[l + 1] - code.layer_offset[l];
            for (int i = int(threadIdx.x); i < width; i += int(blockDim.x)) {
                check_slots<D> check;
                load_check(code, l, i, check);
                update(check, app, msg, rule);
            }
            __syncthreads();
        }
        const bool last = it + 1 == p.max_iterations;
        if (!p.early_termination && !last)
            continue;
        // The syndrome of each codeword's decisions (a sign bit is a decision: no value
        // is ever -0, ldpc_internal.h).
        unsigned parity_failed = 0;
        for (int l = 0; l < code.layers; l++) {
            const int width = code.layer_offset[l + 1] - code.layer_offset[l];
            for (int i = int(threadIdx.x); i < width; i += int(blockDim.x)) {
                check_slots<D> check; // its bits' loads all issued before the first use
                load_check(code, l, i, check);
                unsigned parity = 0;
#pragma unroll
                for (int j = 0; j < D; j++)
                    if (j < check.deg)
                        parity ^= bits_of(app[check.bit[j]]);
                parity_failed |= parity & sign_bits;
            }
        }
        const bool ok[2] = { !__syncthreads_or(parity_failed & 0x8000u),
                             !__syncthreads_or(parity_failed & 0x80000000u) };
        unsigned finish = 0;
        for (int cw = 0; cw < 2; cw++)
            if (!(done & (1u << cw)) && ((ok[cw] && p.early_termination) || last))
                finish |= 1u << cw;
        if (!finish)
            continue;
        for (int cw = 0; cw < 2; cw++) {
            if (!(finish & (1u << cw)))
                continue;
            const std::size_t frame = f0 + std::size_t(cw);
            for (int v = threadIdx.x; v < n; v += blockDim.x) {
                const __half a = cw ? __high2half(app[v]) : __low2half(app[v]);
                if (app_out)
                    app_out[frame * n + v] = -output_llr(a, k[cw]);
                if (bits_out)
                    bits_out[frame * n + v] = __half2float(a) < 0.0f;
            }
            if (threadIdx.x == 0) {
                if (iterations_out)
                    iterations_out[frame] = it + 1;
                if (satisfied_out)
                    satisfied_out[frame] = ok[cw];
                if (ok[cw])
                    atomicAdd(satisfied_count, 1u);
            }
        }
        done |= finish;
        if (done == 3u)
            break;
        __syncthreads(); // the outputs read app before the next layer writes it
    }
}

} // namespace half_ldpc
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
