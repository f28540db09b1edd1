/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpu_channel_smoother held to the CPU reference (channel_smoother) on fresh random
 * least-squares estimates of 3- to 6-tap channels plus noise, every estimator, every
 * numerology, 1x1 to 4x4, several frames of different noise at once, the least-squares
 * error N0 / tx as the fused receiver's covered pilots give it; a frame with an
 * unusable noise variance left as it is. The effective noise comes back poisoned first
 * (smooth() fills its device copy with NaN before the run).
 */
#include "common/gpu_test.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/estimation/gpu_channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

// Least-squares estimates of a random channel with `taps` taps from delay `at`, plus
// noise of variance n0: [carrier][rx * tx].
std::vector<cf> ls_estimates(std::mt19937_64& rng, const channel_smoother& sm, int P, int taps, int at, double n0)
{
    const int U = sm.carriers();
    std::normal_distribution<double> g(0, std::sqrt(0.5));
    std::vector<cf> h(std::size_t(U) * P);
    for (int p = 0; p < P; p++) {
        std::vector<cd> t;
        for (int l = 0; l < taps; l++)
            t.push_back(cd(g(rng), g(rng)) * std::sqrt(std::exp(-0.7 * l) / 2.0));
        for (int c = 0; c < U; c++) {
            cd s = 0;
            for (int l = 0; l < taps; l++)
                s += t[l] * sm.twiddle(c, at + l - sm.window().first);
            h[std::size_t(c) * P + p] = cf(s + std::sqrt(n0) * cd(g(rng), g(rng)));
        }
    }
    return h;
}

} // namespace

class GpuChannelSmoother : public Gpu
{
};

TEST_F(GpuChannelSmoother, MatchesTheCpuReference)
{
    auto rng = make_rng(81);
    for (const char* preset : { "small", "fft512", "lte20" })
        for (channel_estimator m :
             { channel_estimator::ls, channel_estimator::dft, channel_estimator::lmmse })
            for (auto [rx, tx] : { std::pair{ 1, 1 }, std::pair{ 4, 2 }, std::pair{ 4, 4 } }) {
                const numerology num = numerology_preset(preset);
                const int U = num.used_carriers, P = rx * tx;
                const std::size_t frames = 3;
                channel_smoother cpu(num, m);
                // The fused receiver's ratio: covered pilots, LS error N0 / tx.
                const double ratio = 1.0 / tx;
                gpu_channel_smoother gpu(num, m, rx, tx, 4, 0, ratio);
                const int cp0 = num.cp_lengths[0];
                std::vector<cf> h, want;
                std::vector<float> n0, want_eff;
                for (std::size_t f = 0; f < frames; f++) {
                    const double noise = std::pow(10.0, -double(f + 1)); // 10, 20, 30 dB
                    const int taps = 3 + int(f);
                    std::vector<cf> ls = ls_estimates(rng, cpu, P, taps, cp0 / 4, noise * ratio);
                    h.insert(h.end(), ls.begin(), ls.end());
                    std::vector<float> err(U);
                    cpu.smooth(ls.data(), rx, tx, noise * ratio, err.data());
                    want.insert(want.end(), ls.begin(), ls.end());
                    for (int c = 0; c < U; c++)
                        want_eff.push_back(effective_noise(noise, tx, err[c]));
                    n0.push_back(float(noise));
                }
                std::vector<float> eff(frames * U);
                gpu.smooth(h.data(), n0.data(), frames, eff.data());
                const std::string what = std::string(preset) + " " + to_string(m) + " " +
                                         std::to_string(rx) + "x" + std::to_string(tx);
                for (std::size_t f = 0; f < frames; f++)
                    for (int c = 0; c < U; c++) {
                        const std::size_t i = f * U + c;
                        ASSERT_TRUE(std::isfinite(eff[i])) << what << " frame " << f << " c " << c;
                        // Float against double: the taps and the carriers in float, the
                        // system in double. The band's edge carriers extrapolate the taps
                        // and show their rounding most (measured on the H200: up to 1e-3
                        // of the effective noise, 3.1e-4 on H at 30 dB): within 5e-3 of
                        // it, and within 1% of the noise's amplitude plus 3e-4.
                        ASSERT_NEAR(eff[i], want_eff[i], 5e-3 * want_eff[i]) << what << " frame " << f << " c " << c;
                        for (int p = 0; p < P; p++) {
                            const std::size_t k = (f * U + c) * P + p;
                            ASSERT_LT(std::abs(h[k] - want[k]), 1e-2 * std::sqrt(n0[f] * ratio) + 3e-4)
                                << what << " frame " << f << " c " << c << " p " << p;
                        }
                    }
            }
}

