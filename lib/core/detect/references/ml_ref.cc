/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exhaustive max-log ML: every one of |Q|^nt transmit vectors is visited.
 */
#include "common/linalg.h"
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/registry.h>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

namespace {

using linalg::cd;

// Depth-first enumeration of all transmit vectors. The residual y - sum_j h_j s_j is
// updated one stream at a time, so a leaf costs nr operations rather than nr * nt.
// best[j * Q + q] is the smallest metric of any vector with point q on stream j:
// from those the per-bit minima follow exactly, at nt updates per leaf instead of
// nt * m.
struct exhaustive_search {
    int nt, nr, npoints;
    std::vector<cd> h_times_point;         // [stream][point][rx]
    std::vector<std::vector<cd>> residual; // residual[j]: y minus streams 0..j-1
    std::vector<int> chosen;
    std::vector<double> best;

    void descend(int j)
    {
        const std::vector<cd>& above = residual[j];
        std::vector<cd>& here = residual[j + 1];
        for (int q = 0; q < npoints; q++) {
            const cd* hq =
                &h_times_point[(static_cast<std::size_t>(j) * npoints + q) * nr];
            chosen[j] = q;
            if (j + 1 < nt) {
                for (int r = 0; r < nr; r++)
                    here[r] = above[r] - hq[r];
                descend(j + 1);
            } else {
                double d = 0.0;
                for (int r = 0; r < nr; r++)
                    d += std::norm(above[r] - hq[r]);
                for (int t = 0; t < nt; t++) {
                    double& slot =
                        best[static_cast<std::size_t>(t) * npoints + chosen[t]];
                    if (d < slot)
                        slot = d;
                }
            }
        }
    }
};

} // namespace

void ml_detect(const constellation& c,
               const detector_params&,
               const group_problem& p,
               float* llr)
{
    const int npoints = c.size();
    const int m = c.bits_per_symbol();
    const linalg::cmatrix h = linalg::load_channel(p.h, p.nr, p.nt);

    exhaustive_search s;
    s.nt = p.nt;
    s.nr = p.nr;
    s.npoints = npoints;
    s.h_times_point.resize(static_cast<std::size_t>(p.nt) * npoints * p.nr);
    for (int j = 0; j < p.nt; j++)
        for (int q = 0; q < npoints; q++)
            for (int r = 0; r < p.nr; r++)
                s.h_times_point[(static_cast<std::size_t>(j) * npoints + q) * p.nr + r] =
                    h(r, j) * c.point(q);
    s.residual.assign(p.nt + 1, std::vector<cd>(p.nr));
    s.chosen.assign(p.nt, 0);

    bit_minima minima(c, p.nt);
    for (std::size_t v = 0; v < p.count; v++) {
        s.residual[0] = linalg::load_vector(p.y + v * p.nr, p.nr);
        s.best.assign(static_cast<std::size_t>(p.nt) * npoints, inf);
        s.descend(0);
        minima.reset();
        for (int j = 0; j < p.nt; j++)
            for (int q = 0; q < npoints; q++)
                minima.offer(j, q, s.best[static_cast<std::size_t>(j) * npoints + q]);
        minima.write_llr(p.n0, 0.0f, 0.0f, llr + v * p.nt * m);
    }
}

} // namespace ref

namespace {
void check_ml(const constellation& c, int nt, int, const detector_params&)
{
    if (double(nt) * c.bits_per_symbol() > 24)
        throw std::invalid_argument(
            "ml is exhaustive and limited to |Q|^nt <= 2^24 candidates; " +
            to_string(c.mod()) + " with nt = " + std::to_string(nt) + " has 2^" +
            std::to_string(nt * c.bits_per_symbol()));
}
reference_cost ml_cost(int nt, int bits)
{
    if (nt * bits > 16)
        return reference_cost::prohibitive;
    return nt * bits >= 12 || bits == 8 ? reference_cost::heavy : reference_cost::cheap;
}
// Exhaustive: the benchmark measures it on a 16th of the full batch.
detector_bench_case slow(modulation mod)
{
    detector_bench_case c{ 4, mod, {} };
    c.slow = true;
    return c;
}
} // namespace

const detector_entry& ml_detector()
{
    static const detector_entry e{
        algorithm::ml, "ml", "ML (exhaustive)", "exhaustive max-log ML over all |Q|^nt candidates",
        check_ml, ref::ml_detect, ml_cost, {},
        { slow(modulation::qpsk), slow(modulation::qam16) },
    };
    return e;
}
} // namespace core
} // namespace gpumimo
} // namespace gr
