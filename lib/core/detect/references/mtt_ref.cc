/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Multi-pass trellis traversal (mtt-soft-mimo-detector-gpu.txt, section 4).
 *
 * After a sorted QR, H(:, perm) = Q R and y^ = Q^H y, the metric splits into one term
 * per row of R (eq. 7). The trellis has one stage per antenna, starting from the last
 * row of R (stage t is column a = nt-1-t), and Q vertices per stage, one per point.
 * The candidate list L_t holds, for every vertex of stage t, one complete path through
 * it: edge reductions (eq. 9: each vertex of stages 1..t keeps only its best incoming
 * path) bring one path to each vertex of stage t, then path extensions (eqs. 10-11: each
 * path takes its best outgoing edge) complete them through the remaining stages.
 * Stage t's antenna gets its LLRs from L_t (eq. 8, Algorithm 3); since L_t has a path
 * through every point of that antenna, no bit lacks a counter-hypothesis and no LLR
 * clipping is needed. For nt = 2 the lists are exactly the max-log minima.
 *
 * The one-pass trellis (params.mtt.one_pass, the paper's OT baseline) runs the edge
 * reductions alone through every stage and takes every stream's LLRs from the last
 * stage's Q complete paths, with LLR clipping for the counter-hypotheses they lack.
 *
 * Deviations from the paper, documented in docs/detectors/mtt.md: exact squared
 * Euclidean distances (the paper's kernel uses |Re| + |Im|), double precision.
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

struct trellis_paths {
    std::vector<std::vector<int>> point; // point[k][column], set for visited columns
    std::vector<double> metric;          // partial distance of path k
};

// sum_{j > a} R(a, j) s_j for the columns a+1..nt-1 that path `pt` has fixed (eq. 13).
cd interference(const linalg::cmatrix& r,
                const constellation& c,
                const std::vector<int>& pt,
                int a)
{
    cd acc(0);
    for (int j = a + 1; j < r.cols; j++)
        acc += r(a, j) * c.point(pt[j]);
    return acc;
}

} // namespace

void mtt_detect(const constellation& c,
                const detector_params& params,
                const group_problem& p,
                float* llr)
{
    const int nt = p.nt;
    const int npoints = c.size();
    const int m = c.bits_per_symbol();
    const linalg::qr_result<cd> qr =
        linalg::qr_complex(linalg::load_channel(p.h, p.nr, nt), /*sorted=*/true);
    const linalg::cmatrix& r = qr.r;

    bit_minima minima(c, nt);
    for (std::size_t v = 0; v < p.count; v++) {
        const std::vector<cd> yhat =
            linalg::mgs_project(qr.q, linalg::load_vector(p.y + v * p.nr, p.nr));
        minima.reset();

        // Stage 0 (column nt-1): one path per vertex, nothing to reduce.
        trellis_paths reduced;
        reduced.point.assign(npoints, std::vector<int>(nt, -1));
        reduced.metric.assign(npoints, 0.0);
        for (int q = 0; q < npoints; q++) {
            reduced.point[q][nt - 1] = q;
            reduced.metric[q] = std::norm(yhat[nt - 1] - r(nt - 1, nt - 1) * c.point(q));
        }

        for (int t = 0; t < nt; t++) {
            const int a = nt - 1 - t;
            if (t > 0) {
                // Edge reduction at stage t: vertex q keeps its best incoming path.
                std::vector<cd> delta(npoints);
                for (int k = 0; k < npoints; k++)
                    delta[k] = interference(r, c, reduced.point[k], a);
                trellis_paths next = reduced;
                for (int q = 0; q < npoints; q++) {
                    double best = inf;
                    int from = 0;
                    for (int k = 0; k < npoints; k++) {
                        const double d =
                            reduced.metric[k] +
                            std::norm(yhat[a] - delta[k] - r(a, a) * c.point(q));
                        if (d < best) {
                            best = d;
                            from = k;
                        }
                    }
                    next.point[q] = reduced.point[from];
                    next.point[q][a] = q;
                    next.metric[q] = best;
                }
                reduced = std::move(next);
            }

            if (params.mtt.one_pass) {
                if (t < nt - 1)
                    continue;
                // OT: the last stage's paths are complete; every stream learns from them.
                for (int k = 0; k < npoints; k++)
                    for (int col = 0; col < nt; col++)
                        minima.offer(qr.perm[col], reduced.point[k][col], reduced.metric[k]);
                break;
            }

            // L_t: extend every path through stages t+1..nt-1 along its best edge.
            trellis_paths list = reduced;
            for (int u = t + 1; u < nt; u++) {
                const int row = nt - 1 - u;
                for (int k = 0; k < npoints; k++) {
                    const cd b = yhat[row] - interference(r, c, list.point[k], row);
                    double best = inf;
                    int chosen = 0;
                    for (int q = 0; q < npoints; q++) {
                        const double w = std::norm(b - r(row, row) * c.point(q));
                        if (w < best) {
                            best = w;
                            chosen = q;
                        }
                    }
                    list.point[k][row] = chosen;
                    list.metric[k] += best;
                }
            }

            // Path k of L_t goes through point k of column a: stream perm[a].
            for (int k = 0; k < npoints; k++)
                minima.offer(qr.perm[a], k, list.metric[k]);
        }
        if (params.mtt.one_pass)
            minima.write_llr(p.n0, params.list_llr_clip, params.list_llr_clip, llr + v * nt * m);
        else
            minima.write_llr(p.n0, 0.0f, 0.0f, llr + v * nt * m);
    }
}

} // namespace ref

namespace {
void check_mtt(const constellation&, int, int, const detector_params& p)
{
    if (p.mtt.one_pass)
        check_list_llr_clip(p);
}
reference_cost mtt_cost(int nt, int bits)
{
    // The reference costs Q^2 per stage.
    if (bits == 8 && nt > 2)
        return reference_cost::prohibitive;
    return bits == 8 || (bits == 6 && nt >= 4) ? reference_cost::heavy
                                               : reference_cost::cheap;
}
detector_params one_pass()
{
    detector_params p;
    p.mtt.one_pass = true;
    return p;
}
// mtt-soft-mimo-detector-gpu.txt, Tables 2 and 3: Mbit/s per configuration.
detector_bench_case paper(int nt, modulation mod, std::size_t batch, double mbps)
{
    detector_bench_case c{ nt, mod, {} };
    c.paper_batch = batch;
    c.paper_mbps = mbps;
    c.paper_ref = nt == 2 ? "mtt T2" : "mtt T3";
    return c;
}
} // namespace

const detector_entry& mtt_detector()
{
    static const detector_entry e{
        algorithm::mtt, "mtt", "MTT (trellis)", "multi-pass trellis traversal (mtt_one_pass: one pass)",
        check_mtt, ref::mtt_detect, mtt_cost, { { "one-pass", one_pass() } },
        { paper(2, modulation::qpsk, 131072, 822.59),
          paper(2, modulation::qam16, 131072, 280.08),
          paper(2, modulation::qam64, 131072, 43.86),
          paper(4, modulation::qpsk, 65536, 308.40),
          paper(4, modulation::qam16, 65536, 122.03),
          paper(4, modulation::qam64, 65536, 12.05) },
    };
    return e;
}
} // namespace core
} // namespace gpumimo
} // namespace gr