TEST_F(GpuChannelSmoother, LeavesAFrameWithUnusableNoiseAlone)
{
    auto rng = make_rng(82);
    const numerology num = numerology_preset("small");
    channel_smoother cpu(num, channel_estimator::lmmse);
    gpu_channel_smoother gpu(num, channel_estimator::lmmse, 2, 2, 2);
    std::vector<cf> h = ls_estimates(rng, cpu, 4, 3, 4, 0.01);
    const std::vector<cf> second = ls_estimates(rng, cpu, 4, 3, 4, 0.01);
    h.insert(h.end(), second.begin(), second.end());
    const std::vector<cf> before = h;
    const std::vector<float> n0{ 0.0f, NAN };
    std::vector<float> eff(2 * 48);
    gpu.smooth(h.data(), n0.data(), 2, eff.data());
    for (std::size_t i = 0; i < h.size(); i++)
        ASSERT_EQ(h[i], before[i]) << i;
    for (int c = 0; c < 48; c++) {
        EXPECT_EQ(eff[c], 0.0f);
        EXPECT_TRUE(std::isnan(eff[48 + c]));
    }
    EXPECT_THROW(gpu.smooth(h.data(), n0.data(), 3, eff.data()), std::invalid_argument);
}

TEST_F(GpuChannelSmoother, SmoothingEngineMatchesTheCpuEngine)
{
    // make_smoothing_engine("cuda") (the core's GPU smoothing engine: one frame a call,
    // the error variance recovered from the effective noise) against the CPU engine, with
    // the noise samples of a real frame (the mismatch's spread).
    auto rng = make_rng(83);
    for (const char* preset : { "small", "lte20" })
        for (channel_estimator m : { channel_estimator::dft, channel_estimator::lmmse })
            for (auto [rx, tx] : { std::pair{ 4, 2 }, std::pair{ 4, 4 } }) {
                const numerology num = numerology_preset(preset);
                const int U = num.used_carriers, P = rx * tx;
                const double samples = double(preamble_empty_carriers(num).size()) * rx;
                const auto cpu = make_smoothing_engine(num, m, rx, tx, samples, "cpu");
                const auto gpu = make_smoothing_engine(num, m, rx, tx, samples, "cuda");
                ASSERT_STREQ(gpu->backend(), "cuda");
                const channel_smoother geometry(num, m);
                const std::string what = std::string(preset) + " " + to_string(m) + " " +
                                         std::to_string(rx) + "x" + std::to_string(tx);
                for (const double noise : { 1e-1, 1e-3 }) {
                    const double n0 = noise / tx; // the LS estimates' error
                    std::vector<cf> h1 = ls_estimates(rng, geometry, P, 4, num.cp_lengths[0] / 4, n0), h2 = h1;
                    std::vector<float> e1(U), e2(U, NAN);
                    cpu->smooth(h1.data(), rx, tx, n0, e1.data());
                    gpu->smooth(h2.data(), rx, tx, n0, e2.data());
                    for (int c = 0; c < U; c++) {
                        const float want = effective_noise(noise, tx, e1[c]), got = effective_noise(noise, tx, e2[c]);
                        ASSERT_NEAR(got, want, 5e-3 * want) << what << " c " << c;
                        for (int p = 0; p < P; p++) {
                            const std::size_t k = std::size_t(c) * P + p;
                            ASSERT_LT(std::abs(h2[k] - h1[k]), 1e-2 * std::sqrt(n0) + 3e-4) << what << " c " << c;
                        }
                    }
                }
                std::vector<cf> h(std::size_t(U) * P);
                std::vector<float> e(U);
                EXPECT_THROW(gpu->smooth(h.data(), rx + 1, tx, 0.1, e.data()), std::invalid_argument);
                EXPECT_STREQ(gpu->backend(), "cuda"); // bad input is the caller's
            }
}

