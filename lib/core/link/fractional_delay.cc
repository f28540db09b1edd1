/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Kaiser-windowed sinc that delays a band-limited signal by a fraction of a sample
 * (core/link/fractional_delay.h).
 */
#include <gnuradio/gpumimo/core/link/fractional_delay.h>

#include <cmath>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// The modified Bessel function I0 by its power series: for the arguments here (<= 8)
// the terms fall below 1e-17 of the sum within 30 terms.
double bessel_i0(double x)
{
    double sum = 1, term = 1;
    const double q = x * x / 4;
    for (int k = 1; k < 60 && term > 1e-17 * sum; k++) {
        term *= q / (double(k) * k);
        sum += term;
    }
    return sum;
}

constexpr double kaiser_beta = 8.0;

} // namespace

double fractional_delay_kernel(double x)
{
    const double W = fractional_delay_half_width;
    if (!(std::abs(x) < W))
        return 0;
    const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    const double r = x / W;
    static const double norm = 1.0 / bessel_i0(kaiser_beta);
    return sinc * bessel_i0(kaiser_beta * std::sqrt(1 - r * r)) * norm;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
