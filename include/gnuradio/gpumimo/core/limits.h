/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency. Plain constants
 * and inline functions, usable from CUDA device code as well (but is_usable, on
 * std::complex, host only).
 */
#ifndef INCLUDED_GPUMIMO_CORE_LIMITS_H
#define INCLUDED_GPUMIMO_CORE_LIMITS_H

#include <gnuradio/gpumimo/core/host_device.h>

#include <complex>
#include <cstddef>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * The input range of every engine and block (docs/reliability.md). A complex sample is
 * usable when both parts are finite and at most this large in magnitude: squares and
 * sums of squares over a frame then stay finite in single precision, and an FFT of any
 * supported size cannot overflow. Samples outside it are treated as NaN or Inf are: the
 * vector, symbol or frame holding one is refused or erased and counted.
 */
constexpr float max_sample_magnitude = 1e15f;

/*!
 * Every LLR the detectors write is finite and at most this large in magnitude: a
 * degenerate noise variance (1e-38, say) saturates here instead of overflowing to Inf.
 * No meaningful LLR comes near it.
 */
constexpr float llr_limit = 1e30f;

/*!
 * A received vector y may carry at most this many times the power its model allows:
 * ||y||^2 <= max_vector_power_ratio * (||H||_F^2 * E_max + nr * N0), E_max the
 * constellation's largest symbol energy (80 dB above any y = H s + n). Beyond it y is
 * not explained by H and N0, and the metrics |y - H s|^2 lose the differences between
 * hypotheses to rounding (all LLRs 0 in double, garbage in single precision): such a
 * vector is refused as bad input, as a non-finite one is.
 */
constexpr double max_vector_power_ratio = 1e8;

/*!
 * MMSE's gain mu_k = (A H^H H)_kk (A = (H^H H + N0 I)^-1) is 1 - N0 A_kk, which cancels
 * to 0 or below when N0 dwarfs the signal (an SINR of -150 dB, as a frame with a far
 * louder preamble gives). Below this value the detectors sum (A H^H H)_kk itself, which
 * stays positive; above it the difference costs nothing in accuracy.
 */
constexpr double mmse_gain_exact_below = 1e-2;

/*! |x| <= max_sample_magnitude; false for NaN and +-Inf. */
GPUMIMO_HOST_DEVICE
inline bool usable_part(float x)
{
    return x <= max_sample_magnitude && x >= -max_sample_magnitude;
}

/*! A complex sample with both parts usable: the test every input check of the module
 *  makes on a sample (the GPU's twin: usable2 in cuda/common/gpu_math.cuh). */
inline bool is_usable(const std::complex<float>& v)
{
    return usable_part(v.real()) && usable_part(v.imag());
}

/*! Every sample of x[0..n) usable (is_usable), in one branch-free pass the compiler
 *  vectorises: the check of whole frames before they are used (about 5x faster than
 *  is_usable sample by sample, which stops at the first bad one). */
inline bool all_usable(const std::complex<float>* x, std::size_t n)
{
    const float* parts = reinterpret_cast<const float*>(x);
    int bad = 0; // an int, not a bool: a bool accumulator defeats the vectoriser
    for (std::size_t i = 0; i < 2 * n; i++)
        bad |= int(!(parts[i] <= max_sample_magnitude)) | int(!(parts[i] >= -max_sample_magnitude));
    return !bad;
}

/*! The LLR value written for a computed one (float or double, compared in its own
 *  precision): NaN (no information) becomes 0, anything beyond +-llr_limit (Inf
 *  included) becomes +-llr_limit. Every detector's store goes through it (the CPU's
 *  bit_minima, the GPU kernels' last line). */
template <typename real>
GPUMIMO_HOST_DEVICE
inline float saturate_llr(real llr)
{
    const real limit = real(llr_limit);
    if (llr != llr)
        return 0.0f;
    return float(llr > limit ? limit : (llr < -limit ? -limit : llr));
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
