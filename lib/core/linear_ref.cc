/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Zero-forcing and MMSE linear equalisation followed by per-stream max-log demapping
 * with the post-equalisation noise-plus-interference variance of each stream.
 */
#include "linalg.h"
#include "reference.h"

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

    std::vector<double> gain(p.nt), var(p.nt);
    for (int k = 0; k < p.nt; k++) {
        const double akk = a(k, k).real();
        gain[k] = mmse ? 1.0 - p.n0 * akk : 1.0;
        var[k] = p.n0 * akk / gain[k];
    }

    bit_minima minima(c, 1);
    for (std::size_t v = 0; v < p.count; v++) {
        const std::vector<cd> x =
            linalg::multiply(w, linalg::load_vector(p.y + v * p.nr, p.nr));
        for (int k = 0; k < p.nt; k++) {
            const cd xk = x[k] / gain[k];
            minima.reset();
            // Scaling each metric by 1/var here and passing n0 = 1 gives
            // LLR = (min0 - min1) / var_k.
            for (int q = 0; q < c.size(); q++)
                minima.offer(0, q, std::norm(xk - c.point(q)) / var[k]);
            minima.write_llr(1.0, 0.0f, 0.0f, llr + (v * p.nt + k) * m);
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
} // namespace core
} // namespace gpumimo
} // namespace gr
