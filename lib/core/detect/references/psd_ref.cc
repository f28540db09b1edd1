/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The parallel sphere detector (parallel-sphere-detector-gpu.txt, section 4): exact ML
 * by a hybrid breadth/depth-first tree search on the real-valued model (eq. 3, real
 * parts then imaginary parts). Tree level k (1..N, N = 2nt) fixes real unknown k-1; the
 * root is level N+1. Partial vectors are evaluated only on the levels
 * lvl_0 = N+1 > lvl_1 > ... > lvl_nr = 1: expanding a node of level lvl_{x-1} creates
 * all |Omega|^(lvl_{x-1}-lvl_x) children on level lvl_x at once (levels in between
 * are skipped). Each level's buffer is sorted by path metric, its nodes are expanded
 * exp_x at a time, depth first, and a buffer is left as soon as its next node's metric
 * is not below the squared radius d^2, which starts infinite and shrinks to the best
 * leaf found so far (Algorithm 3). Since metrics only grow downwards, nothing pruned
 * can beat the final leaf: the result is the ML decision.
 *
 * Soft output: the ML decision as LLRs of +-list_llr_clip (docs/detectors/psd.md).
 *
 * A vector's search evaluates at most params.psd.max_nodes nodes: one that reaches it
 * (counted in p.budget_hits), or whose caller sets p.stop, stops, and its decision is
 * the best leaf found so far, or the successive-cancellation (Babai) point where none
 * was.
 */
#include "detect/real_model.h"
#include "detect/reference.h"

#include <gnuradio/gpumimo/core/detect/registry.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

namespace {

struct tree_node {
    std::vector<int> levels; // PAM level per real unknown; those of the fixed levels
    double metric;           // M(s_k^N) = sum over fixed rows of (y^_j - (R s)_j)^2
};

class sphere_search
{
public:
    sphere_search(const constellation& c,
                  const linalg::rmatrix& r,
                  const std::vector<double>& yhat)
        : d_c(c), d_r(r), d_yhat(yhat), d_n(r.rows)
    {
    }

    // All children of `parent` (which fixes levels from_lvl..N) on level to_lvl:
    // rows from_lvl-2 down to to_lvl-1 (0-based) get every PAM level combination.
    void expand(const tree_node& parent,
                int from_lvl,
                int to_lvl,
                std::vector<tree_node>& out) const
    {
        extend(parent, from_lvl - 2, to_lvl - 1, out);
    }

    // The successive-cancellation point: level by level from the last, the PAM level
    // nearest the row's target given the levels already fixed.
    tree_node babai() const
    {
        tree_node node{ std::vector<int>(std::size_t(d_n), 0), 0.0 };
        for (int row = d_n - 1; row >= 0; row--) {
            double b = d_yhat[row];
            for (int j = row + 1; j < d_n; j++)
                b -= d_r(row, j) * d_c.pam_amplitude(node.levels[j]);
            int best = 0;
            double best_e = inf;
            for (int l = 0; l < d_c.pam_size(); l++) {
                const double e = b - d_r(row, row) * d_c.pam_amplitude(l);
                if (e * e < best_e) {
                    best_e = e * e;
                    best = l;
                }
            }
            node.levels[row] = best;
            node.metric += best_e;
        }
        return node;
    }

private:
    void extend(const tree_node& node,
                int row,
                int last_row,
                std::vector<tree_node>& out) const
    {
        if (row < last_row) {
            out.push_back(node);
            return;
        }
        double b = d_yhat[row];
        for (int j = row + 1; j < d_n; j++)
            b -= d_r(row, j) * d_c.pam_amplitude(node.levels[j]);
        for (int l = 0; l < d_c.pam_size(); l++) {
            const double e = b - d_r(row, row) * d_c.pam_amplitude(l);
            tree_node child = node;
            child.levels[row] = l;
            child.metric += e * e;
            extend(child, row - 1, last_row, out);
        }
    }

    const constellation& d_c;
    const linalg::rmatrix& d_r;
    const std::vector<double>& d_yhat;
    int d_n;
};

bool by_metric(const tree_node& a, const tree_node& b) { return a.metric < b.metric; }

} // namespace

