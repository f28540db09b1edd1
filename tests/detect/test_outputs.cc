/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Batch layout and output conventions: groups sharing a channel, scalar versus
 * per-channel noise, threading, LLR scaling and sign, clipping, int8 and hard output.
 */
#include "common/test_util.h"

using namespace gpumimo_test;

namespace {
const algorithm all_algos[] = { algorithm::ml,    algorithm::zf,  algorithm::mmse,
                                algorithm::kbest, algorithm::mtt, algorithm::nway,
                                algorithm::psd };
}

TEST(Outputs, GroupedChannelsEqualRepeatedChannels)
{
    auto rng = make_rng(61);
    const constellation c(modulation::qam16);
    const std::size_t group = 5;
    const problems grouped =
        make_problems(rng, c, 3, 4, 23, 12.0, group); // 23: last group short
    problems repeated = grouped;
    repeated.group = 1;
    repeated.h.clear();
    repeated.noise.clear();
    for (std::size_t b = 0; b < grouped.batch; b++) {
        const std::size_t ch = b / group;
        repeated.h.insert(repeated.h.end(),
                          grouped.h.begin() + ch * 12,
                          grouped.h.begin() + (ch + 1) * 12);
        repeated.noise.push_back(grouped.noise[ch]);
    }
    for (algorithm a : all_algos) {
        const cpu_detector det(a, modulation::qam16, 3, 4);
        EXPECT_EQ(run_detector(det, grouped), run_detector(det, repeated))
            << to_string(a);
    }
}

TEST(Outputs, ScalarNoiseThreadsAndSign)
{
    auto rng = make_rng(62);
    const constellation c(modulation::qam64);
    const problems p = make_problems(rng, c, 2, 2, 101, 30.0, 1);
    const cpu_detector ml(algorithm::ml, modulation::qam64, 2, 2);
    const std::vector<float> per_channel = run_detector(ml, p, 1);
    EXPECT_EQ(run_detector(ml, p, 0), per_channel); // threads change nothing
    EXPECT_EQ(run_detector(ml, p, 7), per_channel);
    mimo_batch scalar = p.view();
    scalar.scalar_noise = true; // all channels have the same N0 here
    std::vector<float> llr(per_channel.size());
    ml.detect(scalar, llr.data());
    EXPECT_EQ(llr, per_channel);

    // Positive LLR means 1: at 30 dB ML decides nearly every bit right (BER about 1e-3);
    // a flipped sign would give a BER near 1.
    EXPECT_LT(bit_errors(per_channel, p.bits), p.bits.size() / 20);

    // Max-log LLRs scale with 1/N0.
    problems doubled = p;
    for (float& n : doubled.noise)
        n *= 2.0f;
    const std::vector<float> half = run_detector(ml, doubled);
    for (std::size_t i = 0; i < half.size(); i++)
        ASSERT_NEAR(
            half[i], per_channel[i] / 2.0f, 1e-4f * std::abs(per_channel[i]) + 1e-5f);
}

TEST(Outputs, ClippingInt8AndHardDecisions)
{
    auto rng = make_rng(63);
    const constellation c(modulation::qam16);
    const problems p = make_problems(rng, c, 4, 4, 64, 20.0, 2);
    detector_params clipped;
    clipped.llr_clip = 3.5f;
    for (algorithm a : all_algos) {
        const std::vector<float> raw =
            run_detector(cpu_detector(a, modulation::qam16, 4, 4), p);
        const std::vector<float> clip =
            run_detector(cpu_detector(a, modulation::qam16, 4, 4, clipped), p);
        for (std::size_t i = 0; i < raw.size(); i++)
            ASSERT_EQ(clip[i], std::clamp(raw[i], -3.5f, 3.5f)) << to_string(a);
    }
    const std::vector<float> llr = { -100.0f, -15.9f, -1.06f, -0.0f, 0.0f,
                                     0.03f,   0.07f,  2.5f,   40.0f };
    std::vector<std::int8_t> q(llr.size());
    llr_to_int8(llr.data(), llr.size(), default_int8_scale, q.data());
    EXPECT_EQ(q, (std::vector<std::int8_t>{ -127, -127, -8, 0, 0, 0, 1, 20, 127 }));
    EXPECT_THROW(llr_to_int8(llr.data(), llr.size(), 0.0f, q.data()),
                 std::invalid_argument);
    std::vector<std::uint8_t> bits(llr.size());
    hard_decisions(llr.data(), llr.size(), bits.data());
    EXPECT_EQ(bits, (std::vector<std::uint8_t>{ 0, 0, 0, 0, 0, 1, 1, 1, 1 }));
}

TEST(Outputs, PsdReportsItsDecisionAsClippedLlrs)
{
    auto rng = make_rng(64);
    const constellation c(modulation::qpsk);
    const problems p = make_problems(rng, c, 2, 2, 50, 10.0, 1);
    detector_params params;
    params.list_llr_clip = 6.0f;
    const std::vector<float> llr =
        run_detector(cpu_detector(algorithm::psd, modulation::qpsk, 2, 2, params), p);
    for (float v : llr)
        ASSERT_TRUE(v == 6.0f || v == -6.0f) << v;
}
