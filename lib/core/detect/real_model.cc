/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "detect/real_model.h"

#include <numeric>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

real_model::real_model(const linalg::cmatrix& h,
                       linalg::rvd_order order,
                       std::vector<int> column_streams)
    : d_order(order), d_nt(h.cols), d_nr(h.rows), d_streams(std::move(column_streams))
{
    if (d_streams.empty()) {
        d_streams.resize(d_nt);
        std::iota(d_streams.begin(), d_streams.end(), 0);
    }
    linalg::cmatrix permuted(d_nr, d_nt);
    for (int r = 0; r < d_nr; r++)
        for (int j = 0; j < d_nt; j++)
            permuted(r, j) = h(r, d_streams[j]);
    d_qr = linalg::qr_real(linalg::real_channel(permuted, order));
}

std::vector<double> real_model::rotate(const cf32* y) const
{
    return linalg::mgs_project(
        d_qr.q, linalg::real_vector(linalg::load_vector(y, d_nr), d_order));
}

void real_model::points_of(const constellation& c, const int* levels, int* points) const
{
    for (int j = 0; j < d_nt; j++) {
        const int li = levels[linalg::rvd_index(d_order, j, false, d_nt)];
        const int lq = levels[linalg::rvd_index(d_order, j, true, d_nt)];
        points[d_streams[j]] = c.point_from_levels(li, lq);
    }
}

} // namespace ref
} // namespace core
} // namespace gpumimo
} // namespace gr