void psd_detect(const constellation& c,
                const detector_params& params,
                const group_problem& p,
                float* llr)
{
    std::vector<int> lvl = params.psd.lvl, exp = params.psd.exp;
    if (lvl.empty())
        psd_default_levels(p.nt, c.mod(), lvl, exp);
    const int nlevels = static_cast<int>(lvl.size()) - 1; // lvl_nr
    const int m = c.bits_per_symbol();
    const real_model model(linalg::load_channel(p.h, p.nr, p.nt),
                           linalg::rvd_order::stacked);

    std::vector<int> points(p.nt);
    for (std::size_t v = 0; v < p.count; v++) {
        const std::vector<double> yhat = model.rotate(p.y + v * p.nr);
        const sphere_search search(c, model.r(), yhat);

        double radius2 = inf;
        tree_node best;
        auto offer_leaves = [&](const std::vector<tree_node>& leaves) {
            for (const tree_node& leaf : leaves)
                if (leaf.metric < radius2) {
                    radius2 = leaf.metric;
                    best = leaf;
                }
        };

        const tree_node root{ std::vector<int>(model.dims(), 0), 0.0 };
        std::vector<std::vector<tree_node>> buf(nlevels);
        std::vector<std::size_t> off(nlevels, 0);
        std::vector<tree_node> children;
        search.expand(root, lvl[0], lvl[1], children);
        std::int64_t nodes = std::int64_t(children.size());
        bool out_of_budget = false, ended_early = false;
        if (nlevels == 1) {
            offer_leaves(children);
        } else {
            std::stable_sort(children.begin(), children.end(), by_metric);
            buf[1] = std::move(children);
            int x = 1; // buffer being worked through: nodes of level lvl[x]
            while (x >= 1) {
                out_of_budget = nodes >= params.psd.max_nodes;
                if (out_of_budget || (p.stop && p.stop->load(std::memory_order_relaxed))) {
                    ended_early = true;
                    break;
                }
                if (off[x] < buf[x].size() && buf[x][off[x]].metric < radius2) {
                    children.clear();
                    const std::size_t end = std::min(
                        buf[x].size(), off[x] + static_cast<std::size_t>(exp[x]));
                    for (std::size_t i = off[x]; i < end; i++)
                        if (buf[x][i].metric < radius2)
                            search.expand(buf[x][i], lvl[x], lvl[x + 1], children);
                    nodes += std::int64_t(children.size());
                    off[x] = end;
                    if (x + 1 == nlevels) {
                        offer_leaves(children); // leaf level: a minimum search
                    } else {
                        std::stable_sort(children.begin(), children.end(), by_metric);
                        buf[x + 1] = std::move(children);
                        children = {};
                        off[x + 1] = 0;
                        x++;
                    }
                } else {
                    x--; // the rest of this buffer lies outside the sphere
                }
            }
        }

        if (out_of_budget && p.budget_hits)
            ++*p.budget_hits;
        if (ended_early && !(radius2 < inf)) // no leaf yet
            best = search.babai();
        model.points_of(c, best.levels.data(), points.data());
        const float mag = params.list_llr_clip;
        float* out = llr + v * p.nt * m;
        for (int j = 0; j < p.nt; j++)
            for (int k = 0; k < m; k++)
                out[j * m + k] = c.bit(points[j], k) ? mag : -mag;
    }
}

void psd_check_levels(int nt,
                      modulation mod,
                      const std::vector<int>& lvl,
                      const std::vector<int>& exp)
{
    const int npam = constellation(mod).pam_size();
    const int n = 2 * nt;
    auto fail = [](const std::string& why) {
        throw std::invalid_argument("invalid psd parameters: " + why);
    };
    if (lvl.size() < 2)
        fail("psd_lvl needs at least lvl_0 and lvl_1");
    if (lvl.front() != n + 1)
        fail("lvl_0 must be 2*nt+1 = " + std::to_string(n + 1));
    if (lvl.back() != 1)
        fail("the last level must be 1 (the leaves)");
    for (std::size_t x = 1; x < lvl.size(); x++)
        if (lvl[x] >= lvl[x - 1])
            fail("levels must decrease strictly");
    if (exp.size() != lvl.size() - 1)
        fail("psd_exp needs one entry per level except the last (" +
             std::to_string(lvl.size() - 1) + ")");
    if (exp[0] != 1)
        fail("exp_0 must be 1 (the root)");
    for (std::size_t x = 1; x < lvl.size(); x++) {
        const double eval = exp[x - 1] * std::pow(double(npam), lvl[x - 1] - lvl[x]);
        if (eval > double(1 << 22))
            fail("level " + std::to_string(lvl[x]) + " would evaluate " +
                 std::to_string(eval) + " nodes at once (limit 2^22)");
        if (x < exp.size() && (exp[x] < 1 || exp[x] > eval))
            fail("exp_" + std::to_string(x) + " must be between 1 and eval_" +
                 std::to_string(x) + " = " + std::to_string(static_cast<long>(eval)));
    }
}

} // namespace ref

