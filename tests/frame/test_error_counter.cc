/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The bit-error testers (core/error_counter.h), PRBS and reference bytes: errors placed
 * at random positions are counted exactly, through lost frames (resynchronisation) and
 * without; LLR statistics against a direct count.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/error_counter.h>

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

TEST(ErrorCounter, UnpackBytesIsMostSignificantBitFirst)
{
    auto rng = make_rng(1504);
    std::bernoulli_distribution coin(0.5);
    std::vector<std::uint8_t> bits(8 * 37), bytes(37), back(8 * 37, 7);
    for (auto& b : bits)
        b = coin(rng);
    for (std::size_t i = 0; i < bytes.size(); i++) { // packing by place value
        int v = 0;
        for (int b = 0; b < 8; b++)
            v += bits[8 * i + b] << (7 - b);
        bytes[i] = std::uint8_t(v);
    }
    unpack_bytes(bytes.data(), bytes.size(), back.data());
    EXPECT_EQ(back, bits);
}

namespace {
// A transmitter of a known byte file, repeated: frame after frame of its bits, the
// file's end wrapping to its start.
struct repeating_file {
    std::vector<std::uint8_t> bits;
    std::size_t at = 0;
    void next(std::uint8_t* out, std::size_t n)
    {
        for (std::size_t i = 0; i < n; i++, at = (at + 1) % bits.size())
            out[i] = bits[at];
    }
};
} // namespace

TEST(ErrorCounter, ReferenceFileCountsPlacedErrorsAcrossLostFramesAndItsEnd)
{
    auto rng = make_rng(1506);
    std::uniform_int_distribution<int> byte(0, 255);
    // 1000 bytes = 8000 bits and 96-byte frames: the file's end falls inside frames and
    // frames start at multiples of gcd(768, 8000) = 32 bits.
    const std::size_t frame = 768;
    std::vector<std::uint8_t> file(1000);
    for (auto& b : file)
        b = std::uint8_t(byte(rng));
    repeating_file tx;
    tx.bits.resize(8 * file.size());
    unpack_bytes(file.data(), file.size(), tx.bits.data());
    reference_error_counter counter(file, frame);
    EXPECT_EQ(counter.reference_bits(), 8000u);

    std::uniform_int_distribution<int> errors_in_frame(0, 3);
    std::uniform_int_distribution<std::size_t> where(0, frame - 1);
    std::vector<std::uint8_t> bits(frame);
    std::uint64_t placed = 0, placed_frames = 0, received = 0, losses = 0;
    for (int f = 0; f < 120; f++) {
        tx.next(bits.data(), frame);
        if (f % 13 == 4 || f % 13 == 5) { // two frames lost in a row
            losses += f % 13 == 4;
            continue;
        }
        // Errors anywhere but the first 32 bits of a frame after a loss (documented).
        const bool after_loss = f % 13 == 6;
        const int e = errors_in_frame(rng);
        std::vector<char> flipped(frame, 0);
        for (int i = 0; i < e; i++) {
            std::size_t at = where(rng);
            if (after_loss && at < 32)
                at += 32;
            if (!flipped[at]) {
                flipped[at] = 1;
                bits[at] ^= 1u;
                placed++;
            }
        }
        const std::size_t here = std::size_t(std::count(flipped.begin(), flipped.end(), 1));
        placed_frames += here > 0;
        ASSERT_EQ(counter.add_frame(bits.data()), here) << "frame " << f;
        received++;
    }
    EXPECT_EQ(counter.frames(), received);
    EXPECT_EQ(counter.bit_errors(), placed);
    EXPECT_EQ(counter.frame_errors(), placed_frames);
    EXPECT_EQ(counter.resynchronisations(), losses);
    EXPECT_EQ(counter.unsynchronised_frames(), 0u);
}

TEST(ErrorCounter, ReferenceFileRefusesWhatItCannotFollow)
{
    EXPECT_THROW(reference_error_counter({}, 96), std::invalid_argument);
    EXPECT_THROW(reference_error_counter({ 1, 2, 3 }, 31), std::invalid_argument);
    // Random decisions against a reference: about half wrong, unsynchronised.
    auto rng = make_rng(1505);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<std::uint8_t> file(500), bits(2000);
    for (auto& b : file)
        b = std::uint8_t(byte(rng));
    reference_error_counter counter(file, 2000);
    std::bernoulli_distribution coin(0.5);
    for (int f = 0; f < 5; f++) {
        for (auto& b : bits)
            b = coin(rng);
        EXPECT_NEAR(double(counter.add_frame(bits.data())) / 2000, 0.5, 0.06);
    }
    EXPECT_EQ(counter.unsynchronised_frames(), 5u);
}

