/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel estimators (core/frame/estimation/channel_smoother.h) against their closed forms:
 * the LMMSE estimator and its error variance against the textbook frequency-domain formula
 * R (R + n0 I)^-1 H_ls, R = F P F^H, solved as a U x U system; and on random channels
 * the measured error against what each estimator reports (its error variance is what
 * the detectors are told).
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <iostream>
#include <random>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cd = std::complex<double>;
using cf = std::complex<float>;

namespace {

// Carrier c's frequency index (DC = 0), from the numerology's shifted numbering.
std::vector<int> frequencies(const numerology& num)
{
    std::vector<int> k;
    for (int idx : num.carriers())
        k.push_back(idx - num.fft_len / 2);
    return k;
}

// H on every used carrier of taps h at delays d (samples, not necessarily whole):
// sum_l h_l e^{-2 pi i k d_l / N}.
std::vector<cd> frequency_response(const numerology& num,
                                   const std::vector<cd>& h,
                                   const std::vector<double>& delays)
{
    std::vector<cd> H;
    for (int k : frequencies(num)) {
        cd s = 0;
        for (std::size_t l = 0; l < h.size(); l++)
            s += h[l] * std::exp(cd(0, -2 * M_PI * double(k) * delays[l] / num.fft_len));
        H.push_back(s);
    }
    return H;
}

std::vector<cd> frequency_response(const numerology& num,
                                   const std::vector<cd>& h,
                                   const std::vector<int>& delays)
{
    return frequency_response(num, h, std::vector<double>(delays.begin(), delays.end()));
}

// Gaussian elimination with partial pivoting: solves A x = b (n x n, row-major) in place.
std::vector<cd> solve(std::vector<cd> a, std::vector<cd> b, int n)
{
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (std::abs(a[r * n + col]) > std::abs(a[piv * n + col]))
                piv = r;
        for (int c = 0; c < n; c++)
            std::swap(a[col * n + c], a[piv * n + c]);
        std::swap(b[col], b[piv]);
        for (int r = col + 1; r < n; r++) {
            const cd f = a[r * n + col] / a[col * n + col];
            for (int c = col; c < n; c++)
                a[r * n + c] -= f * a[col * n + c];
            b[r] -= f * b[col];
        }
    }
    std::vector<cd> x(n);
    for (int r = n - 1; r >= 0; r--) {
        cd s = b[r];
        for (int c = r + 1; c < n; c++)
            s -= a[r * n + c] * x[c];
        x[r] = s / a[r * n + r];
    }
    return x;
}

cd cn(std::mt19937_64& rng, double var)
{
    std::normal_distribution<double> g(0, std::sqrt(var / 2));
    return { g(rng), g(rng) };
}

} // namespace

TEST(ChannelSmoother, NamesRoundTrip)
{
    for (const std::string& n : channel_estimator_names())
        EXPECT_EQ(to_string(parse_channel_estimator(n)), n);
    EXPECT_THROW(parse_channel_estimator("mmse"), std::invalid_argument);
    const delay_window w = estimation_window(numerology_preset("small"));
    EXPECT_EQ(w.first, -2);
    EXPECT_EQ(w.taps, 18);
}

// A noise-free channel with its taps in the window comes back exactly from LMMSE (the
// taps it holds are far above the noise, the others left out).
TEST(ChannelSmoother, LmmseRecoversTapsInTheWindowWithoutNoise)
{
    auto rng = make_rng(72);
    const numerology num = numerology_preset("fft512");
    const int U = num.used_carriers, rx = 2, tx = 2;
    const std::vector<int> delays{ 4, 5, 9, 20 };
    std::vector<cf> h(std::size_t(U) * rx * tx);
    for (int p = 0; p < rx * tx; p++) {
        std::vector<cd> taps;
        for (double pw : { 0.5, 0.3, 0.15, 0.05 })
            taps.push_back(cn(rng, pw));
        const std::vector<cd> H = frequency_response(num, taps, delays);
        for (int c = 0; c < U; c++)
            h[std::size_t(c) * rx * tx + p] = cf(H[c]);
    }
    const std::vector<cf> truth = h;
    channel_smoother sm(num, channel_estimator::lmmse);
    std::vector<float> err(U);
    sm.smooth(h.data(), rx, tx, 1e-9, err.data());
    for (std::size_t i = 0; i < h.size(); i++)
        ASSERT_LT(std::abs(h[i] - truth[i]), 1e-4) << i;
}

