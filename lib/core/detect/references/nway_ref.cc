/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * N-way parallel SSFE (nway-mimo-detector-gpu.txt, section IV).
 *
 * Each pass uses the modified real-valued decomposition (eq. 3: real and imaginary part
 * of a symbol adjacent) of H with its columns rotated circularly by the pass number, so
 * each pass detects a different antenna first, and a modified Gram-Schmidt QR of
 * [H~ | y~] (Algorithm 1; the H~ part is shared by the vectors of a group). The search
 * (Algorithm 2) fully expands the first two real levels, i.e. all M points of the
 * antenna detected first (M candidates), then completes each candidate greedily: at
 * every further level the nearest PAM level to gamma = b_i / R_ii (round and clamp).
 * Hypotheses and counter-hypotheses are the per-bit minima over the M candidates of a
 * pass (Algorithm 3), merged across the N passes by taking the minimum (IV-D). Bits
 * whose merged list lacks a side get +-list_llr_clip, and every LLR is clipped to it.
 */
#include "detect/real_model.h"
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>
#include <cmath>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

void nway_detect(const constellation& c,
                 const detector_params& params,
                 const group_problem& p,
                 float* llr)
{
    const int nt = p.nt;
    const int m = c.bits_per_symbol();
    const int npam = c.pam_size();
    const int passes = params.nway.passes > 0 ? params.nway.passes : nt;
    const linalg::cmatrix h = linalg::load_channel(p.h, p.nr, nt);

    std::vector<real_model> models;
    for (int pass = 0; pass < passes; pass++) {
        std::vector<int> column_streams(nt);
        for (int j = 0; j < nt; j++)
            column_streams[j] = (j + pass) % nt;
        models.emplace_back(h, linalg::rvd_order::interleaved, column_streams);
    }

    const int dims = 2 * nt;
    bit_minima minima(c, nt);
    std::vector<int> levels(dims), points(nt);
    for (std::size_t v = 0; v < p.count; v++) {
        minima.reset();
        for (const real_model& model : models) {
            const linalg::rmatrix& r = model.r();
            const std::vector<double> yhat = model.rotate(p.y + v * p.nr);
            for (int k = 0; k < c.size(); k++) {
                // Full expansion of the last complex column: levels dims-2 (Re), dims-1
                // (Im).
                levels[dims - 1] = c.quadrature_level(k);
                levels[dims - 2] = c.in_phase_level(k);
                const double a1 = c.pam_amplitude(levels[dims - 1]);
                const double a2 = c.pam_amplitude(levels[dims - 2]);
                const double e1 = yhat[dims - 1] - r(dims - 1, dims - 1) * a1;
                const double e2 = yhat[dims - 2] - r(dims - 2, dims - 1) * a1 -
                                  r(dims - 2, dims - 2) * a2;
                double d = e1 * e1 + e2 * e2;
                for (int i = dims - 3; i >= 0; i--) {
                    double b = yhat[i];
                    for (int j = i + 1; j < dims; j++)
                        b -= r(i, j) * c.pam_amplitude(levels[j]);
                    const double gamma = b / r(i, i);
                    const long nearest =
                        std::lround((gamma / c.scale() + npam - 1) / 2.0);
                    levels[i] = static_cast<int>(std::clamp(nearest, 0L, long(npam - 1)));
                    const double e = b - r(i, i) * c.pam_amplitude(levels[i]);
                    d += e * e;
                }
                model.points_of(c, levels.data(), points.data());
                minima.offer_vector(points.data(), d);
            }
        }
        minima.write_llr(
            p.n0, params.list_llr_clip, params.list_llr_clip, llr + v * nt * m);
    }
}

} // namespace ref

namespace {
void check_nway(const constellation& c, int nt, int, const detector_params& p)
{
    check_square_qam(c, "nway");
    check_list_llr_clip(p);
    if (p.nway.passes < 0 || p.nway.passes > nt)
        throw std::invalid_argument("nway_passes must be 1..nt (or 0 for nt)");
}
reference_cost nway_cost(int nt, int bits)
{
    if (bits == 8 && nt > 4)
        return reference_cost::prohibitive;
    return bits == 8 ? reference_cost::heavy : reference_cost::cheap;
}
// nway-mimo-detector-gpu.txt, Table II: Mbit/s with N passes.
detector_bench_case paper(int nt, modulation mod, int passes, double mbps)
{
    detector_bench_case c{ nt, mod, {} };
    c.params.nway.passes = passes;
    c.label = passes == 1 ? "N=1" : passes == 2 ? "N=2" : "N=4";
    c.paper_mbps = mbps;
    c.paper_ref = "nway TII";
    return c;
}
} // namespace

const detector_entry& nway_detector()
{
    static const detector_entry e{
        algorithm::nway, "nway", "N-way", "N-way parallel SSFE (nway_passes: N)",
        check_nway, ref::nway_detect, nway_cost, {},
        { paper(2, modulation::qam16, 1, 834.1),
          paper(2, modulation::qam16, 2, 402.2),
          paper(2, modulation::qam64, 2, 92.4),
          paper(4, modulation::qam16, 1, 782.5),
          paper(4, modulation::qam16, 4, 192.5),
          paper(4, modulation::qam64, 1, 230.7),
          paper(4, modulation::qam64, 4, 58.3) },
    };
    return e;
}
} // namespace core
} // namespace gpumimo
} // namespace gr
