/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Uncoded BER of 4x4 16-QAM over i.i.d. Rayleigh channels at fixed SNRs, every detector
 * on the same problems (paired comparison), against ML.
 *
 * Margins. With E errors counted, a BER estimate has a relative standard deviation of
 * about 1/sqrt(E) (bit errors cluster in vectors, so take it as 2/sqrt(E) to be safe).
 * Each SNR point runs enough vectors for ML to make several hundred errors, so a
 * 3-sigma band is about 3 * 2/sqrt(E) * E = 6 sqrt(E) errors. "Worse than ML" asks for
 * more errors than ML by at least that band; "close to ML" allows the band plus a
 * modelling margin of 20% (nway with N = nt and K-best with K = 64 are near-ML but
 * not ML: measured 0-4% above ML here, mtt 5-30%, see docs/detectors/).
 */
#include "common/test_util.h"

using namespace gpumimo_test;

namespace {

struct ber_row {
    double snr;
    std::size_t bits;
    std::size_t ml, zf, mmse, kbest, nway, nway1, mtt;
};

ber_row measure(std::mt19937_64& rng, double snr, std::size_t vectors)
{
    const modulation mod = modulation::qam16;
    const constellation c(mod);
    const problems p = make_problems(rng, c, 4, 4, vectors, snr, 1);
    detector_params params;
    params.kbest.k = 64;
    detector_params one_pass;
    one_pass.nway.passes = 1;
    auto errors = [&](algorithm a, const detector_params& prm) {
        return bit_errors(run_detector(cpu_detector(a, mod, 4, 4, prm), p), p.bits);
    };
    ber_row r;
    r.snr = snr;
    r.bits = p.bits.size();
    r.ml = errors(algorithm::ml, params);
    r.zf = errors(algorithm::zf, params);
    r.mmse = errors(algorithm::mmse, params);
    r.kbest = errors(algorithm::kbest, params);
    r.nway = errors(algorithm::nway, params); // N = nt = 4
    r.nway1 = errors(algorithm::nway, one_pass);
    r.mtt = errors(algorithm::mtt, params);
    std::printf("snr %4.1f dB, %zu bits: ml %zu zf %zu mmse %zu kbest64 %zu nway4 %zu "
                "nway1 %zu mtt %zu\n",
                snr,
                r.bits,
                r.ml,
                r.zf,
                r.mmse,
                r.kbest,
                r.nway,
                r.nway1,
                r.mtt);
    return r;
}

double band(std::size_t e)
{
    return 6.0 * std::sqrt(double(std::max<std::size_t>(e, 1)));
}

} // namespace

TEST(Ber, Qam16x4Rayleigh)
{
    auto rng = make_rng(71);
    // (SNR, vectors): ML makes several hundred errors or more at each point. Below
    // about 12 dB MMSE comes within noise of ML, so the points start at 14 dB.
    for (auto [snr, vectors] : { std::pair<double, std::size_t>{ 14.0, 2000 },
                                 { 18.0, 4000 },
                                 { 22.0, 12000 } }) {
        const ber_row r = measure(rng, snr, vectors);
        ASSERT_GT(r.ml, 100u) << "too few ML errors for a meaningful comparison";
        EXPECT_GT(double(r.zf), r.ml + band(r.ml))
            << "zf should be worse than ml at " << snr;
        EXPECT_GT(double(r.mmse), r.ml + band(r.ml))
            << "mmse should be worse than ml at " << snr;
        EXPECT_GE(r.zf, r.mmse) << "zf should not beat mmse at " << snr;
        EXPECT_LE(double(r.nway), 1.2 * r.ml + band(r.ml))
            << "nway N=4 far from ml at " << snr;
        EXPECT_LE(double(r.kbest), 1.2 * r.ml + band(r.ml))
            << "kbest K=64 far from ml at " << snr;
        EXPECT_LE(double(r.nway), double(r.nway1) + band(r.nway1))
            << "N=4 should not lose to N=1";
    }
}
