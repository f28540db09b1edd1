/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The min_sum_half decoding kernel: layered min-sum in IEEE half precision, two
 * codewords per thread block, each value a __half2 (codeword 2b in the low half,
 * 2b + 1 in the high one), so every instruction works on both codewords. Same steps as
 * gpu_ldpc_decoder.cu's float kernel (a thread per check of a layer, a barrier per
 * layer) with these differences, each for instructions per edge:
 *  - a check's incoming values t and bit offsets stay in registers between the
 *    minimum pass and the update pass (the degree is unrolled up to D);
 *  - the minima are kept without the first one's position (the message to bit j takes
 *    the second minimum where |t_j| equals the first), so one comparison serves both
 *    codewords, and signs are XORed as bits;
 *  - t is saturated with one min.xorsign.abs (saturate());
 *  - the code's structure is laid out slot by slot, [layer][edge j of a check][check in
 *    the layer], 16-bit byte offsets a warp reads as consecutive halfwords, small
 *    enough to stay in L1; the messages check by check at an odd stride, each edge's
 *    address a constant offset (code_view).
 * Each codeword is first scaled by its own power of two (its largest magnitude into
 * [128, 256)) and scaled back at the end, as ldpc_internal.h's half_scale_exponent says.
 * lib/core/ldpc/cpu_ldpc_decoder.cc (decode_one_half, with ldpc_internal.h's
 * min_sum_messages_half and round_to_half) is the CPU reference, bit for bit. A
 * codeword whose iterations end (early termination or the last one) writes its outputs
 * at once; its half of the block then runs on unobserved, so that the other codeword is
 * not held to its iteration count.
 */
#ifndef INCLUDED_GPUMIMO_CUDA_LDPC_MIN_SUM_HALF_KERNEL_CUH
#define INCLUDED_GPUMIMO_CUDA_LDPC_MIN_SUM_HALF_KERNEL_CUH

#include "ldpc/channel_llr.cuh"

#include <gnuradio/gpumimo/core/limits.h>