// LMMSE and DFT against R (R + n0 I)^-1 H_ls with R = F P F^H and P the profile the
// smoother assumed (estimated; flat), solved as a U x U system; their error variance
// against the diagonal of R - R (R + n0 I)^-1 R.
TEST(ChannelSmoother, EqualsTheFrequencyDomainFormula)
{
  for (channel_estimator method : { channel_estimator::lmmse, channel_estimator::dft }) {
    auto rng = make_rng(73);
    const numerology num = numerology_preset("small");
    const int U = num.used_carriers, rx = 4, tx = 2;
    const double n0 = 0.05;
    const std::vector<int> delays{ 4, 5, 6 };
    std::vector<cf> h(std::size_t(U) * rx * tx);
    for (int p = 0; p < rx * tx; p++) {
        std::vector<cd> taps;
        for (double pw : { 0.7, 0.2, 0.1 })
            taps.push_back(cn(rng, pw));
        const std::vector<cd> H = frequency_response(num, taps, delays);
        for (int c = 0; c < U; c++)
            h[std::size_t(c) * rx * tx + p] = cf(H[c] + cn(rng, n0));
    }
    const std::vector<cf> ls = h;
    channel_smoother sm(num, method);
    std::vector<float> err(U);
    sm.smooth(h.data(), rx, tx, n0, err.data());
    const std::vector<double>& pdp = sm.power_delay_profile();
    int kept = 0;
    for (double p : pdp)
        kept += p > 0;
    if (method == channel_estimator::lmmse) {
        EXPECT_GE(kept, 3) << "the channel's three taps are far above their noise";
        EXPECT_LT(kept, 18) << "some of the window's 18 taps hold only noise";
    } else {
        EXPECT_EQ(kept, 18) << "dft: a flat profile";
    }
    // R[a][b] = sum_j F[a][j] p_j conj(F[b][j]).
    std::vector<cd> R(std::size_t(U) * U, 0.0), A(std::size_t(U) * U);
    for (int a = 0; a < U; a++)
        for (int b = 0; b < U; b++)
            for (int j = 0; j < sm.window().taps; j++)
                R[a * U + b] += sm.twiddle(a, j) * pdp[j] * std::conj(sm.twiddle(b, j));
    for (int i = 0; i < U * U; i++)
        A[i] = R[i] + (i % (U + 1) == 0 ? n0 : 0.0);
    for (int p = 0; p < rx * tx; p++) {
        std::vector<cd> y(U);
        for (int c = 0; c < U; c++)
            y[c] = cd(ls[std::size_t(c) * rx * tx + p]);
        const std::vector<cd> x = solve(A, y, U); // (R + n0 I)^-1 H_ls
        for (int c = 0; c < U; c++) {
            cd want = 0;
            for (int b = 0; b < U; b++)
                want += R[c * U + b] * x[b];
            ASSERT_LT(std::abs(cd(h[std::size_t(c) * rx * tx + p]) - want), 1e-4)
                << to_string(method) << " p " << p << " c " << c;
        }
    }
    // Error covariance R - R (R + n0 I)^-1 R; its diagonal.
    for (int c = 0; c < U; c++) {
        std::vector<cd> col(U);
        for (int b = 0; b < U; b++)
            col[b] = R[b * U + c];
        const std::vector<cd> x = solve(A, col, U);
        cd q = 0;
        for (int b = 0; b < U; b++)
            q += R[c * U + b] * x[b];
        // The formula is the model's error; what the residual shows beyond the noise
        // (smoothing_mismatch, tested on its own below) is added to every carrier on
        // top of it, 0 for most draws and up to a few % of n0 for some (seed
        // 11423748228262735776: 0.00135).
        const double model = double(err[c]) - sm.mismatch();
        EXPECT_NEAR(model, (R[c * U + c] - q).real(), 1e-4 * n0 + 1e-3 * model) << c;
    }
  }
}

