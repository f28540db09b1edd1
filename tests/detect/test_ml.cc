/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ml against a brute force written here: every candidate vector, its metric
 * ||y - Hs||^2 computed directly, per-bit minima, LLR = (min0 - min1) / N0.
 */
#include "common/test_util.h"

using namespace gpumimo_test;

namespace {

std::vector<double>
brute_force_llr(const constellation& c, const problems& p, std::size_t b)
{
    const int nt = p.nt, nr = p.nr, m = c.bits_per_symbol(), q = c.size();
    const cf32* h = &p.h[(b / p.group) * nr * nt];
    std::vector<double> min0(nt * m, 1e300), min1(nt * m, 1e300);
    std::size_t total = 1;
    for (int t = 0; t < nt; t++)
        total *= q;
    std::vector<int> s(nt);
    for (std::size_t idx = 0; idx < total; idx++) {
        std::size_t rest = idx;
        for (int t = 0; t < nt; t++) {
            s[t] = int(rest % q);
            rest /= q;
        }
        double d = 0;
        for (int r = 0; r < nr; r++) {
            std::complex<double> e(p.y[b * nr + r]);
            for (int t = 0; t < nt; t++)
                e -= std::complex<double>(h[r * nt + t]) * c.point(s[t]);
            d += std::norm(e);
        }
        for (int t = 0; t < nt; t++)
            for (int k = 0; k < m; k++) {
                double& slot = c.bit(s[t], k) ? min1[t * m + k] : min0[t * m + k];
                slot = std::min(slot, d);
            }
    }
    std::vector<double> llr(nt * m);
    for (int i = 0; i < nt * m; i++)
        llr[i] = (min0[i] - min1[i]) / p.noise[b / p.group];
    return llr;
}

} // namespace

TEST(Ml, EqualsBruteForce)
{
    auto rng = make_rng(21);
    struct cfg {
        int nt, nr;
        modulation mod;
    };
    const cfg cfgs[] = { { 1, 1, modulation::qpsk },  { 2, 2, modulation::qpsk },
                         { 3, 3, modulation::qpsk },  { 2, 4, modulation::qam16 },
                         { 2, 2, modulation::qam64 }, { 1, 3, modulation::qam256 },
                         { 4, 4, modulation::qpsk } };
    for (const cfg& k : cfgs) {
        const constellation c(k.mod);
        const cpu_detector det(algorithm::ml, k.mod, k.nt, k.nr);
        for (double snr : { 0.0, 10.0, 25.0 }) {
            const problems p = make_problems(rng, c, k.nt, k.nr, 40, snr, 3);
            const std::vector<float> llr = run_detector(det, p);
            for (std::size_t b = 0; b < p.batch; b++) {
                const std::vector<double> expect = brute_force_llr(c, p, b);
                for (std::size_t i = 0; i < expect.size(); i++)
                    ASSERT_NEAR(llr[b * expect.size() + i],
                                expect[i],
                                1e-4 * std::abs(expect[i]) + 1e-5)
                        << k.nt << "x" << k.nr << " " << to_string(k.mod) << " snr "
                        << snr << " vector " << b << " bit " << i;
            }
        }
    }
}

TEST(Ml, RefusesMoreThan2To24Candidates)
{
    EXPECT_NO_THROW(cpu_detector(algorithm::ml, modulation::qam64, 4, 4)); // 2^24
    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qam64, 5, 5),
                 std::invalid_argument);
    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qam256, 4, 4),
                 std::invalid_argument);
}
