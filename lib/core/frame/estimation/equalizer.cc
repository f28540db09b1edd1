/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Per-stream MMSE-equalised symbols for constellation displays (core/frame/estimation/equalizer.h).
 */
#include "common/linalg.h"

#include <gnuradio/gpumimo/core/frame/estimation/equalizer.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

std::size_t mmse_equalizer::set_channel(const std::complex<float>* h,
                                        const float* noise,
                                        int rx,
                                        int tx,
                                        int carriers)
{
    if (rx < 1 || tx < 1 || tx > rx || carriers < 0)
        throw std::invalid_argument("mmse_equalize: want 1 <= tx <= rx and carriers >= 0");
    using linalg::cd;
    d_rx = rx;
    d_tx = tx;
    d_carriers = carriers;
    d_filter.assign(std::size_t(carriers) * tx * rx, 0.0);
    std::size_t unusable = 0;
    for (int c = 0; c < carriers; c++) {
        const double n0 = noise[c];
        bool ok = std::isfinite(n0) && n0 > 0;
        const linalg::cmatrix H = linalg::load_channel(h + std::size_t(c) * rx * tx, rx, tx);
        for (const cd& v : H.a)
            ok = ok && std::isfinite(v.real()) && std::isfinite(v.imag());
        if (ok) {
            try {
                const linalg::cmatrix Hh = linalg::conj_transpose(H);
                linalg::cmatrix G = linalg::multiply(Hh, H); // H^H H + N0 I
                for (int k = 0; k < tx; k++)
                    G(k, k) += n0;
                const linalg::cmatrix W = linalg::multiply(linalg::inverse(G), Hh);
                const linalg::cmatrix bias = linalg::multiply(W, H); // diag: w_k^H h_k
                cd* f = &d_filter[std::size_t(c) * tx * rx];
                for (int k = 0; k < tx; k++)
                    for (int r = 0; r < rx; r++)
                        f[std::size_t(k) * rx + r] = W(k, r) / bias(k, k);
                continue;
            } catch (const std::invalid_argument&) { // singular
            }
        }
        unusable++; // its filters stay 0
    }
    return unusable;
}

void mmse_equalizer::apply(const std::complex<float>* const* y,
                           std::complex<float>* const* out) const
{
    for (int c = 0; c < d_carriers; c++) {
        const std::complex<double>* f = &d_filter[std::size_t(c) * d_tx * d_rx];
        for (int k = 0; k < d_tx; k++) {
            std::complex<double> s = 0;
            for (int r = 0; r < d_rx; r++)
                s += f[std::size_t(k) * d_rx + r] * std::complex<double>(y[r][c]);
            out[k][c] = std::complex<float>(s);
        }
    }
}

std::size_t mmse_equalize(const std::complex<float>* h,
                          const float* noise,
                          int rx,
                          int tx,
                          int carriers,
                          const std::complex<float>* const* y,
                          std::complex<float>* const* out)
{
    mmse_equalizer e;
    const std::size_t unusable = e.set_channel(h, noise, rx, tx, carriers);
    e.apply(y, out);
    return unusable;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
