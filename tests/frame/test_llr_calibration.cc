/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * LLR calibration through the receiver (estimate_channel, the detector): an LLR L means
 * P(the bit's sign is wrong) = 1 / (1 + e^|L|). Over many bits of random frames and
 * channels, the error rate those LLRs predict must match the one they have, and the
 * mean |LLR| of wrong bits must stay far below that of right ones. The estimators pass
 * their error to the detectors as noise (channel_estimate::noise_eff); mmse and exact
 * max-log ml are measured (psd gives hard decisions with clipped LLRs). A receiver that
 * tells the detector N0 alone is overconfident, which the test shows as well (so that it
 * can fail).
 */
#include "frame/fused_frames.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_received_frames;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

struct calibration {
    double predicted = 0, actual = 0, mean_right = 0, mean_wrong = 0;
};

// Frames through the OFDM FFT, estimate_channel (method) and the detector, told
// noise_eff per carrier or, with n0_only, N0 alone.
calibration measure(channel_estimator method, bool n0_only, algorithm algo, std::uint64_t salt)
{
    auto rng = make_rng(salt);
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qam16;
    f.payload_symbols = 6;
    const int rx = 4;
    const std::size_t frames = 80, U = 48, S = f.symbols();
    const auto in = make_received_frames(rng, f, rx, frames, 12.0);
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, rx));
    const cpu_detector det(algo, f.mod, f.streams, rx);
    const std::size_t bpv = det.bits_per_vector();
    channel_smoother smoother(f.num, method);
    phase_tracker tracker(f);
    const std::vector<int> data = data_carriers(f.num);
    std::vector<cf> derotation(static_cast<std::size_t>(f.payload_symbols) * rx); // [symbol][antenna]
    double predicted = 0, wrong = 0, sum_right = 0, sum_wrong = 0, count = 0;
    std::vector<cf> y(rx);
    std::vector<float> llr(bpv);
    for (std::size_t fr = 0; fr < frames; fr++) {
        const std::vector<cf> carriers = gpumimo_test::demodulate(f, fft, in, rx, fr);
        const channel_estimate est = estimate_channel(f, carriers.data(), rx, int(S), smoother);
        tracker.estimate(est, &carriers[(1 + f.streams) * U], S * U, derotation.data());
        for (int s = 0; s < f.payload_symbols; s++)
            for (std::size_t d = 0; d < data.size(); d++) {
                const std::size_t c = std::size_t(data[d]);
                for (int r = 0; r < rx; r++)
                    y[r] = derotation[s * rx + r] * carriers[(r * S + 1 + f.streams + s) * U + c];
                mimo_batch b;
                b.y = y.data();
                b.h = &est.h[c * rx * f.streams];
                b.noise_var = n0_only ? &est.noise_var : &est.noise_eff[c];
                b.batch = 1;
                b.nt = f.streams;
                b.nr = rx;
                det.detect(b, llr.data(), 1);
                const std::uint8_t* bits =
                    &in.bits[fr * f.payload_bits() + (s * data.size() + d) * bpv];
                for (std::size_t i = 0; i < bpv; i++) {
                    const double a = std::abs(double(llr[i]));
                    const bool bad = (llr[i] > 0) != (bits[i] == 1);
                    predicted += 1 / (1 + std::exp(a));
                    wrong += bad;
                    (bad ? sum_wrong : sum_right) += a;
                    count++;
                }
            }
    }
    calibration out;
    out.predicted = predicted / count;
    out.actual = wrong / count;
    out.mean_right = sum_right / (count - wrong);
    out.mean_wrong = wrong ? sum_wrong / wrong : 0;
    return out;
}

} // namespace

TEST(LlrCalibration, PredictedErrorRateMatchesTheActualOne)
{
    for (channel_estimator m : { channel_estimator::lmmse, channel_estimator::ls })
        for (algorithm a : { algorithm::mmse, algorithm::ml }) {
            const calibration c = measure(m, false, a, 1700 + int(m) * 10 + int(a));
            std::cout << to_string(m) << " " << to_string(a) << ": BER " << c.actual
                      << ", predicted " << c.predicted << " (ratio " << c.predicted / c.actual
                      << "), mean |LLR| right " << c.mean_right << " wrong " << c.mean_wrong << "\n";
            ASSERT_GT(c.actual, 1e-3) << "12 dB, 2x4 16-QAM: errors to count";
            EXPECT_GT(c.predicted / c.actual, 0.7) << to_string(m) << " " << to_string(a);
            EXPECT_LT(c.predicted / c.actual, 1.4) << to_string(m) << " " << to_string(a);
            EXPECT_LT(c.mean_wrong, 0.35 * c.mean_right);
        }
}

// Least squares told as exact (N0 alone): the LLRs claim fewer errors than they make.
TEST(LlrCalibration, IgnoringTheEstimatesErrorIsOverconfident)
{
    const calibration c = measure(channel_estimator::ls, true, algorithm::mmse, 1799);
    std::cout << "ls, N0 only: BER " << c.actual << ", predicted " << c.predicted << "\n";
    EXPECT_LT(c.predicted / c.actual, 0.7);
}
