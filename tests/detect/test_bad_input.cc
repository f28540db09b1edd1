/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bad input gets std::invalid_argument and the output buffer is left untouched.
 */
#include "common/test_util.h"

using namespace gpumimo_test;

namespace {

const algorithm all_algos[] = { algorithm::ml,    algorithm::zf,  algorithm::mmse,
                                algorithm::kbest, algorithm::mtt, algorithm::nway,
                                algorithm::psd };

// Detecting p must throw invalid_argument for every algorithm, leaving the output as it
// was.
void expect_refused(const problems& p, const std::string& what)
{
    for (algorithm a : all_algos) {
        const cpu_detector det(a, modulation::qam16, p.nt, p.nr);
        std::vector<float> llr(p.batch * det.bits_per_vector(), 123.0f);
        EXPECT_THROW(det.detect(p.view(), llr.data()), std::invalid_argument)
            << what << " with " << to_string(a);
        for (float v : llr)
            ASSERT_EQ(v, 123.0f) << what << ": output touched by " << to_string(a);
    }
}

problems good(std::uint64_t salt)
{
    auto rng = make_rng(salt);
    return make_problems(rng, constellation(modulation::qam16), 2, 3, 10, 10.0, 2);
}

} // namespace

TEST(BadInput, NonFiniteSamples)
{
    for (float bad : { std::nanf(""), INFINITY, -INFINITY }) {
        problems p = good(51);
        p.y[7] = cf32(0.0f, bad);
        expect_refused(p, "non-finite y");
        p = good(52);
        p.h[4] = cf32(bad, 0.0f);
        expect_refused(p, "non-finite H");
    }
}

TEST(BadInput, RankDeficientChannel)
{
    problems p = good(53);
    cf32* h = &p.h[2 * p.nr * p.nt]; // the third channel: column 1 = 2 * column 0
    for (int r = 0; r < p.nr; r++)
        h[r * p.nt + 1] = 2.0f * h[r * p.nt + 0];
    expect_refused(p, "rank-deficient H");
    problems z = good(54);
    std::fill(z.h.begin(), z.h.begin() + z.nr * z.nt, cf32(0.0f));
    expect_refused(z, "all-zero H");
}

TEST(BadInput, NoiseVariance)
{
    for (float bad : { 0.0f, -1.0f, std::nanf(""), INFINITY }) {
        problems p = good(55);
        p.noise[1] = bad;
        expect_refused(p, "noise_var " + std::to_string(bad));
    }
}

TEST(BadInput, ShapesAndConfiguration)
{
    problems p = good(56);
    const cpu_detector det(algorithm::mtt, modulation::qam16, 2, 2); // made for nr = 2
    std::vector<float> llr(p.batch * det.bits_per_vector(), 1.0f);
    EXPECT_THROW(det.detect(p.view(), llr.data()), std::invalid_argument);
    mimo_batch zero_group = p.view();
    zero_group.group = 0;
    const cpu_detector det23(algorithm::mtt, modulation::qam16, 2, 3);
    EXPECT_THROW(det23.detect(zero_group, llr.data()), std::invalid_argument);
    mimo_batch null_y = p.view();
    null_y.y = nullptr;
    EXPECT_THROW(det23.detect(null_y, llr.data()), std::invalid_argument);

    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qpsk, 0, 1),
                 std::invalid_argument);
    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qpsk, 9, 9),
                 std::invalid_argument);
    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qpsk, 3, 2),
                 std::invalid_argument);
    EXPECT_THROW(cpu_detector(algorithm::ml, modulation::qpsk, 2, 17),
                 std::invalid_argument);
    detector_params bad;
    bad.kbest.k = 0;
    EXPECT_THROW(cpu_detector(algorithm::kbest, modulation::qpsk, 2, 2, bad),
                 std::invalid_argument);
    bad = detector_params();
    bad.nway.passes = 3;
    EXPECT_THROW(cpu_detector(algorithm::nway, modulation::qpsk, 2, 2, bad),
                 std::invalid_argument);
    bad = detector_params();
    bad.list_llr_clip = 0.0f;
    EXPECT_THROW(cpu_detector(algorithm::nway, modulation::qpsk, 2, 2, bad),
                 std::invalid_argument);
    bad = detector_params();
    bad.llr_clip = -1.0f;
    EXPECT_THROW(cpu_detector(algorithm::zf, modulation::qpsk, 2, 2, bad),
                 std::invalid_argument);
    EXPECT_THROW(parse_algorithm("sphere"), std::invalid_argument);
    EXPECT_EQ(parse_algorithm("nway"), algorithm::nway);
}

