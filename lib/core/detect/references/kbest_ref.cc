/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * K-best: breadth-first search on the real-valued (interleaved) model, keeping the K
 * partial vectors of least metric at each of the 2nt levels; LLRs from the final list
 * with LLR clipping for missing counter-hypotheses. The papers' comparison baseline.
 */
#include "detect/real_model.h"
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

namespace {
struct partial_path {
    std::vector<int> levels; // PAM level per real dimension; set from the top down
    double metric;
};
} // namespace

void kbest_detect(const constellation& c,
                  const detector_params& params,
                  const group_problem& p,
                  float* llr)
{
    const int m = c.bits_per_symbol();
    const int npam = c.pam_size();
    const real_model model(linalg::load_channel(p.h, p.nr, p.nt),
                           linalg::rvd_order::interleaved);
    const int dims = model.dims();
    const linalg::rmatrix& r = model.r();

    bit_minima minima(c, p.nt);
    std::vector<int> points(p.nt);
    for (std::size_t v = 0; v < p.count; v++) {
        const std::vector<double> yhat = model.rotate(p.y + v * p.nr);
        std::vector<partial_path> survivors{ { std::vector<int>(dims, 0), 0.0 } };
        for (int i = dims - 1; i >= 0; i--) {
            std::vector<partial_path> children;
            children.reserve(survivors.size() * npam);
            for (const partial_path& parent : survivors) {
                double b = yhat[i];
                for (int j = i + 1; j < dims; j++)
                    b -= r(i, j) * c.pam_amplitude(parent.levels[j]);
                for (int l = 0; l < npam; l++) {
                    const double e = b - r(i, i) * c.pam_amplitude(l);
                    partial_path child = parent;
                    child.levels[i] = l;
                    child.metric += e * e;
                    children.push_back(std::move(child));
                }
            }
            std::stable_sort(children.begin(),
                             children.end(),
                             [](const partial_path& a, const partial_path& b) {
                                 return a.metric < b.metric;
                             });
            if (static_cast<int>(children.size()) > params.kbest.k)
                children.resize(params.kbest.k);
            survivors = std::move(children);
        }
        minima.reset();
        for (const partial_path& s : survivors) {
            model.points_of(c, s.levels.data(), points.data());
            minima.offer_vector(points.data(), s.metric);
        }
        minima.write_llr(
            p.n0, params.list_llr_clip, params.list_llr_clip, llr + v * p.nt * m);
    }
}

} // namespace ref

namespace {
void check_kbest(const constellation& c, int, int, const detector_params& p)
{
    check_square_qam(c, "kbest");
    check_list_llr_clip(p);
    if (p.kbest.k < 1 || p.kbest.k > 4096)
        throw std::invalid_argument("kbest_k must be 1..4096");
}
reference_cost kbest_cost(int, int bits)
{
    return bits == 8 ? reference_cost::heavy : reference_cost::cheap;
}
} // namespace

const detector_entry& kbest_detector()
{
    static const detector_entry e{
        algorithm::kbest, "kbest", "K-best", "K-best breadth-first tree search (kbest_k survivors)",
        check_kbest, ref::kbest_detect, kbest_cost, {},
        { { 4, modulation::qam16, {}, "K=16" } },
    };
    return e;
}
} // namespace core
} // namespace gpumimo
} // namespace gr
