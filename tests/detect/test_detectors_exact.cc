/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Cases where a detector must reproduce exhaustive max-log ML exactly:
 *  - mtt for nt = 2 (its two lists are the exact per-point minima; the paper's claim);
 *  - every detector for nt = 1 (zf and mmse are then ML up to a constant; the searches
 *    enumerate the one symbol fully);
 *  - kbest with K at least the number of transmit vectors (nothing is pruned).
 * Tolerance: both sides run in double precision and round to float at the end, so
 * 1e-4 relative (plus 1e-5 absolute for LLRs near zero) is loose by orders of magnitude.
 */
#include "common/test_util.h"

using namespace gpumimo_test;

namespace {

void expect_same_llrs(const std::vector<float>& got,
                      const std::vector<float>& ml,
                      const std::string& what)
{
    ASSERT_EQ(got.size(), ml.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < ml.size(); i++)
        if (std::abs(got[i] - ml[i]) > 1e-4f * std::abs(ml[i]) + 1e-5f && bad++ < 5)
            ADD_FAILURE() << what << ": LLR " << i << " is " << got[i] << ", ml says "
                          << ml[i];
    EXPECT_EQ(bad, 0u) << what;
}

const double snrs[] = { 0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0 };

} // namespace

TEST(Exact, Mtt2x2EqualsMl)
{
    auto rng = make_rng(31);
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(mod);
        const cpu_detector ml(algorithm::ml, mod, 2, 2);
        const cpu_detector mtt(algorithm::mtt, mod, 2, 2);
        for (double snr : snrs) {
            const problems p = make_problems(rng, c, 2, 2, 300, snr, 5);
            expect_same_llrs(run_detector(mtt, p),
                             run_detector(ml, p),
                             "mtt 2x2 " + to_string(mod) + " at " + std::to_string(snr) +
                                 " dB");
        }
    }
}

// 1024-QAM: ML over 2^20 candidates per vector, so a few vectors.
TEST(Exact, Mtt2x2EqualsMlOn1024Qam)
{
    auto rng = make_rng(37);
    const constellation c(modulation::qam1024);
    const cpu_detector ml(algorithm::ml, modulation::qam1024, 2, 2);
    const cpu_detector mtt(algorithm::mtt, modulation::qam1024, 2, 2);
    for (double snr : { 10.0, 35.0 }) {
        const problems p = make_problems(rng, c, 2, 2, 6, snr, 2);
        expect_same_llrs(run_detector(mtt, p), run_detector(ml, p),
                         "mtt 2x2 1024qam at " + std::to_string(snr) + " dB");
    }
}

// BPSK and pi/2-BPSK: ml, zf, mmse and mtt take them (zf, mmse and mtt are ML for one
// stream, mtt for two); the lattice searches refuse them by name. pi/2-BPSK's vectors
// are BPSK turned by j where their index is odd: detected as pi/2-BPSK they give the
// LLRs of the turned-back vectors detected as BPSK.
TEST(Exact, BpskAndPi2BpskOnTheDetectorsThatTakeThem)
{
    auto rng = make_rng(38);
    detector_params params;
    params.list_llr_clip = 1e30f;
    for (modulation mod : { modulation::bpsk, modulation::pi2_bpsk }) {
        const constellation c(mod);
        for (const auto& [nt, nr] : { std::pair<int, int>(1, 2), { 2, 2 }, { 3, 4 } }) {
            const cpu_detector ml(algorithm::ml, mod, nt, nr);
            for (double snr : { 0.0, 10.0, 25.0 }) {
                const problems p = make_problems(rng, c, nt, nr, 101, snr, 3);
                const std::vector<float> ref = run_detector(ml, p);
                for (float v : ref)
                    ASSERT_TRUE(std::isfinite(v));
                std::vector<algorithm> exact{ algorithm::mtt };
                if (nt == 1)
                    exact = { algorithm::zf, algorithm::mmse, algorithm::mtt };
                if (nt <= 2)
                    for (algorithm a : exact)
                        expect_same_llrs(run_detector(cpu_detector(a, mod, nt, nr, params), p), ref,
                                         to_string(a) + " " + std::to_string(nt) + "x" +
                                             std::to_string(nr) + " " + to_string(mod));
                for (algorithm a : { algorithm::zf, algorithm::mmse, algorithm::mtt }) // finite
                    for (float v : run_detector(cpu_detector(a, mod, nt, nr), p))
                        ASSERT_TRUE(std::isfinite(v)) << to_string(a);
                if (mod != modulation::pi2_bpsk)
                    continue;
                problems turned_back = p; // odd vectors times -j: BPSK
                for (std::size_t b = 1; b < p.batch; b += 2)
                    for (int r = 0; r < nr; r++)
                        turned_back.y[b * nr + r] *= cf32(0, -1);
                expect_same_llrs(ref, run_detector(cpu_detector(algorithm::ml, modulation::bpsk, nt, nr), turned_back),
                                 "pi/2-BPSK against BPSK turned back");
            }
        }
        for (algorithm a : { algorithm::kbest, algorithm::nway, algorithm::psd })
            try {
                cpu_detector(a, mod, 2, 2);
                ADD_FAILURE() << to_string(a) << " took " << to_string(mod);
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find(to_string(mod)), std::string::npos) << e.what();
                EXPECT_NE(std::string(e.what()).find("square-QAM"), std::string::npos) << e.what();
            }
    }
}

