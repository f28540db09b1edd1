/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real-valued model shared by the tree searches on PAM levels (kbest, nway, psd):
 * y~ = H~ s~ + n~ with 2nt real unknowns, each one PAM dimension of the constellation,
 * and its QR form ||y~ - H~ s~||^2 = ||y^ - R s~||^2 + const, y^ = Q^T y~.
 */
#ifndef INCLUDED_GPUMIMO_CORE_REAL_MODEL_H
#define INCLUDED_GPUMIMO_CORE_REAL_MODEL_H

#include "common/linalg.h"

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <vector>

namespace gr {
namespace gpumimo {
namespace core {
namespace ref {

class real_model
{
public:
    /*! column_streams[j] is the transmit stream placed in complex column j (the N-way
     *  detector's rotated antenna orders); empty means the identity order. */
    real_model(const linalg::cmatrix& h,
               linalg::rvd_order order,
               std::vector<int> column_streams = {});

    int dims() const { return 2 * d_nt; }
    const linalg::rmatrix& r() const { return d_qr.r; }
    /*! y^ = Q^T y~ for one received vector of nr samples. */
    std::vector<double> rotate(const cf32* y) const;
    /*! From a PAM level per real dimension to a constellation point per stream. */
    void points_of(const constellation& c, const int* levels, int* points) const;

private:
    linalg::rvd_order d_order;
    int d_nt;
    int d_nr;
    std::vector<int> d_streams;
    linalg::qr_result<double> d_qr;
};

} // namespace ref
} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
