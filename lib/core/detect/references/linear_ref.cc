/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Zero-forcing and MMSE linear equalisation followed by per-stream max-log demapping
 * with the post-equalisation noise-plus-interference variance of each stream.
 */
#include "common/linalg.h"
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>
#include <limits>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

namespace {

using linalg::cd;

// With A = (H^H H + a N0 I)^-1 (a = 0 for ZF, 1 for MMSE) and W = A H^H:
//  ZF:   x = W y = s + e, var(e_k) = N0 A_kk.
//  MMSE: (W y)_k = mu_k s_k + e_k with mu_k = (A H^H H)_kk = 1 - N0 A_kk; dividing by
//        mu_k removes the bias, leaving var = (1 - mu_k) / mu_k = N0 A_kk / mu_k
//        (post-equalisation SINR mu_k / (1 - mu_k) for unit-energy symbols).
//        Where 1 - N0 A_kk falls below mmse_gain_exact_below (core/limits.h) it has
//        cancelled (N0 1e16 times the signal, as a frame with a far louder preamble
//        gives, makes it 0 or negative): mu_k is then summed as (A H^H H)_kk, which stays
//        positive, and the LLRs go to 0 as they should.
void linear_detect(bool mmse, const constellation& c, const group_problem& p, float* llr)
{
    const int m = c.bits_per_symbol();
    const linalg::cmatrix h = linalg::load_channel(p.h, p.nr, p.nt);
    const linalg::cmatrix hh = linalg::conj_transpose(h);
    linalg::cmatrix gram = linalg::multiply(hh, h);
    if (mmse)
        for (int k = 0; k < p.nt; k++)
            gram(k, k) += p.n0;
    const linalg::cmatrix a = linalg::inverse(gram);
    const linalg::cmatrix w = linalg::multiply(a, hh);

    const linalg::cmatrix hh_h = mmse ? linalg::multiply(hh, h) : linalg::cmatrix();
    std::vector<double> gain(p.nt), var(p.nt);
    for (int k = 0; k < p.nt; k++) {
        const double akk = a(k, k).real();
        double mu = 1.0;
        if (mmse) {
            mu = 1.0 - p.n0 * akk;
            if (!(mu > mmse_gain_exact_below)) {
                mu = 0.0;
                for (int j = 0; j < p.nt; j++)
                    mu += (a(k, j) * hh_h(j, k)).real();
            }
            mu = std::clamp(mu, std::numeric_limits<double>::min(), 1.0);
        }
        gain[k] = mu;
        // At least the smallest normal double: N0 = 1e-38 must not make a metric 0/0.
        var[k] = std::max(p.n0 * akk / mu, std::numeric_limits<double>::min());
    }

    bit_minima minima(c, 1);
    for (std::size_t v = 0; v < p.count; v++) {
        const std::vector<cd> x =
            linalg::multiply(w, linalg::load_vector(p.y + v * p.nr, p.nr));
        for (int k = 0; k < p.nt; k++) {
            const cd xk = x[k] / gain[k];
            minima.reset();
            // LLR = (min0 - min1) / var_k: the metrics' difference divided once (a
            // degenerate var_k then saturates the LLR instead of making Inf - Inf).
            for (int q = 0; q < c.size(); q++)
                minima.offer(0, q, std::norm(xk - c.point(q)));
            minima.write_llr(var[k], 0.0f, 0.0f, llr + (v * p.nt + k) * m);
        }
    }
}

} // namespace

void zf_detect(const constellation& c,
               const detector_params&,
               const group_problem& p,
               float* llr)
{
    linear_detect(false, c, p, llr);
}

void mmse_detect(const constellation& c,
                 const detector_params&,
                 const group_problem& p,
                 float* llr)
{
    linear_detect(true, c, p, llr);
}

} // namespace ref

namespace {
void no_further_check(const constellation&, int, int, const detector_params&) {}
reference_cost linear_cost(int, int bits)
{
    return bits == 8 ? reference_cost::heavy : reference_cost::cheap;
}
} // namespace

const detector_entry& zf_detector()
{
    static const detector_entry e{
        algorithm::zf, "zf", "ZF", "zero forcing, then max-log LLRs per stream",
        no_further_check, ref::zf_detect, linear_cost, {},
        { { 4, modulation::qam16, {} } },
    };
    return e;
}

const detector_entry& mmse_detector()
{
    static const detector_entry e{
        algorithm::mmse, "mmse", "MMSE", "linear MMSE, then max-log LLRs per stream",
        no_further_check, ref::mmse_detect, linear_cost, {},
        { { 4, modulation::qam16, {} } },
    };
    return e;
}
} // namespace core
} // namespace gpumimo
} // namespace gr
