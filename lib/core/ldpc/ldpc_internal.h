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

#include <cmath>
#include <cstddef>
#include <limits>

namespace gr {
namespace gpumimo {
namespace core {
namespace ldpc_detail {

/*! A channel LLR of the core's convention (ln P(1) / P(0)) in the decoder's; a
 *  non-finite one is an erasure (0). */
inline float channel_llr(float core_llr)
{
    return std::isfinite(core_llr) ? -core_llr : 0.0f;
}

/*!
 * Min-sum: the message to bit j is the product of the other bits' signs times the
 * smallest of the other bits' magnitudes, less `offset` (not below 0), times
 * `normalisation`. t: the bits' incoming values (app - old message); msg: out.
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
    const float m1 = std::fmax(min1 - offset, 0.0f) * normalisation;
    const float m2 = std::fmax(min2 - offset, 0.0f) * normalisation;
    for (std::size_t j = 0; j < deg; j++) {
        const float mag = j == at ? m2 : m1;
        msg[j] = (negative != (t[j] < 0.0f)) ? -mag : mag;
    }
}

/*! phi(x) = -ln tanh(x / 2) = ln(1 + 2 / (e^x - 1)), its own inverse, for x clamped to
 *  [1e-6, 40] (phi(1e-6) = 14.5, phi(40) = 8.5e-18: a message's magnitude stays
 *  finite and a sure bit's contribution vanishes). */
inline float phi(float x)
{
    x = std::fmin(std::fmax(x, 1e-6f), 40.0f);
    return std::log1p(2.0f / std::expm1(x));
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