// On random 3-tap channels: the measured mean squared error of each estimator against
// the error variance it reports, and their order (LMMSE <= DFT < LS).
TEST(ChannelSmoother, ReportedErrorMatchesMeasuredError)
{
    auto rng = make_rng(74);
    const numerology num = numerology_preset("small");
    const int U = num.used_carriers, rx = 4, tx = 4, trials = 200;
    const std::vector<int> delays{ 4, 5, 6 }; // a quarter of the prefix early
    for (double n0 : { 0.1, 0.01 }) {
        double mse[3] = { 0, 0, 0 }, reported[3] = { 0, 0, 0 };
        channel_smoother sms[3] = { { num, channel_estimator::ls },
                                    { num, channel_estimator::dft },
                                    { num, channel_estimator::lmmse } };
        std::vector<float> err(U);
        for (int t = 0; t < trials; t++) {
            std::vector<cf> truth(std::size_t(U) * rx * tx), ls(truth.size());
            for (int p = 0; p < rx * tx; p++) {
                std::vector<cd> taps;
                for (double pw : { 0.7, 0.2, 0.1 })
                    taps.push_back(cn(rng, pw));
                const std::vector<cd> H = frequency_response(num, taps, delays);
                for (int c = 0; c < U; c++) {
                    truth[std::size_t(c) * rx * tx + p] = cf(H[c]);
                    ls[std::size_t(c) * rx * tx + p] = cf(H[c] + cn(rng, n0));
                }
            }
            for (int m = 0; m < 3; m++) {
                std::vector<cf> h = ls;
                sms[m].smooth(h.data(), rx, tx, n0, err.data());
                for (std::size_t i = 0; i < h.size(); i++)
                    mse[m] += std::norm(cd(h[i]) - cd(truth[i]));
                for (int c = 0; c < U; c++)
                    reported[m] += double(err[c]) * rx * tx;
            }
        }
        for (int m = 0; m < 3; m++) {
            mse[m] /= double(trials) * U * rx * tx;
            reported[m] /= double(trials) * U * rx * tx;
            std::cout << "n0 " << n0 << " " << to_string(sms[m].method()) << ": mse "
                      << mse[m] / n0 << " n0, reported " << reported[m] / n0 << " n0\n";
        }
        EXPECT_NEAR(mse[0], n0, 0.05 * n0);
        EXPECT_NEAR(reported[0], n0, 1e-6 * n0);
        EXPECT_LT(mse[2], 0.35 * n0) << "LMMSE should keep a few of 48 carriers' noise";
        EXPECT_LE(mse[2], 1.05 * mse[1]);
        EXPECT_LT(mse[1], 0.6 * n0);
        EXPECT_NEAR(reported[1], mse[1], 0.4 * mse[1]);
        // LMMSE's posterior variance with an estimated profile: within 40% of its error.
        EXPECT_NEAR(reported[2], mse[2], 0.4 * mse[2]);
    }
}

// A tap beyond the delay window (the prefix): no estimate can follow it, and the error
// it costs has to be in what the smoother reports (smoothing_mismatch, from the
// residual), or the detectors are told too little. The model alone reports a fraction.
TEST(ChannelSmoother, ReportedErrorIncludesATapBeyondTheWindow)
{
    auto rng = make_rng(75);
    const numerology num = numerology_preset("small");
    const int U = num.used_carriers, rx = 4, tx = 2, P = rx * tx, trials = 300;
    const double n0 = 0.005;
    channel_smoother sm(num, channel_estimator::lmmse);
    const std::vector<int> delays{ 4, 5, sm.window().first + sm.window().taps + 3 };
    std::vector<float> err(U);
    std::uniform_real_distribution<double> turn(0, 2 * M_PI);
    double mse_all = 0, told_all = 0, model_all = 0;
    for (int t = 0; t < trials; t++) {
        std::vector<cf> truth(std::size_t(U) * P), h(truth.size());
        for (int p = 0; p < P; p++) {
            std::vector<cd> taps;
            for (double pw : { 0.66, 0.3, 0.04 })
                taps.push_back(std::polar(std::sqrt(pw), turn(rng)));
            const std::vector<cd> H = frequency_response(num, taps, delays);
            for (int c = 0; c < U; c++) {
                truth[std::size_t(c) * P + p] = cf(H[c]);
                h[std::size_t(c) * P + p] = cf(H[c] + cn(rng, n0));
            }
        }
        sm.smooth(h.data(), rx, tx, n0, err.data());
        double mse = 0, told = 0;
        for (std::size_t i = 0; i < h.size(); i++)
            mse += std::norm(cd(h[i]) - cd(truth[i])) / double(h.size());
        for (int c = 0; c < U; c++)
            told += double(err[c]) / U;
        mse_all += mse;
        told_all += told;
        model_all += told - sm.mismatch();
    }
    std::cout << "mse " << mse_all / trials / n0 << " n0, reported " << told_all / trials / n0
              << " n0 (model alone " << model_all / trials / n0 << ")\n";
    EXPECT_NEAR(told_all, mse_all, 0.3 * mse_all);
    EXPECT_LT(model_all, 0.5 * mse_all) << "the model alone misses the tap's error";
}