#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpumimo {
namespace core {
namespace half_ldpc {

// The code's structure, small enough to stay in the L1 cache beside the shared memory
// (for n = 2304: 15 KB of bits and 4.5 KB of per-check words): layer l's checks are
// positions [layer_offset[l], layer_offset[l + 1]). The bits, slot by slot: edge j of the layer's
// i-th check is slot slot_base[l] + j * (the layer's width) + i, which holds the byte
// offset of the bit's __half2 in shared memory, 16 bits (a warp's 32 checks read
// consecutive halfwords). The messages, in shared memory, check by check: the check at
// position p, of degree check_info[p] & 0xff, has its messages at (check_info[p] >> 8)
// + j, a check of degree d taking d | 1 slots (an odd stride: the 32 checks of a warp,
// of one degree, fall in 32 different banks), so their addresses are one base and
// constant offsets.
struct code_view {
    int n;
    int layers;
    const int* __restrict__ layer_offset;
    const int* __restrict__ slot_base;
    const unsigned* __restrict__ check_info; // per position: first message slot << 8 | degree
    const std::uint16_t* __restrict__ slot_bit;
    int message_slots;
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
    return fminf(fmaxf(ldexpf(__half2float(app), k), -llr_limit), llr_limit);
}

struct check_constants {
    __half2 limit, neg_limit, normalisation, offset;
};

// x saturated to [-limit, limit] (limit > 0): from sm_86 one instruction, the smaller
// magnitude with x's sign (the sign of min.xorsign.abs is x's XOR limit's), the same
// half2 bits as the min/max pair on every finite x, -0 included.
__device__ __forceinline__ __half2 saturate(__half2 x, const check_constants& c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 860
    unsigned r;
    asm("min.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(r) : "r"(bits_of(x)), "r"(bits_of(c.limit)));
    return half2_of(r);
#else
    return __hmin2(__hmax2(x, c.neg_limit), c.limit);
#endif
}

// The bit whose byte offset in app is `offset` (the structure holds byte offsets, so an
// address is one add).
__device__ __forceinline__ __half2& at(__half2* app, int offset)
{
    return *reinterpret_cast<__half2*>(reinterpret_cast<char*>(app) + offset);
}

// A thread's check in a layer: its degree, its first bit slot and the layer's width (edge
// j's bit is j x width slots further), its first message slot.
struct check_slots {
    int deg = 0;
    int first_slot = 0;
    int width = 0;
    int first_message = 0;
};

__device__ __forceinline__ check_slots locate_check(const code_view& code, int l, int i)
{
    check_slots s;
    const int first = code.layer_offset[l];
    s.width = code.layer_offset[l + 1] - first;
    if (i < s.width) {
        const unsigned info = code.check_info[first + i];
        s.deg = int(info & 0xffu);
        s.first_slot = code.slot_base[l] + i;
        s.first_message = int(info >> 8);
    }
    return s;
}

// The byte offsets of the check's bits in app, every load issued before the first is
// used: exactly DEG of them (no guard, so no predicate per edge) or, Guarded, the first
// s.deg of at most DEG.
template <int DEG, bool Guarded>
__device__ __forceinline__ void load_bits(const code_view& code, const check_slots& s, int (&bit_offset)[DEG])
{
    // 32-bit slot numbers, each one add from the last, and one wide multiply-add each for
    // the address (a 64-bit pointer stepped by width took three instructions an edge).
    unsigned slot = unsigned(s.first_slot);
#pragma unroll
    for (int j = 0; j < DEG; j++, slot += unsigned(s.width))
        if (!Guarded || j < s.deg)
            bit_offset[j] = code.slot_bit[slot];
}

// One check (of degree exactly DEG when Guarded is false, at most DEG otherwise):
// t = app - R saturated, the two minima and the sign product, then the new messages R'
// and app = t + R'.
template <int DEG, bool Guarded>
__device__ __forceinline__ void update_check(const code_view& code, const check_slots& s, __half2* app,
                                             __half2* msg, const check_constants& c)
{
    int bit_offset[DEG];
    load_bits<DEG, Guarded>(code, s, bit_offset);
    __half2 t[DEG];
    __half2 min1 = c.limit, min2 = c.limit;
    unsigned sign = 0;
#pragma unroll
    for (int j = 0; j < DEG; j++) {
        if (!Guarded || j < s.deg) {
            t[j] = saturate(__hsub2_rn(at(app, bit_offset[j]), msg[s.first_message + j]), c);
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
            msg[s.first_message + j] = r;
            at(app, bit_offset[j]) = __hadd2_rn(t[j], r);
        }
    }
}

// Degrees up to this are unrolled exactly (no per-edge guard), the degree matched at
// run time from D down (the common degrees are the high ones).
constexpr int exact_degrees = 16;
template <int K>
__device__ __forceinline__ void update_exact(const code_view& code, const check_slots& s, __half2* app,
                                             __half2* msg, const check_constants& c)
{
    if (s.deg == K)
        update_check<K, false>(code, s, app, msg, c);
    else if constexpr (K > 1)
        update_exact<K - 1>(code, s, app, msg, c);
}

template <int D>
__device__ __forceinline__ void update(const code_view& code, const check_slots& s, __half2* app,
                                       __half2* msg, const check_constants& c)
{
    if constexpr (D <= exact_degrees)
        update_exact<D>(code, s, app, msg, c);
    else
        update_check<D, true>(code, s, app, msg, c);
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
    __half2* msg = shared2 + n; // message_slots
    __shared__ unsigned largest_bits[2]; // each codeword's largest |value|, as float bits
    const std::size_t f0 = 2 * std::size_t(blockIdx.x);
    const bool has_second = f0 + 1 < frames;
    auto value = [&](int cw, int v) { // codeword cw (0 or 1) of the block's pair
        if (cw == 1 && !has_second)
            return 0.0f;
        if constexpr (sizeof(In) == 1)
            return ldpc_device::channel_llr(__ldcs(llr + (f0 + std::size_t(cw)) * n + v), p.int8_scale);
        else // read once more for the conversion, then not again: streamed past the L1
            return ldpc_device::channel_llr(__ldcs(llr + (f0 + std::size_t(cw)) * n + v));
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
    for (int s = threadIdx.x; s < code.message_slots; s += blockDim.x)
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
                update<D>(code, locate_check(code, l, i), app, msg, rule);
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
                const check_slots check = locate_check(code, l, i);
                int bit_offset[D];
                load_bits<D, true>(code, check, bit_offset);
                unsigned parity = 0;
#pragma unroll
                for (int j = 0; j < D; j++)
                    if (j < check.deg)
                        parity ^= bits_of(at(app, bit_offset[j]));
                parity_failed |= parity & sign_bits;
            }
        }
        bool ok[2] = { !__syncthreads_or(parity_failed & 0x8000u),
                       !__syncthreads_or(parity_failed & 0x80000000u) };
        if ((ok[0] && !(done & 1u)) || (ok[1] && !(done & 2u))) {
            // Decoded only with no bit undecided (a value of +0), as the CPU reference;
            // looked for once a codeword's checks hold (ok and done are the block's).
            unsigned undecided = 0;
            for (int v = threadIdx.x; v < n; v += blockDim.x) {
                const unsigned b = bits_of(app[v]);
                undecided |= ((b & 0xffffu) == 0 ? 0x8000u : 0u) | ((b >> 16) == 0 ? 0x80000000u : 0u);
            }
            const bool undecided_0 = __syncthreads_or(undecided & 0x8000u);
            const bool undecided_1 = __syncthreads_or(undecided & 0x80000000u);
            ok[0] = ok[0] && !undecided_0;
            ok[1] = ok[1] && !undecided_1;
        }
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
