/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tracking the channel in time (frame format 4's pilot blocks, core/frame/estimation/time_tracking.h):
 * the layout's symbols each counted once, every block carrying the first block's pilots,
 * the interpolation weights against the symbols' positions, interpolate_estimate against
 * its formula, each block's estimate of a static channel equal to the first's, and a
 * fading channel detected with tracking and not without.
 */
#include "common/test_util.h"
#include "frame/fused_frames.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/time_tracking.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace gr::gpumimo::core;
using gpumimo_test::make_received_frames;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

frame_format make(const char* preset, int K, int payload, int interval, modulation mod = modulation::qam16)
{
    frame_format f;
    f.num = numerology_preset(preset);
    f.streams = K;
    f.mod = mod;
    f.payload_symbols = payload;
    f.pilot_interval = interval;
    f.validate();
    return f;
}

} // namespace

TEST(TimeTracking, LayoutCountsEverySymbolOnce)
{
    for (int K : { 1, 2, 4, 8 })
        for (int P : { 1, 4, 5, 13 })
            for (int I : { 0, 1, 3, 4, 20 }) {
                const frame_format f = make("small", K, P, I);
                SCOPED_TRACE("K " + std::to_string(K) + " P " + std::to_string(P) + " I " + std::to_string(I));
                std::vector<int> kind(std::size_t(f.symbols()), 0); // 1 pilot, 2 payload
                kind[0] = 3; // the preamble
                for (int b = 0; b < f.pilot_blocks(); b++)
                    for (int s = 0; s < K; s++) {
                        const int at = f.pilot_block_start(b) + s;
                        ASSERT_LT(at, f.symbols());
                        ASSERT_EQ(kind[std::size_t(at)], 0) << "symbol " << at << " twice";
                        kind[std::size_t(at)] = 1;
                    }
                int last = 0;
                for (int s = 0; s < P; s++) {
                    const int at = f.payload_symbol_index(s);
                    ASSERT_GT(at, last); // in order
                    ASSERT_LT(at, f.symbols());
                    ASSERT_EQ(kind[std::size_t(at)], 0) << "symbol " << at << " twice";
                    kind[std::size_t(at)] = 2;
                    last = at;
                }
                for (int t = 0; t < f.symbols(); t++) {
                    EXPECT_NE(kind[std::size_t(t)], 0) << "symbol " << t << " unused";
                    EXPECT_EQ(f.is_payload_symbol(t), kind[std::size_t(t)] == 2) << t;
                }
                EXPECT_EQ(f.pilot_block_start(0), 1);
                if (I == 0) {
                    EXPECT_EQ(f.pilot_blocks(), 1);
                    EXPECT_EQ(f.symbols(), 1 + K + P); // format 3's layout
                } else {
                    // At most I payload symbols between blocks, a block at the end.
                    EXPECT_EQ(kind.back(), 1);
                    int run = 0;
                    for (int k : kind) {
                        run = k == 2 ? run + 1 : 0;
                        EXPECT_LE(run, I);
                    }
                }
            }
    frame_format f = make("small", 2, 10, 0);
    f.pilot_interval = -1;
    EXPECT_THROW(f.validate(), std::invalid_argument);
    f = make("small", 8, max_payload_symbols, 0);
    f.pilot_interval = 1; // 8 x 1001 pilot symbols
    EXPECT_THROW(f.validate(), std::invalid_argument);
}

TEST(TimeTracking, EveryBlockCarriesTheFirstBlocksPilots)
{
    auto rng = make_rng(4711);
    std::uniform_int_distribution<int> bit(0, 1);
    const frame_format f = make("small", 4, 9, 4);
    std::vector<std::uint8_t> bits(f.payload_bits());
    for (auto& b : bits)
        b = std::uint8_t(bit(rng));
    const std::vector<cf> grid = frame_grid(f, bits.data());
    const int U = f.num.used_carriers, S = f.symbols();
    for (int k = 0; k < f.streams; k++)
        for (int b = 1; b < f.pilot_blocks(); b++)
            for (int s = 0; s < f.streams; s++)
                for (int c = 0; c < U; c++)
                    ASSERT_EQ(grid[(std::size_t(k) * S + f.pilot_block_start(b) + s) * U + c],
                              grid[(std::size_t(k) * S + 1 + s) * U + c]);
    // The payload symbols as format 3 places them, only moved: the same carriers.
    frame_format g = f;
    g.pilot_interval = 0;
    const std::vector<cf> plain = frame_grid(g, bits.data());
    for (int k = 0; k < f.streams; k++)
        for (int s = 0; s < f.payload_symbols; s++)
            for (int c = 0; c < U; c++)
                ASSERT_EQ(grid[(std::size_t(k) * S + f.payload_symbol_index(s)) * U + c],
                          plain[(std::size_t(k) * g.symbols() + 1 + f.streams + s) * U + c]);
}

