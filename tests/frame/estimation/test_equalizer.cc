/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mmse_equalize (core/frame/estimation/equalizer.h): noise-free symbols come back exactly on fresh
 * random channels (the unbiased MMSE is then the channel's inverse), with noise the
 * error is that of the unbiased MMSE filter (1 / SINR_k, SINR_k = 1 / [(H^H H / N0 +
 * I)^-1]_kk - 1, the closed form), and carriers whose H or N0 is not usable come out as
 * zeros, counted.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/constellation.h>
#include <gnuradio/gpumimo/core/frame/estimation/equalizer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {
struct carriers {
    int rx, tx, U;
    std::vector<cf> h, x, y; // h [U][rx][tx], x [tx][U], y [rx][U]
    std::vector<const cf*> yp;
    std::vector<cf> out;
    std::vector<cf*> op;
};

carriers make(std::mt19937_64& rng, int rx, int tx, int U, double n0)
{
    std::normal_distribution<float> g(0, std::sqrt(0.5f));
    const constellation c(modulation::qam16);
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    carriers s{ rx, tx, U };
    s.h.resize(std::size_t(U) * rx * tx);
    for (cf& v : s.h)
        v = cf(g(rng), g(rng));
    s.x.resize(std::size_t(tx) * U);
    for (cf& v : s.x)
        v = cf(c.point(pick(rng)));
    s.y.assign(std::size_t(rx) * U, 0);
    for (int u = 0; u < U; u++)
        for (int r = 0; r < rx; r++) {
            cf acc = 0;
            for (int k = 0; k < tx; k++)
                acc += s.h[(std::size_t(u) * rx + r) * tx + k] * s.x[std::size_t(k) * U + u];
            s.y[std::size_t(r) * U + u] = acc + float(std::sqrt(n0)) * cf(g(rng), g(rng));
        }
    for (int r = 0; r < rx; r++)
        s.yp.push_back(&s.y[std::size_t(r) * U]);
    s.out.assign(std::size_t(tx) * U, cf(NAN, NAN)); // poisoned
    for (int k = 0; k < tx; k++)
        s.op.push_back(&s.out[std::size_t(k) * U]);
    return s;
}
} // namespace

TEST(Equalizer, NoiseFreeSymbolsComeBack)
{
    auto rng = make_rng(1801);
    for (auto [rx, tx] : { std::pair{ 1, 1 }, std::pair{ 4, 2 }, std::pair{ 4, 4 }, std::pair{ 8, 3 } }) {
        carriers s = make(rng, rx, tx, 64, 0.0);
        const std::vector<float> n0(64, 1e-9f);
        EXPECT_EQ(mmse_equalize(s.h.data(), n0.data(), rx, tx, 64, s.yp.data(), s.op.data()), 0u);
        for (std::size_t i = 0; i < s.x.size(); i++)
            ASSERT_LT(std::abs(s.out[i] - s.x[i]), 2e-3) << rx << "x" << tx << " " << i;
    }
}

TEST(Equalizer, ErrorIsTheUnbiasedMmsesOwn)
{
    // Unbiased MMSE's error variance on stream k is 1 / SINR_k with
    // SINR_k = 1 / [(H^H H / N0 + I)^-1]_kk - 1: over many carriers of 2x4 at N0 = 0.1
    // the mean squared error matches the mean of that within 10%.
    auto rng = make_rng(1802);
    const int rx = 4, tx = 2, U = 4000;
    const double n0 = 0.1;
    carriers s = make(rng, rx, tx, U, n0);
    const std::vector<float> noise(U, float(n0));
    mmse_equalize(s.h.data(), noise.data(), rx, tx, U, s.yp.data(), s.op.data());
    double mse = 0, want = 0;
    for (int u = 0; u < U; u++) {
        // A = H^H H / N0 + I, 2x2 closed-form inverse diagonal.
        std::complex<double> a[2][2] = {};
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                for (int r = 0; r < rx; r++)
                    a[i][j] += std::conj(std::complex<double>(s.h[(std::size_t(u) * rx + r) * tx + i])) *
                               std::complex<double>(s.h[(std::size_t(u) * rx + r) * tx + j]);
                a[i][j] = a[i][j] / n0 + (i == j ? 1.0 : 0.0);
            }
        const double det = (a[0][0] * a[1][1] - a[0][1] * a[1][0]).real();
        const double inv[2] = { a[1][1].real() / det, a[0][0].real() / det };
        for (int k = 0; k < 2; k++) {
            want += 1 / (1 / inv[k] - 1);
            mse += std::norm(std::complex<double>(s.out[std::size_t(k) * U + u]) -
                             std::complex<double>(s.x[std::size_t(k) * U + u]));
        }
    }
    EXPECT_NEAR(mse / want, 1.0, 0.1);
}

TEST(Equalizer, UnusableCarriersAreZeros)
{
    auto rng = make_rng(1803);
    carriers s = make(rng, 2, 2, 4, 0.01);
    std::vector<float> noise(4, 0.01f);
    noise[1] = 0.0f;                                         // N0 not > 0
    s.h[2 * 4] = cf(NAN, 0);                                 // carrier 2 not finite
    for (int i = 0; i < 4; i++)
        s.h[3 * 4 + i] = cf(1, 0); // carrier 3 rank 1: MMSE (N0 > 0) still answers
    EXPECT_EQ(mmse_equalize(s.h.data(), noise.data(), 2, 2, 4, s.yp.data(), s.op.data()), 2u);
    for (int k = 0; k < 2; k++) {
        for (int c : { 1, 2 })
            EXPECT_EQ(s.out[std::size_t(k) * 4 + c], cf(0, 0));
        for (int c : { 0, 3 })
            EXPECT_TRUE(std::isfinite(s.out[std::size_t(k) * 4 + c].real()));
    }
    EXPECT_THROW(mmse_equalize(s.h.data(), noise.data(), 1, 2, 4, s.yp.data(), s.op.data()),
                 std::invalid_argument);
}
