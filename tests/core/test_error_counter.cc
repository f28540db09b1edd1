/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PRBS bit-error tester (core/error_counter.h): errors placed at random positions
 * are counted exactly, through lost frames (resynchronisation) and without; LLR
 * statistics against a direct count.
 */
#include "test_util.h"

#include <gnuradio/gpumimo/core/error_counter.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;

TEST(ErrorCounter, CountsPlacedErrorsAcrossLostFrames)
{
    auto rng = make_rng(1501);
    const std::size_t frame = 960;
    const std::uint32_t seed = std::uint32_t(rng()) | 1u;
    prbs tx(23, seed);
    prbs_error_counter counter(23, seed, frame);
    std::uint64_t placed = 0, placed_frames = 0, received = 0, losses = 0;
    std::uniform_int_distribution<int> errors_in_frame(0, 3);
    std::uniform_int_distribution<std::size_t> where(0, frame - 1);
    std::vector<std::uint8_t> bits(frame);
    for (int f = 0; f < 200; f++) {
        tx.fill(bits.data(), frame);
        if (f % 17 == 5) {
            losses++;
            continue; // lost: the receiver never sees it
        }
        // Errors anywhere but the first 23 bits of a frame after a loss, which the
        // tester needs right to resynchronise (documented).
        const bool after_loss = f % 17 == 6;
        const int e = errors_in_frame(rng);
        std::vector<char> flipped(frame, 0);
        for (int i = 0; i < e; i++) {
            std::size_t at = where(rng);
            if (after_loss && at < 23)
                at += 23;
            if (!flipped[at]) {
                flipped[at] = 1;
                bits[at] ^= 1u;
                placed++;
            }
        }
        placed_frames += std::count(flipped.begin(), flipped.end(), 1) > 0;
        const std::size_t counted = counter.add_frame(bits.data());
        ASSERT_EQ(counted, std::size_t(std::count(flipped.begin(), flipped.end(), 1)))
            << "frame " << f;
        received++;
    }
    EXPECT_EQ(counter.frames(), received);
    EXPECT_EQ(counter.bit_errors(), placed);
    EXPECT_EQ(counter.frame_errors(), placed_frames);
    EXPECT_EQ(counter.bits(), received * frame);
    EXPECT_EQ(counter.resynchronisations(), losses); // frames 6, 23, ..., 193
    EXPECT_EQ(counter.unsynchronised_frames(), 0u);
}

TEST(ErrorCounter, RandomBitsAreHalfWrongAndUnsynchronised)
{
    auto rng = make_rng(1502);
    prbs_error_counter counter(23, 77, 2000);
    std::vector<std::uint8_t> bits(2000);
    std::bernoulli_distribution coin(0.5);
    for (int f = 0; f < 10; f++) {
        for (auto& b : bits)
            b = coin(rng);
        const double rate = double(counter.add_frame(bits.data())) / 2000;
        EXPECT_NEAR(rate, 0.5, 0.06) << "frame " << f; // 2000 bits: sd 1.1%
    }
    EXPECT_EQ(counter.frame_errors(), 10u);
    EXPECT_EQ(counter.unsynchronised_frames(), 10u);
    EXPECT_THROW(prbs_error_counter(23, 1, 23), std::invalid_argument);
}

TEST(ErrorCounter, LlrStatisticsCountWhatTheyName)
{
    auto rng = make_rng(1503);
    std::normal_distribution<float> g(0.0f, 3.0f);
    std::vector<float> llr(5000);
    for (auto& v : llr)
        v = g(rng);
    llr[10] = 0.0f;
    llr[11] = 0.0f;
    llr[12] = NAN;
    llr[13] = -INFINITY;
    llr_statistics s;
    s.add(llr.data(), 2500);
    s.add(llr.data() + 2500, 2500);
    double sum = 0;
    for (std::size_t i = 0; i < llr.size(); i++)
        if (std::isfinite(llr[i]))
            sum += std::fabs(double(llr[i]));
    EXPECT_EQ(s.count, 5000u);
    EXPECT_EQ(s.non_finite, 2u);
    EXPECT_EQ(s.zeros, 2u);
    EXPECT_NEAR(s.mean_abs(), sum / 4998, 1e-9 * sum);
}
