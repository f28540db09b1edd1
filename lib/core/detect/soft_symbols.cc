/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Decisions and max-log LLRs from soft symbol estimates (the APSM and least-squares
 * detectors' output), by exhaustive search over the constellation; the per-bit minima
 * are the detectors' (ref::bit_minima).
 */
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

void hard_symbols(const constellation& c,
                  const std::complex<float>* soft,
                  std::size_t n,
                  int* index)
{
    for (std::size_t t = 0; t < n; t++) {
        const std::complex<double> z(soft[t]);
        int best = 0;
        double best_d = std::numeric_limits<double>::infinity();
        for (int i = 0; i < c.size(); i++) {
            const double d = std::norm(z - c.point(i));
            if (d < best_d) {
                best_d = d;
                best = i;
            }
        }
        index[t] = best;
    }
}

std::size_t soft_to_llr(const constellation& c,
                        const std::complex<float>* soft,
                        std::size_t n,
                        double noise_variance,
                        float* llr)
{
    const int m = c.bits_per_symbol();
    std::size_t erased = 0;
    ref::bit_minima minima(c, 1);
    for (std::size_t t = 0; t < n; t++) {
        float* out = llr + t * m;
        const std::complex<double> z(soft[t]);
        if (!std::isfinite(z.real()) || !std::isfinite(z.imag())) {
            std::fill(out, out + m, 0.0f);
            erased++;
            continue;
        }
        minima.reset();
        for (int i = 0; i < c.size(); i++)
            minima.offer(0, i, std::norm(z - c.point(i)));
        minima.write_llr(noise_variance, 0.0f, 0.0f, out); // every bit has both sides
    }
    return erased;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
