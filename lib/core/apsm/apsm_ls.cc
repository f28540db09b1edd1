/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The linear least-squares multiuser filter: the baseline APSM must match on the
 * over-the-air recordings, and APSM's optional starting point (apsm_params::ls_init).
 */
#include "common/linalg.h"
#include "detail/apsm_internal.h"

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

std::vector<std::vector<double>> ls_weights(const std::complex<float>* rx,
                                            std::size_t n,
                                            int antennas,
                                            const std::vector<const std::complex<float>*>& sent)
{
    if (antennas < 1 || n == 0)
        throw std::invalid_argument("least squares: no antennas or no training symbols");
    const int dim = 2 * antennas;
    const std::size_t users = sent.size();
    // Normal equations over the real samples (r1, Re b) and (r2, Im b): the real
    // least-squares filter w of dimension 2M is the complex filter conj(w_re - j w_im).
    // The normal matrix is the same for every user; only the right-hand sides differ.
    std::vector<double> gram(dim * dim, 0.0), rhs(users * dim, 0.0);
    std::vector<float> x1(dim), x2(dim);
    for (std::size_t t = 0; t < n; t++) {
        apsm_real_pair(rx + t * antennas, antennas, 1.0, x1.data(), x2.data());
        for (int half = 0; half < 2; half++) {
            const float* x = half == 0 ? x1.data() : x2.data();
            for (std::size_t u = 0; u < users; u++) {
                const double b = half == 0 ? sent[u][t].real() : sent[u][t].imag();
                for (int i = 0; i < dim; i++)
                    rhs[u * dim + i] += double(x[i]) * b;
            }
            for (int i = 0; i < dim; i++)
                for (int j = 0; j <= i; j++)
                    gram[i * dim + j] += double(x[i]) * x[j];
        }
    }
    // Cholesky, lower triangle in place.
    if (!linalg::cholesky(gram.data(), dim, 1e-12))
        throw std::invalid_argument(
            "least squares: the training vectors do not span the antennas (singular "
            "or non-finite training set)");
    std::vector<std::vector<double>> weights(users);
    for (std::size_t u = 0; u < users; u++) {
        std::vector<double> w(rhs.begin() + u * dim, rhs.begin() + (u + 1) * dim);
        linalg::cholesky_forward(gram.data(), dim, w.data());  // L y = rhs
        linalg::cholesky_backward(gram.data(), dim, w.data()); // L^T w = y
        weights[u] = std::move(w);
    }
    return weights;
}

apsm_filter ls_train(const std::complex<float>* rx,
                     std::size_t n,
                     int antennas,
                     const std::complex<float>* sent)
{
    apsm_filter f;
    f.antennas = antennas;
    f.linear_weight = 1;
    f.gaussian_weight = 0;
    f.variance = 1;
    f.lin = ls_weights(rx, n, antennas, { sent })[0];
    f.noise_variance = training_residual(f, rx, n, sent);
    return f;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