TEST_F(GpuChannelSmoother, SmoothingEngineSmoothsSeveralFramesInOneCall)
{
    // smooth_frames on the GPU engine (mimo_chanest's batches: one round trip for them
    // all), 5 frames of different noise levels from separate buffers, against the CPU
    // engine frame by frame, outputs poisoned first; then one frame alone through the
    // same engine; more frames than max_frames refused.
    auto rng = make_rng(84);
    const numerology num = numerology_preset("lte20");
    const int rx = 4, tx = 4, U = num.used_carriers, P = rx * tx;
    const double samples = double(preamble_empty_carriers(num).size()) * rx;
    const channel_smoother geometry(num, channel_estimator::lmmse);
    const auto cpu = make_smoothing_engine(num, channel_estimator::lmmse, rx, tx, samples, "cpu");
    const auto gpu =
        make_smoothing_engine(num, channel_estimator::lmmse, rx, tx, samples, "cuda", 0, nullptr, 5);
    ASSERT_STREQ(gpu->backend(), "cuda");
    ASSERT_EQ(gpu->max_frames(), 5u);
    const double noise[5] = { 1e-1, 3e-2, 1e-2, 3e-3, 1e-3 };
    std::vector<std::vector<cf>> want(5), got(5);
    std::vector<std::vector<float>> want_e(5, std::vector<float>(U)), got_e(5, std::vector<float>(U, NAN));
    std::vector<cf*> h(5);
    std::vector<float*> e(5);
    std::vector<double> n0(5);
    for (int f = 0; f < 5; f++) {
        n0[f] = noise[f] / tx;
        want[f] = ls_estimates(rng, geometry, P, 4, num.cp_lengths[0] / 4, n0[f]);
        got[f] = want[f];
        cpu->smooth(want[f].data(), rx, tx, n0[f], want_e[f].data());
        h[f] = got[f].data();
        e[f] = got_e[f].data();
    }
    const auto expect_near = [&](int f, const std::vector<cf>& hg, const std::vector<float>& eg) {
        for (int c = 0; c < U; c++) {
            const float w = effective_noise(noise[f], tx, want_e[f][c]), g = effective_noise(noise[f], tx, eg[c]);
            ASSERT_NEAR(g, w, 5e-3 * w) << "frame " << f << " c " << c;
            for (int p = 0; p < P; p++) {
                const std::size_t k = std::size_t(c) * P + p;
                ASSERT_LT(std::abs(hg[k] - want[f][k]), 1e-2 * std::sqrt(n0[f]) + 3e-4)
                    << "frame " << f << " c " << c;
            }
        }
    };
    gpu->smooth_frames(h.data(), n0.data(), e.data(), 5, rx, tx);
    for (int f = 0; f < 5; f++)
        expect_near(f, got[f], got_e[f]);
    std::vector<cf> one = ls_estimates(rng, geometry, P, 4, num.cp_lengths[0] / 4, n0[2]);
    want[2] = one;
    cpu->smooth(want[2].data(), rx, tx, n0[2], want_e[2].data());
    std::vector<float> one_e(U, NAN);
    gpu->smooth(one.data(), rx, tx, n0[2], one_e.data());
    expect_near(2, one, one_e);
    h.push_back(h[0]);
    e.push_back(e[0]);
    n0.push_back(n0[0]);
    EXPECT_THROW(gpu->smooth_frames(h.data(), n0.data(), e.data(), 6, rx, tx), std::invalid_argument);
    EXPECT_STREQ(gpu->backend(), "cuda");
}
