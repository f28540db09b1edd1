/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How badly a channel's linear detectors round: zf and mmse invert the Gram matrix
 * H^H H (or its regularised form), so their float32 results drift from a float64
 * reference in proportion to its condition number. Tests of those detectors scale
 * their tolerance by it rather than fail on the rare near-singular random channel.
 */
#pragma once

#include <algorithm>
#include <complex>
#include <vector>

namespace gpumimo_test {

/*! ||G||_F ||G^-1||_F for the Gram matrix G = H^H H of one nr x nt channel h
 *  (row-major, h[r * nt + t]): an upper bound on G's 2-norm condition number
 *  kappa(H)^2. Gauss-Jordan with partial pivoting, in double. */
inline double gram_condition(const std::complex<float>* h, int nt, int nr)
{
    using cd = std::complex<double>;
    std::vector<cd> g(std::size_t(nt * nt)), inv(std::size_t(nt * nt));
    double g2 = 0;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) {
            cd s = 0;
            for (int r = 0; r < nr; r++)
                s += std::conj(cd(h[r * nt + i])) * cd(h[r * nt + j]);
            g[std::size_t(i * nt + j)] = s;
            inv[std::size_t(i * nt + j)] = i == j ? 1.0 : 0.0;
            g2 += std::norm(s);
        }
    for (int k = 0; k < nt; k++) {
        int piv = k;
        for (int i = k + 1; i < nt; i++)
            if (std::abs(g[std::size_t(i * nt + k)]) > std::abs(g[std::size_t(piv * nt + k)]))
                piv = i;
        for (int j = 0; j < nt; j++) {
            std::swap(g[std::size_t(k * nt + j)], g[std::size_t(piv * nt + j)]);
            std::swap(inv[std::size_t(k * nt + j)], inv[std::size_t(piv * nt + j)]);
        }
        const cd d = g[std::size_t(k * nt + k)];
        for (int j = 0; j < nt; j++) {
            g[std::size_t(k * nt + j)] /= d;
            inv[std::size_t(k * nt + j)] /= d;
        }
        for (int i = 0; i < nt; i++)
            if (i != k) {
                const cd f = g[std::size_t(i * nt + k)];
                for (int j = 0; j < nt; j++) {
                    g[std::size_t(i * nt + j)] -= f * g[std::size_t(k * nt + j)];
                    inv[std::size_t(i * nt + j)] -= f * inv[std::size_t(k * nt + j)];
                }
            }
    }
    double i2 = 0;
    for (const cd& x : inv)
        i2 += std::norm(x);
    return std::sqrt(g2 * i2);
}

} // namespace gpumimo_test
