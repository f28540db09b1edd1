/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/linalg.h"
#include "common/test_util.h"

using namespace gpumimo_test;
namespace la = gr::gpumimo::core::linalg;

TEST(Linalg, SortedQrReconstructsPermutedChannel)
{
    auto rng = make_rng(11);
    std::normal_distribution<double> g(0.0, 1.0);
    for (int trial = 0; trial < 200; trial++) {
        const int nt = 1 + trial % 8, nr = nt + trial % 3;
        la::cmatrix h(nr, nt);
        for (auto& v : h.a)
            v = la::cd(g(rng), g(rng));
        for (bool sorted : { false, true }) {
            const auto qr = la::qr_complex(h, sorted);
            for (int r = 0; r < nr; r++)
                for (int c = 0; c < nt; c++) {
                    la::cd acc(0);
                    for (int k = 0; k < nt; k++)
                        acc += qr.q(r, k) * qr.r(k, c);
                    EXPECT_LT(std::abs(acc - h(r, qr.perm[c])), 1e-10);
                }
            for (int i = 0; i < nt; i++) {
                EXPECT_GT(qr.r(i, i).real(), 0.0);
                EXPECT_EQ(qr.r(i, i).imag(), 0.0);
                for (int j = 0; j < i; j++)
                    EXPECT_EQ(qr.r(i, j), la::cd(0));
            }
            if (sorted) // SQRD: step k takes the remaining column of least residual norm
                for (int k = 0; k < nt; k++)
                    for (int j = k + 1; j < nt; j++) {
                        double residual2 = 0.0;
                        for (int i = k; i <= j; i++)
                            residual2 += std::norm(qr.r(i, j));
                        EXPECT_LE(std::norm(qr.r(k, k)), residual2 * (1 + 1e-9));
                    }
        }
    }
}

TEST(Linalg, RealDecompositionPreservesTheModel)
{
    auto rng = make_rng(12);
    std::normal_distribution<double> g(0.0, 1.0);
    const int nt = 3, nr = 4;
    la::cmatrix h(nr, nt);
    for (auto& v : h.a)
        v = la::cd(g(rng), g(rng));
    std::vector<la::cd> s(nt);
    for (auto& v : s)
        v = la::cd(g(rng), g(rng));
    const std::vector<la::cd> y = la::multiply(h, s);
    for (auto order : { la::rvd_order::interleaved, la::rvd_order::stacked }) {
        const la::rmatrix hr = la::real_channel(h, order);
        const std::vector<double> sr = la::real_vector(s, order);
        const std::vector<double> yr = la::real_vector(y, order);
        for (int r = 0; r < 2 * nr; r++) {
            double acc = 0;
            for (int c = 0; c < 2 * nt; c++)
                acc += hr(r, c) * sr[c];
            EXPECT_NEAR(acc, yr[r], 1e-12);
        }
    }
}

TEST(Linalg, InverseTimesMatrixIsIdentity)
{
    auto rng = make_rng(13);
    std::normal_distribution<double> g(0.0, 1.0);
    for (int n = 1; n <= 8; n++) {
        la::cmatrix a(n, n);
        for (auto& v : a.a)
            v = la::cd(g(rng), g(rng));
        const la::cmatrix p = la::multiply(la::inverse(a), a);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                EXPECT_LT(std::abs(p(i, j) - (i == j ? 1.0 : 0.0)), 1e-9);
    }
}

TEST(Linalg, QrMinDiagonalIsTheQrsSmallestDiagonal)
{
    // The allocation-free rank check against qr_complex's R, bit for bit, on full-rank
    // channels and on ones with a column repeated or zeroed (R_kk at rounding level or
    // exactly 0), one work vector reused across sizes.
    auto rng = make_rng(14);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<la::cd> work;
    for (int trial = 0; trial < 300; trial++) {
        const int nt = 1 + trial % 8, nr = nt + trial % 3;
        std::vector<std::complex<float>> h(std::size_t(nr) * nt);
        for (auto& v : h)
            v = { g(rng), g(rng) };
        if (nt > 1 && trial % 5 == 1) // column 1 a copy of column 0
            for (int r = 0; r < nr; r++)
                h[std::size_t(r) * nt + 1] = h[std::size_t(r) * nt];
        if (trial % 7 == 2) // a zero column
            for (int r = 0; r < nr; r++)
                h[std::size_t(r) * nt + nt - 1] = 0.0f;
        const auto qr = la::qr_complex(la::load_channel(h.data(), nr, nt), false);
        double want = INFINITY;
        for (int k = 0; k < nt; k++)
            want = std::min(want, qr.r(k, k).real());
        EXPECT_EQ(la::qr_min_diagonal(h.data(), nr, nt, work), want)
            << nr << "x" << nt << ", trial " << trial;
    }
}