// Paths between samples (what every real channel has) spread over the neighbouring taps;
// lmmse's profile must keep those taps. Its first profile measures each fitted tap
// against its posterior variance, which the band's empty carriers make about the flat
// prior's power, and leaves the weaker ones out; without the second look at the residual
// (add_missed_taps) that was 0.9 N0 of error at 25 dB on TR 38.901 TDL-A 30 ns and 32 N0
// on TDL-C 300 ns at 30 dB, where dft's flat profile had 0.09 N0.
TEST(ChannelSmoother, LmmseKeepsThePathsBetweenSamples)
{
    auto rng = make_rng(76);
    const numerology num = numerology_preset("fft512");
    const int U = num.used_carriers, rx = 4, tx = 2, P = rx * tx, trials = 40;
    const double n0 = 1e-3;
    channel_smoother lmmse(num, channel_estimator::lmmse), dft(num, channel_estimator::dft);
    std::uniform_real_distribution<double> turn(0, 2 * M_PI), frac(0, 1);
    std::vector<float> err(U);
    double mse[2] = { 0, 0 };
    for (int t = 0; t < trials; t++) {
        const double shift = 8 + frac(rng); // where the first path lands in the window
        const std::vector<double> delays{ shift, shift + 0.38, shift + 2.1, shift + 5.3, shift + 11.7 };
        std::vector<cf> truth(std::size_t(U) * P), h(truth.size());
        for (int p = 0; p < P; p++) {
            std::vector<cd> taps;
            for (double pw : { 0.3, 0.35, 0.2, 0.1, 0.05 })
                taps.push_back(std::polar(std::sqrt(pw), turn(rng)));
            const std::vector<cd> H = frequency_response(num, taps, delays);
            for (int c = 0; c < U; c++) {
                truth[std::size_t(c) * P + p] = cf(H[c]);
                h[std::size_t(c) * P + p] = cf(H[c] + cn(rng, n0));
            }
        }
        for (int m = 0; m < 2; m++) {
            std::vector<cf> est = h;
            (m == 0 ? lmmse : dft).smooth(est.data(), rx, tx, n0, err.data());
            for (std::size_t i = 0; i < est.size(); i++)
                mse[m] += std::norm(cd(est[i]) - cd(truth[i])) / double(est.size()) / trials;
        }
    }
    std::cout << "error over N0: lmmse " << mse[0] / n0 << ", dft " << mse[1] / n0 << "\n";
    EXPECT_LT(mse[0], mse[1]) << "lmmse above dft's flat profile";
    EXPECT_LT(mse[0], 0.1 * n0);
}

TEST(ChannelSmoother, RejectsBadArguments)
{
    channel_smoother sm(numerology_preset("small"), channel_estimator::lmmse);
    std::vector<cf> h(48 * 4);
    std::vector<float> err(48);
    EXPECT_THROW(sm.smooth(h.data(), 2, 2, 0.0, err.data()), std::invalid_argument);
    EXPECT_THROW(sm.smooth(h.data(), 2, 2, NAN, err.data()), std::invalid_argument);
    EXPECT_THROW(sm.smooth(h.data(), 0, 2, 1.0, err.data()), std::invalid_argument);
}

