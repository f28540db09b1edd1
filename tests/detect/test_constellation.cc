/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The constellation against TS 38.211 section 5.1's formulas, written out here
 * independently of the library's recursive form.
 */
#include "common/test_util.h"

#include <stdexcept>

using namespace gpumimo_test;

namespace {

// TS 38.211 5.1.3-5.1.7, verbatim.
std::complex<double> ts38211(int m, const std::vector<int>& b)
{
    auto s = [&](int k) { return 1.0 - 2.0 * b[k]; };
    switch (m) {
    case 2:
        return { s(0) / std::sqrt(2.0), s(1) / std::sqrt(2.0) };
    case 4:
        return { s(0) * (2 - s(2)) / std::sqrt(10.0),
                 s(1) * (2 - s(3)) / std::sqrt(10.0) };
    case 6:
        return { s(0) * (4 - s(2) * (2 - s(4))) / std::sqrt(42.0),
                 s(1) * (4 - s(3) * (2 - s(5))) / std::sqrt(42.0) };
    case 8:
        return { s(0) * (8 - s(2) * (4 - s(4) * (2 - s(6)))) / std::sqrt(170.0),
                 s(1) * (8 - s(3) * (4 - s(5) * (2 - s(7)))) / std::sqrt(170.0) };
    case 10: // 5.1.7
        return { s(0) * (16 - s(2) * (8 - s(4) * (4 - s(6) * (2 - s(8))))) / std::sqrt(682.0),
                 s(1) * (16 - s(3) * (8 - s(5) * (4 - s(7) * (2 - s(9))))) / std::sqrt(682.0) };
    }
    throw std::logic_error("bad m");
}

const modulation all_mods[] = {
    modulation::qpsk, modulation::qam16, modulation::qam64, modulation::qam256, modulation::qam1024
};

} // namespace

TEST(Constellation, MatchesTs38211AndIndexesBitsMsbFirst)
{
    for (modulation mod : all_mods) {
        const constellation c(mod);
        const int m = c.bits_per_symbol();
        for (int i = 0; i < c.size(); i++) {
            std::vector<int> b(m);
            for (int k = 0; k < m; k++)
                b[k] = (i >> (m - 1 - k)) & 1;
            const auto expect = ts38211(m, b);
            EXPECT_NEAR(c.point(i).real(), expect.real(), 1e-12)
                << to_string(mod) << " " << i;
            EXPECT_NEAR(c.point(i).imag(), expect.imag(), 1e-12)
                << to_string(mod) << " " << i;
            for (int k = 0; k < m; k++)
                EXPECT_EQ(c.bit(i, k), b[k]);
        }
    }
}

TEST(Constellation, UnitEnergyDistinctPointsAndGrayNeighbours)
{
    for (modulation mod : all_mods) {
        const constellation c(mod);
        double energy = 0.0;
        for (int i = 0; i < c.size(); i++)
            energy += std::norm(c.point(i));
        EXPECT_NEAR(energy / c.size(), 1.0, 1e-12) << to_string(mod);
        const double step = 2.0 * c.scale();
        for (int i = 0; i < c.size(); i++)
            for (int j = 0; j < c.size(); j++) {
                if (i == j)
                    continue;
                const double d = std::abs(c.point(i) - c.point(j));
                EXPECT_GT(d, step * 0.99);
                if (std::abs(d - step) < 1e-9) // nearest neighbours differ in one bit
                    EXPECT_EQ(__builtin_popcount(i ^ j), 1)
                        << to_string(mod) << " " << i << " " << j;
            }
    }
}

TEST(Constellation, PamLevelsDecomposeEveryPoint)
{
    for (modulation mod : all_mods) {
        const constellation c(mod);
        for (int i = 0; i < c.size(); i++) {
            const int li = c.in_phase_level(i), lq = c.quadrature_level(i);
            EXPECT_DOUBLE_EQ(c.pam_amplitude(li), c.point(i).real());
            EXPECT_DOUBLE_EQ(c.pam_amplitude(lq), c.point(i).imag());
            EXPECT_EQ(c.point_from_levels(li, lq), i);
        }
        for (int l = 1; l < c.pam_size(); l++)
            EXPECT_LT(c.pam_amplitude(l - 1), c.pam_amplitude(l));
    }
}

// TS 38.211 5.1.1 (pi/2-BPSK) and 5.1.2 (BPSK), verbatim: d(i) = e^{j pi/2 (i mod 2)} /
// sqrt(2) [(1 - 2b(i)) + j (1 - 2b(i))], without the turn for BPSK.
TEST(Constellation, BpskAndPi2BpskMatchTs38211)
{
    for (modulation mod : { modulation::bpsk, modulation::pi2_bpsk }) {
        const constellation c(mod);
        EXPECT_FALSE(c.square());
        EXPECT_EQ(c.bits_per_symbol(), 1);
        EXPECT_EQ(c.size(), 2);
        EXPECT_DOUBLE_EQ(c.max_energy(), 1.0);
        for (std::size_t i = 0; i < 6; i++)
            for (int b = 0; b < 2; b++) {
                const std::complex<double> turn =
                    mod == modulation::pi2_bpsk ? std::exp(std::complex<double>(0, M_PI / 2 * double(i % 2)))
                                                : 1.0;
                const std::complex<double> want =
                    turn / std::sqrt(2.0) * std::complex<double>(1 - 2 * b, 1 - 2 * b);
                const std::complex<double> got = c.point(b) * c.rotation(i);
                EXPECT_NEAR(got.real(), want.real(), 1e-12) << to_string(mod) << " i " << i << " b " << b;
                EXPECT_NEAR(got.imag(), want.imag(), 1e-12) << to_string(mod) << " i " << i << " b " << b;
                EXPECT_EQ(c.bit(b, 0), b);
            }
    }
    for (modulation mod : all_mods)
        EXPECT_TRUE(constellation(mod).square());
}

TEST(Constellation, ParsesNamesAndRejectsOthers)
{
    EXPECT_EQ(parse_modulation("QPSK"), modulation::qpsk);
    EXPECT_EQ(parse_modulation("4qam"), modulation::qpsk);
    EXPECT_EQ(parse_modulation("16qam"), modulation::qam16);
    EXPECT_EQ(parse_modulation("64QAM"), modulation::qam64);
    EXPECT_EQ(parse_modulation("256qam"), modulation::qam256);
    EXPECT_EQ(parse_modulation("1024QAM"), modulation::qam1024);
    EXPECT_EQ(parse_modulation("BPSK"), modulation::bpsk);
    EXPECT_EQ(parse_modulation("pi/2-BPSK"), modulation::pi2_bpsk);
    EXPECT_EQ(parse_modulation("pi2bpsk"), modulation::pi2_bpsk);
    for (modulation mod : all_mods)
        EXPECT_EQ(parse_modulation(to_string(mod)), mod);
    for (modulation mod : { modulation::bpsk, modulation::pi2_bpsk })
        EXPECT_EQ(parse_modulation(to_string(mod)), mod);
    EXPECT_THROW(parse_modulation("32qam"), std::invalid_argument);
    EXPECT_THROW(parse_modulation(""), std::invalid_argument);
}
