/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "detect/reference.h"

#include <algorithm>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

bit_minima::bit_minima(const constellation& c, int nt)
    : d_c(c),
      d_nt(nt),
      d_min0(static_cast<std::size_t>(nt) * c.bits_per_symbol(), inf),
      d_min1(static_cast<std::size_t>(nt) * c.bits_per_symbol(), inf)
{
}

void bit_minima::reset()
{
    std::fill(d_min0.begin(), d_min0.end(), inf);
    std::fill(d_min1.begin(), d_min1.end(), inf);
}

void bit_minima::offer(int stream, int point, double d)
{
    const int m = d_c.bits_per_symbol();
    for (int k = 0; k < m; k++) {
        const std::size_t idx = static_cast<std::size_t>(stream) * m + k;
        double& slot = d_c.bit(point, k) ? d_min1[idx] : d_min0[idx];
        if (d < slot)
            slot = d;
    }
}

void bit_minima::offer_vector(const int* points, double d)
{
    for (int j = 0; j < d_nt; j++)
        offer(j, points[j], d);
}

void bit_minima::write_llr(double n0,
                           float missing_llr,
                           float list_clip,
                           float* out) const
{
    for (std::size_t k = 0; k < d_min0.size(); k++) {
        const bool have0 = d_min0[k] < inf;
        const bool have1 = d_min1[k] < inf;
        double llr;
        if (have0 && have1)
            llr = (d_min0[k] - d_min1[k]) / n0;
        else if (missing_llr > 0.0f) // a list detector's list lacks one side
            llr = have1 ? missing_llr : -missing_llr;
        else // no finite metric on one side: nothing is known of this bit
            llr = 0.0;
        if (list_clip > 0.0f)
            llr = std::clamp(llr, -double(list_clip), double(list_clip));
        out[k] = saturate_llr(llr); // finite whatever n0 (core/limits.h)
    }
}

} // namespace ref
} // namespace core
} // namespace gpumimo
} // namespace gr