TEST(ChannelSmoother, CpuSmoothingEngineIsTheSmoother)
{
    // make_smoothing_engine("cpu") is channel_smoother::smooth with the noise samples it
    // was made with, bit for bit; "auto" works with or without a GPU; other antennas or
    // streams are refused.
    auto rng = make_rng(211);
    const numerology num = numerology_preset("fft512");
    const int rx = 3, tx = 2, P = rx * tx, U = num.used_carriers;
    const double samples = 2.0 * 200 * rx;
    for (channel_estimator m : { channel_estimator::ls, channel_estimator::dft, channel_estimator::lmmse }) {
        channel_smoother ref(num, m);
        const auto engine = make_smoothing_engine(num, m, rx, tx, samples, "cpu");
        EXPECT_STREQ(engine->backend(), "cpu");
        EXPECT_EQ(engine->method(), m);
        EXPECT_EQ(engine->carriers(), U);
        std::vector<cf> h1(std::size_t(U) * P);
        for (auto& v : h1)
            v = cf(cn(rng, 1.0));
        std::vector<cf> h2 = h1;
        std::vector<float> e1(U), e2(U);
        ref.smooth(h1.data(), rx, tx, 0.05, e1.data(), samples);
        engine->smooth(h2.data(), rx, tx, 0.05, e2.data());
        EXPECT_EQ(h1, h2) << to_string(m);
        EXPECT_EQ(e1, e2) << to_string(m);
        EXPECT_THROW(engine->smooth(h2.data(), rx, tx + 1, 0.05, e2.data()), std::invalid_argument);
    }
    std::string why;
    const auto any = make_smoothing_engine(num, channel_estimator::lmmse, rx, tx, samples, "auto", 0, &why);
    std::cout << "auto: " << any->backend() << (why.empty() ? "" : " (" + why + ")") << "\n";
    EXPECT_THROW(make_smoothing_engine(num, channel_estimator::lmmse, 0, tx, samples, "cpu"),
                 std::invalid_argument);
}

TEST(ChannelSmoother, EstimateChannelsEqualsEachFrameAlone)
{
    // estimate_channels over 7 frames with an engine of 3 frames a call (calls of 3, 3
    // and 1, one frame non-finite and so left out of its call) gives each frame
    // estimate_channel's estimate with the same engine, byte for byte; smooth_frames
    // refuses 0 frames and more than its max_frames.
    auto rng = make_rng(212);
    const frame_format f = make_frame_format("small", 2, "16qam", 1);
    const int rx = 3, K = f.streams, U = f.num.used_carriers;
    const std::size_t per_frame = std::size_t(rx) * (1 + K) * U;
    const double samples = double(preamble_empty_carriers(f.num).size()) * rx;
    for (channel_estimator m : { channel_estimator::ls, channel_estimator::lmmse }) {
        const auto engine = make_smoothing_engine(f.num, m, rx, K, samples, "cpu", 0, nullptr, 3);
        EXPECT_EQ(engine->max_frames(), 3u);
        std::vector<std::vector<cf>> frames(7, std::vector<cf>(per_frame));
        std::vector<const cf*> at;
        for (auto& frame : frames) {
            for (auto& v : frame)
                v = cf(cn(rng, 1.0));
            at.push_back(frame.data());
        }
        frames[4][std::size_t(U) + 5] = cf(NAN, 0.0f); // a pilot symbol of antenna 0
        std::vector<channel_estimate> got;
        estimate_channels(f, at.data(), at.size(), rx, 0, *engine, got);
        ASSERT_EQ(got.size(), frames.size());
        const auto same_bytes = [](const auto& a, const auto& b) {
            return a.size() == b.size() &&
                   std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
        };
        for (std::size_t k = 0; k < frames.size(); k++) {
            const channel_estimate want = estimate_channel(f, at[k], rx, 0, *engine);
            EXPECT_TRUE(same_bytes(got[k].h, want.h)) << to_string(m) << " frame " << k;
            EXPECT_TRUE(same_bytes(got[k].error_var, want.error_var)) << to_string(m) << " frame " << k;
            EXPECT_TRUE(same_bytes(got[k].noise_eff, want.noise_eff)) << to_string(m) << " frame " << k;
            EXPECT_EQ(std::memcmp(&got[k].noise_var, &want.noise_var, sizeof(float)), 0);
        }
        EXPECT_FALSE(std::isfinite(got[4].h[std::size_t(5 * rx) * K].real())) << "carrier 5, antenna 0";
        std::vector<cf> h(std::size_t(U) * rx * K);
        std::vector<float> e(U);
        cf* hs[4] = { h.data(), h.data(), h.data(), h.data() };
        float* es[4] = { e.data(), e.data(), e.data(), e.data() };
        const double n0[4] = { 0.1, 0.1, 0.1, 0.1 };
        EXPECT_THROW(engine->smooth_frames(hs, n0, es, 0, rx, K), std::invalid_argument);
        EXPECT_THROW(engine->smooth_frames(hs, n0, es, 4, rx, K), std::invalid_argument);
    }
}