namespace {
void check_psd(const constellation& c, int nt, int, const detector_params& p)
{
    check_square_qam(c, "psd");
    check_list_llr_clip(p);
    if (!(p.psd.lvl.empty() && p.psd.exp.empty()))
        ref::psd_check_levels(nt, c.mod(), p.psd.lvl, p.psd.exp);
    if (p.psd.max_nodes < 1 || p.psd.max_nodes > (std::int64_t(1) << 40))
        throw std::invalid_argument("invalid psd parameters: psd_max_nodes must be 1 to 2^40, not " +
                                    std::to_string(p.psd.max_nodes));
}
reference_cost psd_cost(int nt, int bits)
{
    // Exact ML by tree search: the reference is slow for large trees at low SNR.
    if (bits >= 6 ? nt > 2 : (bits == 4 ? nt > 4 : nt > 8))
        return reference_cost::prohibitive;
    return bits == 8 ? reference_cost::heavy : reference_cost::cheap;
}
detector_params block_search()
{
    detector_params p;
    p.psd.block_search = true; // the paper's block-per-problem mapping
    return p;
}
// parallel-sphere-detector-gpu.txt, Table 5: Mbit/s at 20 dB (0: no figure).
detector_bench_case at(int nt,
                       modulation mod,
                       double snr_db,
                       const char* label,
                       double mbps,
                       const detector_params& p = {})
{
    detector_bench_case c{ nt, mod, p, label, snr_db };
    c.paper_mbps = mbps;
    c.paper_ref = mbps > 0 ? "psd T5" : "";
    // Large trees at low SNR search long: a 16th of the full batch.
    c.slow = snr_db < 15 || (nt > 2 && mod == modulation::qam64);
    return c;
}
} // namespace

const detector_entry& psd_detector()
{
    static const detector_entry e{
        algorithm::psd, "psd", "Sphere (exact ML)", "parallel sphere detector: exact ML (psd_lvl, psd_exp)",
        check_psd, ref::psd_detect, psd_cost, { { "block", block_search() } },
        { at(2, modulation::qpsk, 20, "20dB", 163),
          at(2, modulation::qam16, 20, "20dB", 268),
          at(2, modulation::qam64, 20, "20dB", 153),
          at(4, modulation::qpsk, 20, "20dB", 169),
          at(4, modulation::qam16, 5, "5dB", 0),
          at(4, modulation::qam16, 10, "10dB", 0),
          at(4, modulation::qam16, 15, "15dB", 0),
          at(4, modulation::qam16, 20, "20dB", 121),
          at(4, modulation::qam64, 20, "20dB", 24),
          at(4, modulation::qam16, 20, "20dB block", 121, block_search()) },
    };
    return e;
}

void psd_default_levels(int nt,
                        modulation mod,
                        std::vector<int>& lvl,
                        std::vector<int>& exp)
{
    const int npam = constellation(mod).pam_size();
    const int n = 2 * nt;
    // The paper's Table 5 (tuned for 20 dB on a GTX 690).
    struct table_row {
        int nt, npam;
        std::vector<int> lvl, exp;
    };
    static const std::vector<table_row> table5 = {
        { 2, 2, { 5, 1 }, { 1 } },
        { 2, 4, { 5, 1 }, { 1 } },
        { 2, 8, { 5, 3, 1 }, { 1, 1 } },
        { 4, 2, { 9, 7, 1 }, { 1, 1 } },
        { 4, 4, { 9, 6, 4, 1 }, { 1, 4, 1 } },
        { 4, 8, { 9, 7, 5, 3, 1 }, { 1, 4, 4, 2 } },
    };
    for (const table_row& row : table5)
        if (row.nt == nt && row.npam == npam) {
            lvl = row.lvl;
            exp = row.exp;
            return;
        }
    // Elsewhere: a first breadth-first step of about 64 nodes, then steps of about 16
    // children per node, 4 nodes expanded at a time (docs/detectors/psd.md).
    auto levels_for = [npam](int target) {
        int g = 1;
        while (std::pow(double(npam), g + 1) <= target)
            g++;
        return g;
    };
    lvl = { n + 1 };
    exp = { 1 };
    int cur = std::max(1, n + 1 - levels_for(64));
    lvl.push_back(cur);
    while (cur > 1) {
        exp.push_back(4);
        cur = std::max(1, cur - levels_for(16));
        lvl.push_back(cur);
    }
    // exp_x may not exceed the nodes evaluated on level x.
    for (std::size_t x = 1; x < exp.size(); x++) {
        const double eval = exp[x - 1] * std::pow(double(npam), lvl[x - 1] - lvl[x]);
        exp[x] = static_cast<int>(std::min<double>(exp[x], eval));
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
