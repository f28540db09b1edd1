/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Max-log LLRs of soft symbols one dimension at a time (core::soft_llr_mapper): the
 * blocks' fast path, held to soft_to_llr's exhaustive search by tests.
 */
#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gr {
namespace gpumimo {
namespace core {

soft_llr_mapper::soft_llr_mapper(modulation mod) : d_c(mod)
{
    if (!d_c.square())
        return;
    d_levels = d_c.pam_size();
    d_half = d_c.bits_per_symbol() / 2;
    for (int l = 0; l < d_levels; l++)
        d_amplitude.push_back(d_c.pam_amplitude(l));
    for (int d = 0; d < 2; d++)
        for (int j = 0; j < d_half; j++)
            for (int l = 0; l < d_levels; l++) {
                const int point = d == 0 ? d_c.point_from_levels(l, 0) : d_c.point_from_levels(0, l);
                (d_c.bit(point, 2 * j + d) ? d_one_levels : d_zero_levels).push_back(std::uint8_t(l));
            }
}

std::size_t soft_llr_mapper::map(const std::complex<float>* soft,
                                 std::size_t n,
                                 double noise_variance,
                                 float* llr) const
{
    if (!d_c.square())
        return soft_to_llr(d_c, soft, n, noise_variance, llr);
    constexpr double inf = std::numeric_limits<double>::infinity();
    const int m = d_c.bits_per_symbol();
    std::size_t erased = 0;
    double dist[2][32]; // [dimension][level]: 1024-QAM has 32 levels
    for (std::size_t t = 0; t < n; t++) {
        float* out = llr + t * std::size_t(m);
        const double x[2] = { soft[t].real(), soft[t].imag() };
        if (!std::isfinite(x[0]) || !std::isfinite(x[1])) {
            std::fill(out, out + m, 0.0f);
            erased++;
            continue;
        }
        for (int d = 0; d < 2; d++)
            for (int l = 0; l < d_levels; l++) {
                const double e = x[d] - d_amplitude[std::size_t(l)];
                dist[d][l] = e * e;
            }
        const std::size_t half = std::size_t(d_levels / 2);
        for (int d = 0; d < 2; d++)
            for (int j = 0; j < d_half; j++) {
                const std::size_t at = std::size_t(d * d_half + j) * half;
                const std::uint8_t* zero = d_zero_levels.data() + at;
                const std::uint8_t* one = d_one_levels.data() + at;
                double min0 = inf, min1 = inf;
                for (std::size_t l = 0; l < half; l++) {
                    min0 = std::min(min0, dist[d][zero[l]]);
                    min1 = std::min(min1, dist[d][one[l]]);
                }
                // b_2j on the in-phase part, b_2j+1 on the quadrature part.
                out[2 * j + d] = saturate_llr((min0 - min1) / noise_variance);
            }
    }
    return erased;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