TEST(Exact, Mtt2x4EqualsMl)
{
    auto rng = make_rng(32);
    const constellation c(modulation::qam16);
    const cpu_detector ml(algorithm::ml, modulation::qam16, 2, 4);
    const cpu_detector mtt(algorithm::mtt, modulation::qam16, 2, 4);
    const problems p = make_problems(rng, c, 2, 4, 500, 8.0, 7);
    expect_same_llrs(run_detector(mtt, p), run_detector(ml, p), "mtt 2x4 16qam");
}

TEST(Exact, EveryDetectorEqualsMlForOneStream)
{
    auto rng = make_rng(33);
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64,
                            modulation::qam256, modulation::qam1024 }) {
        const constellation c(mod);
        detector_params params;
        params.list_llr_clip = 1e30f; // no clipping: compare the raw minima
        params.kbest.k = c.pam_size() * c.pam_size();
        const cpu_detector ml(algorithm::ml, mod, 1, 2);
        for (double snr : { 0.0, 12.0, 30.0 }) {
            const problems p = make_problems(rng, c, 1, 2, 200, snr, 3);
            const std::vector<float> ref = run_detector(ml, p);
            for (algorithm a : { algorithm::zf,
                                 algorithm::mmse,
                                 algorithm::kbest,
                                 algorithm::mtt,
                                 algorithm::nway })
                expect_same_llrs(run_detector(cpu_detector(a, mod, 1, 2, params), p),
                                 ref,
                                 to_string(a) + " 1x2 " + to_string(mod));
        }
    }
}

TEST(Exact, KbestWithoutPruningEqualsMl)
{
    auto rng = make_rng(34);
    struct cfg {
        int nt;
        modulation mod;
        int k;
    };
    // K = |Q|^nt: every transmit vector survives to the last level.
    for (const cfg& k : { cfg{ 2, modulation::qpsk, 16 },
                          cfg{ 2, modulation::qam16, 256 },
                          cfg{ 3, modulation::qpsk, 64 } }) {
        const constellation c(k.mod);
        detector_params params;
        params.kbest.k = k.k;
        params.list_llr_clip = 1e30f;
        const cpu_detector ml(algorithm::ml, k.mod, k.nt, k.nt);
        const cpu_detector kb(algorithm::kbest, k.mod, k.nt, k.nt, params);
        const problems p = make_problems(rng, c, k.nt, k.nt, 200, 6.0, 2);
        expect_same_llrs(
            run_detector(kb, p), run_detector(ml, p), "kbest full " + to_string(k.mod));
    }
}

TEST(Exact, LargeSystemsWriteEveryLlrFinite)
{
    // Beyond the exact cases the list detectors approximate ML (their BER is checked in
    // test_ber). Here: 4x4 and 8x8 with nr > nt, every LLR written and finite
    // (run_detector poisons the output with NaN first).
    auto rng = make_rng(35);
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(mod);
        for (int nt : { 4, 8 }) {
            const problems p = make_problems(rng, c, nt, nt + 1, 64, 10.0, 4);
            for (algorithm a : { algorithm::mtt,
                                 algorithm::nway,
                                 algorithm::kbest,
                                 algorithm::zf,
                                 algorithm::mmse })
                run_detector(cpu_detector(a, mod, nt, nt + 1), p);
        }
    }
}

// The one-pass trellis (mtt_one_pass): one stream is exactly ML (OT's single list), the
// rest comes from Q paths with clipping. For nt = 1 that list is the whole
// constellation: ML clipped to +-list_llr_clip. For 2x2 every vertex of the last stage
// keeps its best path over the other stream's points, so the stream detected there (one
// of the two, by the sorted QR) gets ML's clipped LLRs and the other stays within the
// clip.
TEST(Exact, MttOnePassIsMlWhereItsListIsComplete)
{
    auto rng = make_rng(36);
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(mod);
        const int m = c.bits_per_symbol();
        detector_params ot;
        ot.mtt.one_pass = true;
        ot.list_llr_clip = 6.0f;
        detector_params clipped;
        clipped.llr_clip = 6.0f;
        for (double snr : { 0.0, 10.0, 25.0 }) {
            const problems one = make_problems(rng, c, 1, 2, 200, snr, 3);
            expect_same_llrs(run_detector(cpu_detector(algorithm::mtt, mod, 1, 2, ot), one),
                             run_detector(cpu_detector(algorithm::ml, mod, 1, 2, clipped), one),
                             "one-pass 1x2 " + to_string(mod));

            const problems two = make_problems(rng, c, 2, 2, 200, snr, 1);
            const std::vector<float> got =
                run_detector(cpu_detector(algorithm::mtt, mod, 2, 2, ot), two);
            const std::vector<float> ml =
                run_detector(cpu_detector(algorithm::ml, mod, 2, 2, clipped), two);
            std::size_t vectors_with_ml_stream = 0, clipped_ones = 0;
            for (std::size_t v = 0; v < two.batch; v++) {
                bool stream_equal[2] = { true, true };
                for (int s = 0; s < 2; s++)
                    for (int b = 0; b < m; b++) {
                        const std::size_t i = v * 2 * m + s * m + b;
                        ASSERT_LE(std::abs(got[i]), 6.0f);
                        clipped_ones += std::abs(got[i]) == 6.0f;
                        stream_equal[s] &= std::abs(got[i] - ml[i]) <= 1e-4f * std::abs(ml[i]) + 1e-5f;
                    }
                vectors_with_ml_stream += stream_equal[0] || stream_equal[1];
            }
            EXPECT_EQ(vectors_with_ml_stream, two.batch) << to_string(mod) << " at " << snr;
            if (snr >= 10.0)
                EXPECT_GT(clipped_ones, 0u) << "no LLR met the clip: the test proves little";
        }
    }
}