TEST(BadInput, EmptyBatchIsFine)
{
    const cpu_detector det(algorithm::mmse, modulation::qpsk, 2, 2);
    mimo_batch b;
    b.nt = 2;
    b.nr = 2;
    EXPECT_NO_THROW(det.detect(b, nullptr));
}

// Every detector gives finite LLRs for every finite input, degenerate N0 included
// (N0 = 1e-38 overflowed ml, zf, mmse and mtt to Inf; N0 1e16 times the signal made
// mmse's gain 1 - N0 A_kk cancel to 0 and bit_minima throw, which killed the fused
// receiver's thread).
TEST(BadInput, DegenerateNoiseGivesFiniteLlrs)
{
    for (double n0 : { 1e-38, 1e-30, 1e16, 1e30 })
        for (algorithm a : all_algos) {
            problems p = good(61);
            std::fill(p.noise.begin(), p.noise.end(), float(n0));
            const cpu_detector det(a, modulation::qam16, p.nt, p.nr);
            const std::vector<float> llr = run_detector(det, p); // NaN-poisoned, checked
            for (float v : llr)
                ASSERT_LE(std::fabs(v), llr_limit) << to_string(a) << " N0 " << n0;
            if (n0 >= 1e16 && (a == algorithm::zf || a == algorithm::mmse || a == algorithm::ml))
                for (float v : llr) // no information left at -150 dB
                    ASSERT_LT(std::fabs(v), 1e-6f) << to_string(a) << " N0 " << n0;
        }
}

// At -150 dB the MMSE LLRs are those of the exact formula, near zero but signed as
// ZF's (both equalisers' outputs point the same way for one stream).
TEST(BadInput, MmseAtVeryLowSnrStaysCalibrated)
{
    problems p = good(62);
    std::fill(p.noise.begin(), p.noise.end(), 1e16f);
    const cpu_detector mmse(algorithm::mmse, modulation::qam16, p.nt, p.nr);
    const std::vector<float> llr = run_detector(mmse, p);
    std::size_t nonzero = 0;
    for (float v : llr)
        nonzero += v != 0.0f;
    EXPECT_GT(nonzero, llr.size() / 2) << "the LLRs are tiny, not erased";
}

// y far beyond what H and N0 explain (1e12 times in amplitude, within the sample range)
// loses the hypotheses' differences to rounding: refused, never all-zero LLRs.
TEST(BadInput, VectorOutOfItsModelsRange)
{
    problems p = good(63);
    for (int r = 0; r < p.nr; r++)
        p.y[4 * p.nr + r] *= 1e12f;
    expect_refused(p, "y 1e12 times too large");
    for (algorithm a : all_algos) {
        const cpu_detector det(a, modulation::qam16, p.nt, p.nr);
        std::vector<float> llr(p.batch * det.bits_per_vector());
        try {
            det.detect(p.view(), llr.data());
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("y[4]"), std::string::npos) << e.what();
        }
    }
    // 60 dB above its model (an interferer the model does not know) is still detected.
    problems q = good(64);
    for (int r = 0; r < q.nr; r++)
        q.y[4 * q.nr + r] *= 1e3f;
    for (algorithm a : all_algos)
        run_detector(cpu_detector(a, modulation::qam16, q.nt, q.nr), q);
}

TEST(BadInput, SamplesBeyondTheSampleRange)
{
    for (float big : { 3e38f, -2e15f }) {
        problems p = good(65);
        p.y[3] = cf32(big, 0.0f);
        expect_refused(p, "huge y");
        p = good(66);
        p.h[5] = cf32(0.0f, big);
        expect_refused(p, "huge H");
    }
    EXPECT_TRUE(is_usable(cf32(1e15f, -1e15f)));
    EXPECT_FALSE(is_usable(cf32(1.01e15f, 0.0f)));
}
