/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRACTIONAL_DELAY_H
#define INCLUDED_GPUMIMO_CORE_FRACTIONAL_DELAY_H

namespace gr {
namespace gpumimo {
namespace core {

/*! Half the length of the fractional-delay filter: 2 x 16 taps. */
constexpr int fractional_delay_half_width = 16;

/*!
 * \brief The fractional-delay kernel: w(x) = sinc(x) I0(beta sqrt(1 - (x / W)^2)) /
 * I0(beta) for |x| < W = fractional_delay_half_width, 0 beyond; beta = 8. A delay of d
 * samples (d = i + f, f in [0, 1)) is the filter w(j - f) on taps i + j, j = -15 .. 16:
 * its response is within 1.2e-4 of e^{-2 pi i nu d} for |nu| <= 0.39 cycles a sample
 * (the used band of every numerology here; tests/link/test_channel_models.cc holds it).
 */
double fractional_delay_kernel(double x);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
