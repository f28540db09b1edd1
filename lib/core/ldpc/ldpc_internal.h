/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The check-node rules of the CPU LDPC decoders, in the decoding literature's sign
 * (ln P(0) / P(1)). cuda/ldpc/gpu_ldpc_decoder.cu repeats min_sum_messages with the same float
 * operations in the same order.
 */
#ifndef INCLUDED_GPUMIMO_CORE_LDPC_INTERNAL_H
#define INCLUDED_GPUMIMO_CORE_LDPC_INTERNAL_H

#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {
namespace ldpc_detail {

/*! The layers a layered decoder visits (ldpc_code::layers), from the checks and bits of
 *  `code`: ldpc_layers.cc. */
std::vector<std::vector<int>> decoder_layers(const ldpc_code& code);

/*! x clamped to +-ldpc_llr_saturation (an infinity too; NaN stays NaN). */
inline float saturate_llr(float x)
{
    return std::fmin(std::fmax(x, -ldpc_llr_saturation), ldpc_llr_saturation);
}

/*! A channel LLR of the core's convention (ln P(1) / P(0)) in the decoder's,
 *  saturated; a non-finite one is an erasure (0). */
inline float channel_llr(float core_llr)
{
    return std::isfinite(core_llr) ? saturate_llr(-core_llr) : 0.0f;
}
/*! An int8 LLR q / scale (scale finite and > 0) in the decoder's sign, saturated: a
 *  scale so small that q / scale overflows gives the saturation, not an erasure. */
inline float channel_llr(std::int8_t q, float scale)
{
    return saturate_llr(-(float(q) / scale));
}

/*! Whether a decoder's value decides its bit: not 0 (a bit whose LLR is 0 defaulted to
 *  0) and not NaN (which compares as neither sign). */
inline bool decided(float app)
{
    return app < 0.0f || app > 0.0f;
}

/*!
 * Min-sum: the message to bit j is the product of the other bits' signs times the
 * smallest of the other bits' magnitudes, less `offset` (not below 0), times
 * `normalisation`, at most ldpc_llr_saturation. t: the bits' incoming values (app - old
 * message); msg: out.
 */
inline void min_sum_messages(const float* t, std::size_t deg, float normalisation, float offset, float* msg)
{
    float min1 = std::numeric_limits<float>::infinity(), min2 = min1;
    std::size_t at = 0;
    bool negative = false; // the product of all signs
    for (std::size_t j = 0; j < deg; j++) {
        const float a = std::fabs(t[j]);
        negative ^= t[j] < 0.0f;
        if (a < min1) {
            min2 = min1;
            min1 = a;
            at = j;
        } else if (a < min2) {
            min2 = a;
        }
    }
    const float m1 = std::fmin(std::fmax(min1 - offset, 0.0f) * normalisation, ldpc_llr_saturation);
    const float m2 = std::fmin(std::fmax(min2 - offset, 0.0f) * normalisation, ldpc_llr_saturation);
    for (std::size_t j = 0; j < deg; j++) {
        const float mag = j == at ? m2 : m1;
        msg[j] = (negative != (t[j] < 0.0f)) ? -mag : mag;
    }
}

/*!
 * x rounded to IEEE binary16 (round to nearest, ties to even; subnormals kept; beyond
 * the largest half, infinity), returned as the float of that value. A half operation
 * (+, -, *) on two halves equals the float operation followed by this rounding: float
 * has 24 bits, at least 2 x 11 + 2, where rounding twice gives the correctly rounded
 * result (Figueroa's theorem). This is how min_sum_half's reference repeats the GPU's
 * half arithmetic.
 */
inline float round_to_half(float x)
{
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    const std::uint32_t sign = u & 0x80000000u, a = u ^ sign;
    if (a >= 0x477ff000u) // |x| >= 65520 = 65504 + half its spacing: rounds up (ties to even)
        return a > 0x7f800000u ? x : std::copysign(std::numeric_limits<float>::infinity(), x);
    if (a < 0x38800000u) { // below 2^-14, the subnormal halves: multiples of 2^-24
        // Adding 0.5 (whose float spacing is 2^-24) rounds to that spacing, to even.
        volatile float shifted = std::fabs(x) + 0.5f;
        return std::copysign(shifted - 0.5f, x);
    }
    // A normal half keeps 10 of float's 23 fraction bits: round the other 13 to even
    // (a carry into the exponent is the right result).
    const std::uint32_t r = (a + 0x0fffu + ((a >> 13) & 1u)) & ~0x1fffu;
    const std::uint32_t out = r | sign;
    float y;
    std::memcpy(&y, &out, sizeof y);
    return y;
}

/*!
 * min_sum_half scales each codeword by 2^-k so that its largest channel magnitude lies
 * in [128, 256) (k = 0 when every value is 0): min-sum is equivariant under a power of
 * two (with the offset scaled alike), so a codeword of any scale keeps its relative
 * values inside the half range, and the saturation (64 x that largest value) is met
 * only by values that have grown during decoding.
 */
inline int half_scale_exponent(float largest_magnitude)
{
    if (!(largest_magnitude > 0.0f))
        return 0;
    int e = 0;
    std::frexp(largest_magnitude, &e); // largest = f 2^e, f in [0.5, 1)
    return e - 8;
}

/*! A channel LLR (the decoder's sign) as min_sum_half starts from it: times 2^-k,
 *  rounded to half, a zero made +0 (a -0 carries the sign bit the GPU reads as a
 *  negative value; no later operation makes a -0). */
inline float half_channel_llr(float llr, int k)
{
    const float c = round_to_half(std::ldexp(llr, -k));
    return c == 0.0f ? 0.0f : c;
}

/*! An a-posteriori LLR of min_sum_half back at the codeword's scale, kept within
 *  +-llr_limit (a saturated codeword's values come back up to 256 x its largest). */
inline float half_output_llr(float app, int k)
{
    return std::fmin(std::fmax(std::ldexp(app, k), -llr_limit), llr_limit);
}

/*!
 * min_sum_messages in half precision, as cuda/ldpc/min_sum_half_kernel.cuh computes it
 * for each of its two codewords: t (halves, already saturated) in, msg out. The running
 * pair of minima is kept without the first minimum's position: the message to bit j
 * takes the second minimum where |t_j| equals the first (on a tie both are equal, so
 * this is min_sum_messages's rule), which the GPU evaluates for two codewords at once.
 */
inline void min_sum_messages_half(const float* t, std::size_t deg, float normalisation, float offset, float* msg)
{
    float min1 = ldpc_half_saturation, min2 = ldpc_half_saturation;
    bool negative = false;
    for (std::size_t j = 0; j < deg; j++) {
        const float a = std::fabs(t[j]);
        negative ^= t[j] < 0.0f;
        min2 = std::fmin(std::fmax(min1, a), min2);
        min1 = std::fmin(min1, a);
    }
    const float m1 = round_to_half(std::fmax(round_to_half(min1 - offset), 0.0f) * normalisation);
    const float m2 = round_to_half(std::fmax(round_to_half(min2 - offset), 0.0f) * normalisation);
    for (std::size_t j = 0; j < deg; j++) {
        const float mag = std::fabs(t[j]) == min1 ? m2 : m1;
        msg[j] = (negative != (t[j] < 0.0f)) ? -mag : mag;
    }
}

/*! phi(x) = -ln tanh(x / 2) = ln(1 + 2 / (e^x - 1)), its own inverse, for x from
 *  phi_floor (phi(phi_floor) = 40.06: a message's magnitude stays finite), and 0 from
 *  phi_cap = 40 on (phi(40) would be 8.5e-18). So a sure bit's contribution vanishes, and
 *  a bit whose t is 0 (no information) makes its check's messages to the others exactly
 *  0, as the tanh rule's limit: not the 8.5e-18 that would decide a codeword of zeros. */
constexpr float phi_floor = 8e-18f, phi_cap = 40.0f;
inline float phi(float x)
{
    return x >= phi_cap ? 0.0f : std::log1p(2.0f / std::expm1(std::fmax(x, phi_floor)));
}

/*!
 * Sum-product (the tanh rule): the message to bit j is the product of the other bits'
 * signs times phi(sum over the other bits of phi(|t|)), the sums excluding j taken from
 * prefix and suffix sums (no subtraction, so no cancellation). work: 2 deg + 1 floats.
 */
inline void sum_product_messages(const float* t, std::size_t deg, float* work, float* msg)
{
    float* f = work;             // phi(|t_j|)
    float* suffix = work + deg;  // suffix[j] = f[j] + ... + f[deg - 1], suffix[deg] = 0
    bool negative = false;
    for (std::size_t j = 0; j < deg; j++) {
        f[j] = phi(std::fabs(t[j]));
        negative ^= t[j] < 0.0f;
    }
    suffix[deg] = 0.0f;
    for (std::size_t j = deg; j-- > 0;)
        suffix[j] = suffix[j + 1] + f[j];
    float prefix = 0.0f;
    for (std::size_t j = 0; j < deg; j++) {
        const float mag = phi(prefix + suffix[j + 1]);
        msg[j] = (negative != (t[j] < 0.0f)) ? -mag : mag;
        prefix += f[j];
    }
}

} // namespace ldpc_detail
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
