/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The linear least-squares multiuser filter: the baseline APSM must match on the
 * over-the-air recordings, and APSM's optional starting point (apsm_params::ls_init).
 */
#include "apsm_internal.h"

#include <gnuradio/gpumimo/core/apsm.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

apsm_filter ls_train(const std::complex<float>* rx,
                     std::size_t n,
                     int antennas,
                     const std::complex<float>* sent)
{
    if (antennas < 1 || n == 0)
        throw std::invalid_argument("least squares: no antennas or no training symbols");
    const int dim = 2 * antennas;
    // Normal equations over the real samples (r1, Re b) and (r2, Im b): the real
    // least-squares filter w of dimension 2M is the complex filter conj(w_re - j w_im).
    std::vector<double> gram(dim * dim, 0.0), rhs(dim, 0.0);
    std::vector<float> x1(dim), x2(dim);
    for (std::size_t t = 0; t < n; t++) {
        apsm_real_pair(rx + t * antennas, antennas, 1.0, x1.data(), x2.data());
        for (const auto& [x, b] : { std::pair<const float*, double>(x1.data(), sent[t].real()),
                                    std::pair<const float*, double>(x2.data(), sent[t].imag()) })
            for (int i = 0; i < dim; i++) {
                rhs[i] += double(x[i]) * b;
                for (int j = 0; j <= i; j++)
                    gram[i * dim + j] += double(x[i]) * x[j];
            }
    }
    // Cholesky, lower triangle in place.
    for (int j = 0; j < dim; j++) {
        double d = gram[j * dim + j];
        for (int k = 0; k < j; k++)
            d -= gram[j * dim + k] * gram[j * dim + k];
        if (!(d > 1e-12 * (1 + std::abs(gram[j * dim + j]))))
            throw std::invalid_argument(
                "least squares: the training vectors do not span the antennas (singular "
                "or non-finite training set)");
        gram[j * dim + j] = std::sqrt(d);
        for (int i = j + 1; i < dim; i++) {
            double v = gram[i * dim + j];
            for (int k = 0; k < j; k++)
                v -= gram[i * dim + k] * gram[j * dim + k];
            gram[i * dim + j] = v / gram[j * dim + j];
        }
    }
    std::vector<double> w(rhs);
    for (int i = 0; i < dim; i++) { // L y = rhs
        for (int k = 0; k < i; k++)
            w[i] -= gram[i * dim + k] * w[k];
        w[i] /= gram[i * dim + i];
    }
    for (int i = dim - 1; i >= 0; i--) { // L^T w = y
        for (int k = i + 1; k < dim; k++)
            w[i] -= gram[k * dim + i] * w[k];
        w[i] /= gram[i * dim + i];
    }

    apsm_filter f;
    f.antennas = antennas;
    f.linear_weight = 1;
    f.gaussian_weight = 0;
    f.variance = 1;
    f.lin = w;
    f.noise_variance = training_residual(f, rx, n, sent);
    return f;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
