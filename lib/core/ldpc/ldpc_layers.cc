/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layers of a layered LDPC decoder (ldpc_code::layers): which checks are updated
 * together. Checks of one layer share no bit, so a GPU updates a layer with a thread per
 * check and a barrier after it; the decoders' cost is then about (number of layers) x
 * (widest layer), the threads a block spends, idle ones included.
 *
 * Quasi-cyclic codes (every check the one before it with each bit moved one place round
 * its z-bit block, as the 802.16e and 5G NR codes are written) are layered a block row at
 * a time: block rows with no block column in common are merged, and a small search picks
 * the grouping with the fewest warp slots (layers x the widest layer in warps of 32
 * threads), then the fewest layers. The 802.16e rate-1/2
 * code becomes 6 layers of two block rows (first fit over the checks made 7: five of two
 * rows and two of one, a block's threads half idle in those two). Other codes, and any
 * grouping that would put two checks sharing a bit in one layer, take first fit over the
 * checks in order.
 */
#include "ldpc/ldpc_internal.h"

#include <algorithm>
#include <numeric>

namespace gr {
namespace gpumimo {
namespace core {
namespace ldpc_detail {
namespace {

using layer_list = std::vector<std::vector<int>>;

// Block rows the search takes at most (5G NR's BG1 has 46, 802.16e 12): beyond that a
// code is layered by first fit, so that a hostile file cannot make the search's
// rows x rows x columns conflict table or its nodes expensive.
constexpr int max_block_rows = 64;

// First fit: a check joins the first layer none of whose checks shares a bit with it.
// Each bit keeps the layers holding it (the file's edges in all) and each check marks
// the layers its bits block: memory grows with the code's edges, not with its layers
// times its bits (a per-layer bit map took 1.8 GB for a 3.2 MB alist with n = 131072
// and a bit in every check: a layer per check).
layer_list first_fit_layers(const ldpc_code& code)
{
    layer_list layers;
    std::vector<std::vector<int>> bit_layers(std::size_t(code.n)); // the layers holding each bit
    std::vector<int> blocked;                                      // [layer]: the check that last blocked it
    for (int c = 0; c < code.m; c++) {
        const auto& row = code.checks[std::size_t(c)];
        for (const int v : row)
            for (const int l : bit_layers[std::size_t(v)])
                blocked[std::size_t(l)] = c;
        std::size_t l = 0;
        while (l < layers.size() && blocked[l] == c)
            l++;
        if (l == layers.size()) {
            layers.emplace_back();
            blocked.push_back(-1);
        }
        for (const int v : row)
            bit_layers[std::size_t(v)].push_back(int(l));
        layers[l].push_back(c);
    }
    return layers;
}

// The largest z (at least 2, dividing n and m, at most max_block_rows block rows) for
// which every check but the last of each z is the one before it with each bit v moved to
// (v + 1) mod z within its block; 0 when there is none.
int circulant_size(const ldpc_code& code)
{
    const int g = std::gcd(code.n, code.m);
    const int smallest = std::max(2, (code.m + max_block_rows - 1) / max_block_rows);
    for (int z = g; z >= smallest; z--) {
        if (g % z)
            continue;
        bool cyclic = true;
        std::vector<int> moved;
        for (int c = 0; cyclic && c < code.m; c++) {
            if (c % z == z - 1)
                continue;
            moved.clear();
            for (const int v : code.checks[std::size_t(c)])
                moved.push_back(v / z * z + (v % z + 1) % z);
            std::sort(moved.begin(), moved.end());
            cyclic = moved == code.checks[std::size_t(c) + 1];
        }
        if (cyclic)
            return z;
    }
    return 0;
}

// Groups of block rows, no two rows of a group sharing a block column, with the fewest
// warp slots (groups x the largest group's checks in warps of 32), then the fewest groups; depth-first over the
// rows in order, each joining an earlier group or opening one, pruned by the best so far
// and bounded in nodes (the best found by then is kept; first fit is the start).
class row_grouping
{
public:
    row_grouping(std::vector<std::vector<char>> conflict, int z) : d_conflict(std::move(conflict)), d_z(z) {}

    std::vector<std::vector<int>> best(const std::vector<std::vector<int>>& start)
    {
        d_best = start;
        d_best_cost = cost(start);
        d_nodes = 0;
        std::vector<std::vector<int>> groups;
        search(0, groups);
        return d_best;
    }

private:
    static constexpr long node_limit = 200000;

    std::pair<std::size_t, std::size_t> cost(const std::vector<std::vector<int>>& groups) const
    {
        std::size_t widest = 0;
        for (const auto& g : groups)
            widest = std::max(widest, g.size());
        const std::size_t warps = (widest * std::size_t(d_z) + 31) / 32;
        return { groups.size() * warps, groups.size() };
    }

    void search(int row, std::vector<std::vector<int>>& groups)
    {
        if (++d_nodes > node_limit || !(cost(groups) < d_best_cost))
            return; // a partial grouping's cost only grows
        if (row == int(d_conflict.size())) {
            d_best = groups;
            d_best_cost = cost(groups);
            return;
        }
        // By index: the deeper calls open groups of their own, which may move `groups`
        // (each is gone again when they return).
        for (std::size_t k = 0; k < groups.size(); k++) {
            if (std::any_of(groups[k].begin(), groups[k].end(),
                            [&](int r) { return d_conflict[std::size_t(row)][std::size_t(r)]; }))
                continue;
            groups[k].push_back(row);
            search(row + 1, groups);
            groups[k].pop_back();
        }
        groups.push_back({ row });
        search(row + 1, groups);
        groups.pop_back();
    }

    std::vector<std::vector<char>> d_conflict;
    int d_z;
    std::vector<std::vector<int>> d_best;
    std::pair<std::size_t, std::size_t> d_best_cost;
    long d_nodes = 0;
};

// True when no two checks of any layer share a bit.
bool layers_are_valid(const ldpc_code& code, const layer_list& layers)
{
    std::vector<int> owner(std::size_t(code.n), -1);
    for (std::size_t l = 0; l < layers.size(); l++)
        for (const int c : layers[l])
            for (const int v : code.checks[std::size_t(c)]) {
                if (owner[std::size_t(v)] == int(l))
                    return false;
                owner[std::size_t(v)] = int(l);
            }
    return true;
}

layer_list block_row_layers(const ldpc_code& code, int z)
{
    const int rows = code.m / z;
    std::vector<std::vector<char>> columns(std::size_t(rows), std::vector<char>(std::size_t(code.n / z), 0));
    for (int c = 0; c < code.m; c++)
        for (const int v : code.checks[std::size_t(c)])
            columns[std::size_t(c / z)][std::size_t(v / z)] = 1;
    std::vector<std::vector<char>> conflict(std::size_t(rows), std::vector<char>(std::size_t(rows), 0));
    for (int a = 0; a < rows; a++)
        for (int b = 0; b < rows; b++)
            for (std::size_t k = 0; k < columns[0].size(); k++)
                if (columns[std::size_t(a)][k] && columns[std::size_t(b)][k])
                    conflict[std::size_t(a)][std::size_t(b)] = 1;
    // Start from first fit over the block rows.
    std::vector<std::vector<int>> start;
    for (int r = 0; r < rows; r++) {
        auto g = std::find_if(start.begin(), start.end(), [&](const std::vector<int>& grp) {
            return std::none_of(grp.begin(), grp.end(), [&](int s) { return conflict[std::size_t(r)][std::size_t(s)]; });
        });
        if (g == start.end())
            start.push_back({ r });
        else
            g->push_back(r);
    }
    layer_list layers;
    for (auto& group : row_grouping(std::move(conflict), z).best(start)) {
        std::sort(group.begin(), group.end());
        layers.emplace_back();
        for (const int r : group)
            for (int c = r * z; c < (r + 1) * z; c++)
                layers.back().push_back(c);
    }
    return layers;
}

} // namespace

std::vector<std::vector<int>> decoder_layers(const ldpc_code& code)
{
    if (const int z = circulant_size(code)) {
        layer_list layers = block_row_layers(code, z);
        if (layers_are_valid(code, layers))
            return layers;
    }
    return first_fit_layers(code);
}

} // namespace ldpc_detail
} // namespace core
} // namespace gpumimo
} // namespace gr