TEST(TimeTracking, WeightsInterpolateLinearlyInTime)
{
    for (int K : { 1, 3 })
        for (int I : { 0, 1, 4, 7 }) {
            const frame_format f = make("small", K, 11, I);
            const std::vector<time_weight> w = time_weights(f);
            ASSERT_EQ(w.size(), 11u);
            for (int s = 0; s < f.payload_symbols; s++) {
                const time_weight& t = w[std::size_t(s)];
                if (I == 0) {
                    EXPECT_EQ(t.before, 0);
                    EXPECT_EQ(t.w, 0.0f);
                    continue;
                }
                ASSERT_GE(t.before, 0);
                ASSERT_LT(t.before + 1, f.pilot_blocks());
                EXPECT_GT(t.w, 0.0f);
                EXPECT_LT(t.w, 1.0f);
                // The symbol's position rebuilt from the blocks' middles and w.
                const double half = 0.5 * (K - 1);
                const double t0 = f.pilot_block_start(t.before) + half,
                             t1 = f.pilot_block_start(t.before + 1) + half;
                EXPECT_NEAR(t0 + t.w * (t1 - t0), f.payload_symbol_index(s), 1e-5);
            }
        }
}

TEST(TimeTracking, InterpolateEstimateIsTheWeightedMix)
{
    auto rng = make_rng(99);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_real_distribution<float> u(0.01f, 1.0f);
    channel_estimate a, b, out;
    for (channel_estimate* e : { &a, &b }) {
        e->rx = 3;
        e->tx = 2;
        e->carriers = 5;
        e->noise_var = u(rng);
        for (int i = 0; i < 30; i++)
            e->h.emplace_back(g(rng), g(rng));
        for (int c = 0; c < 5; c++) {
            e->error_var.push_back(u(rng));
            e->noise_eff.push_back(effective_noise(e->noise_var, 2, e->error_var.back()));
        }
    }
    const float w = 0.3f;
    interpolate_estimate(a, b, w, out);
    for (std::size_t i = 0; i < a.h.size(); i++)
        EXPECT_LT(std::abs(out.h[i] - (0.7f * a.h[i] + 0.3f * b.h[i])), 1e-6f);
    for (std::size_t c = 0; c < 5; c++) {
        const float ev = 0.49f * a.error_var[c] + 0.09f * b.error_var[c];
        EXPECT_NEAR(out.error_var[c], ev, 1e-6);
        EXPECT_NEAR(out.noise_eff[c], 0.7f * a.noise_var + 0.3f * b.noise_var + 2 * ev, 1e-5);
    }
    // w = 0: a exactly, even beside a broken b.
    b.h[0] = cf(std::numeric_limits<float>::quiet_NaN(), 0);
    interpolate_estimate(a, b, 0.0f, out);
    EXPECT_EQ(out.h, a.h);
    EXPECT_EQ(out.noise_eff, a.noise_eff);
    b.h.pop_back();
    EXPECT_THROW(interpolate_estimate(a, b, w, out), std::invalid_argument);
}

TEST(TimeTracking, EachBlockSeesTheSameStaticChannel)
{
    auto rng = make_rng(31337);
    const frame_format f = make("small", 2, 9, 3);
    const int rx = 4;
    const auto in = make_received_frames(rng, f, rx, 1, 200.0);
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, rx));
    const std::vector<cf> carriers = gpumimo_test::demodulate(f, fft, in, rx, 0);
    channel_smoother smoother(f.num, channel_estimator::ls);
    std::vector<channel_estimate> blocks;
    estimate_pilot_blocks(f, carriers.data(), rx, smoother, blocks);
    ASSERT_EQ(blocks.size(), std::size_t(f.pilot_blocks()));
    double scale = 0;
    for (const cf& v : blocks[0].h)
        scale = std::max(scale, double(std::abs(v)));
    ASSERT_GT(scale, 0.0);
    for (int b = 1; b < f.pilot_blocks(); b++)
        for (std::size_t i = 0; i < blocks[0].h.size(); i++)
            ASSERT_LT(std::abs(blocks[std::size_t(b)].h[i] - blocks[0].h[i]), 1e-4 * scale) << b << " " << i;
    // A block the frame does not have.
    EXPECT_THROW(estimate_channel(f, carriers.data(), rx, f.symbols(), smoother, f.pilot_blocks()),
                 std::invalid_argument);
}

// Fading over a long frame: 24 payload symbols of the small preset are 2.1 ms, and at
// 150 Hz the channel at the frame's end has a correlation of J0(2 pi 150 Hz 2 ms) = 0.6
// with the one the first block saw. A pilot block every 4 symbols follows it; one block
// does not.
TEST(TimeTracking, FadingFrameDetectedWithBlocksNotWithout)
{
    const int rx = 4;
    const std::size_t frames = 8;
    const double doppler = 150.0 / 1e6; // the small preset's 1 Msample/s
    std::size_t errors[2] = { 0, 0 }, bits = 0;
    for (int I : { 0, 4 }) {
        auto rng = make_rng(777); // the same draws for both layouts
        const frame_format f = make("small", 2, 24, I);
        const auto in = make_received_frames(rng, f, rx, frames, 30.0, { 0.7, 0.2, 0.1 }, 0, nullptr, doppler);
        errors[I ? 1 : 0] = gpumimo_test::cpu_mmse_bit_errors(f, rx, in, frames);
        bits = in.bits.size();
    }
    std::cout << "bit errors of " << bits << ": one block " << errors[0] << ", a block every 4 "
              << errors[1] << "\n";
    EXPECT_LE(errors[1], bits / 1000) << "with blocks; without " << errors[0] << " of " << bits;
    EXPECT_GT(errors[0], bits / 50) << "without blocks; with " << errors[1] << " of " << bits;
}