// The register jumped by a GF(2) map equals stepping it bit by bit.
TEST(ErrorCounter, PrbsJumpEqualsStepping)
{
    for (std::uint64_t n : { 1ull, 23ull, 7680ull, 1000003ull }) {
        prbs stepped(23, 0x5A5A5u), jumped(23, 0x5A5A5u);
        for (std::uint64_t i = 0; i < n; i++)
            stepped.next();
        jumped.apply_jump(jumped.jump_map(n));
        EXPECT_EQ(jumped.state(), stepped.state()) << n;
        EXPECT_EQ(jumped.next(), stepped.next()) << n;
    }
}

namespace {

// Frames of a PRBS-23 payload at raw bit-error rate `ber`, some lost: what the counter
// gives, and the errors placed in the frames it received.
struct noisy_link {
    std::size_t placed = 0, received = 0;
};

template <typename Counter, typename Next>
noisy_link run_noisy(Counter& counter, Next&& next_frame, std::size_t frame, double ber,
                     std::size_t frames, const std::vector<std::size_t>& lost,
                     std::mt19937_64& rng)
{
    std::bernoulli_distribution flip(ber);
    std::vector<std::uint8_t> bits(frame);
    noisy_link link;
    for (std::size_t f = 0; f < frames; f++) {
        next_frame(bits.data());
        if (std::find(lost.begin(), lost.end(), f) != lost.end())
            continue;
        for (auto& b : bits)
            if (flip(rng)) {
                b ^= 1u;
                link.placed++;
            }
        counter.add_frame(bits.data());
        link.received++;
    }
    return link;
}

} // namespace

// At 10% raw BER a frame's first 23 decisions are rarely all right, so resynchronising
// on an error-free run never happens; on frame boundaries it does at the next frame.
// The counted errors are exactly the placed ones (the right candidate is found for
// every frame), the BER is 0.1, not the 0.37 of a tester that stays lost.
TEST(ErrorCounter, FollowsLostFramesAtTenPercentRawBer)
{
    auto rng = make_rng(1503);
    const std::size_t frame = 7680; // the small preset, 4 streams of 16-QAM, 10 symbols
    prbs_error_counter counter(23, 2026, frame);
    prbs tx(23, 2026);
    const std::vector<std::size_t> lost = { 3, 10, 11, 12, 13, 14, 40, 41 };
    const noisy_link link =
        run_noisy(counter, [&](std::uint8_t* b) { tx.fill(b, frame); }, frame, 0.1, 60, lost, rng);
    EXPECT_EQ(counter.frames(), link.received);
    EXPECT_EQ(counter.unsynchronised_frames(), 0u);
    EXPECT_EQ(counter.resynchronisations(), 3u); // after frames 3, 10..14 and 40..41
    EXPECT_EQ(counter.bit_errors(), link.placed);
    EXPECT_NEAR(counter.ber(), 0.1, 0.005);

    // The same through a byte reference repeated by the transmitter.
    std::vector<std::uint8_t> bytes(3001);
    for (auto& b : bytes)
        b = std::uint8_t(rng());
    reference_error_counter ref(bytes, frame);
    repeating_file file;
    file.bits.resize(bytes.size() * 8);
    unpack_bytes(bytes.data(), bytes.size(), file.bits.data());
    const noisy_link link2 = run_noisy(
        ref, [&](std::uint8_t* b) { file.next(b, frame); }, frame, 0.1, 60, lost, rng);
    EXPECT_EQ(ref.unsynchronised_frames(), 0u);
    EXPECT_EQ(ref.resynchronisations(), 3u);
    EXPECT_EQ(ref.bit_errors(), link2.placed);
}

// A frame that is noise cannot be compared: it is a frame error, named, and left out of
// the BER; the frames around it are scored as usual.
TEST(ErrorCounter, UncomparableFramesStayOutOfTheBer)
{
    auto rng = make_rng(1504);
    const std::size_t frame = 4000;
    prbs_error_counter counter(23, 99, frame);
    prbs tx(23, 99);
    std::vector<std::uint8_t> bits(frame);
    std::bernoulli_distribution coin(0.5);
    for (int f = 0; f < 6; f++) {
        tx.fill(bits.data(), frame);
        if (f == 2)
            for (auto& b : bits)
                b = coin(rng);
        counter.add_frame(bits.data());
    }
    EXPECT_EQ(counter.frames(), 6u);
    EXPECT_EQ(counter.unsynchronised_frames(), 1u);
    EXPECT_EQ(counter.frame_errors(), 1u);
    EXPECT_EQ(counter.bits(), 5u * frame);
    EXPECT_EQ(counter.bit_errors(), 0u);
    EXPECT_DOUBLE_EQ(counter.fer(), 1.0 / 6.0);
}
