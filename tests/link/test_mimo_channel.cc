/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel simulator (core/mimo_channel.h) against a direct evaluation of its
 * definition: flat and tapped-delay-line fading, the carrier and timing offsets, the
 * noise power at the set SNR, the taps' statistics, repeatability, bad parameters.
 */
#include "common/test_util.h"
#include "link/streamed_channel.h"

#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

std::vector<cf> random_streams(std::mt19937_64& rng, int streams, std::size_t n)
{
    std::normal_distribution<float> g(0.0f, 0.7071f);
    std::vector<cf> x(streams * n);
    for (auto& v : x)
        v = { g(rng), g(rng) };
    return x;
}

// y_r[t] = sum_k sum_l h[r][k][l] x_k[t - l], in double, from the channel's own taps.
std::complex<double> direct(const mimo_channel& ch, const std::vector<cf>& x, std::size_t n,
                            int r, std::size_t t)
{
    const channel_params& p = ch.params();
    const int L = int(p.tap_powers.size());
    std::complex<double> acc = 0;
    for (int k = 0; k < p.tx; k++)
        for (int l = 0; l < L; l++)
            if (std::size_t(l) <= t)
                acc += std::complex<double>(ch.taps()[(std::size_t(r) * p.tx + k) * L + l]) *
                       std::complex<double>(x[k * n + t - l]);
    return acc;
}

} // namespace

TEST(MimoChannel, NoiselessOutputIsTheFilteredRotatedDelayedInput)
{
    auto rng = make_rng(1301);
    for (const auto& taps : { std::vector<double>{ 1.0 }, std::vector<double>{ 0.5, 0.3, 0.2 } }) {
        channel_params p;
        p.tx = 3;
        p.rx = 5;
        p.tap_powers = taps;
        p.snr_db = 300; // noise far below float resolution
        p.cfo = 0.0123;
        p.delay = 17;
        p.seed = rng();
        mimo_channel ch(p);
        const std::size_t n = 500;
        const std::vector<cf> x = random_streams(rng, p.tx, n);
        const std::vector<cf> y = ch.apply(x.data(), n);
        ASSERT_EQ(y.size(), std::size_t(p.rx) * (n + p.delay));
        for (int r = 0; r < p.rx; r++) {
            for (int t = 0; t < p.delay; t++)
                ASSERT_LT(std::abs(y[r * (n + p.delay) + t]), 1e-6f);
            for (std::size_t t = 0; t < n; t++) {
                const std::complex<double> want =
                    direct(ch, x, n, r, t) * std::polar(1.0, 2 * M_PI * p.cfo * double(t));
                ASSERT_LT(std::abs(std::complex<double>(y[r * (n + p.delay) + p.delay + t]) - want),
                          1e-5 * (1 + std::abs(want)))
                    << "antenna " << r << " sample " << t << ", " << taps.size() << " taps";
            }
        }
    }
}

TEST(MimoChannel, NoisePowerFollowsTheSnr)
{
    auto rng = make_rng(1302);
    for (double snr : { 0.0, 10.0, 25.0 }) {
        channel_params p;
        p.tx = 2;
        p.rx = 4;
        p.snr_db = snr;
        p.seed = rng();
        const std::size_t n = 20000;
        const std::vector<cf> x = random_streams(rng, p.tx, n);
        channel_params quiet = p;
        quiet.snr_db = 300;
        const std::vector<cf> clean = mimo_channel(quiet).apply(x.data(), n); // same taps
        const std::vector<cf> noisy = mimo_channel(p).apply(x.data(), n);
        double signal = 0, noise = 0;
        for (std::size_t i = 0; i < clean.size(); i++) {
            signal += std::norm(std::complex<double>(clean[i]));
            noise += std::norm(std::complex<double>(noisy[i]) - std::complex<double>(clean[i]));
        }
        // 80,000 complex noise samples: the measured power is within a few % of its mean.
        EXPECT_NEAR(10 * std::log10(signal / noise), snr, 0.1) << "SNR " << snr << " dB";
    }
}

TEST(MimoChannel, TapsHaveTheProfilesPowers)
{
    auto rng = make_rng(1303);
    channel_params p;
    p.tx = 8;
    p.rx = 16;
    p.tap_powers = { 4, 2, 1, 1 }; // normalised to 0.5, 0.25, 0.125, 0.125
    double sum[4] = { 0, 0, 0, 0 };
    const int draws = 40;
    for (int d = 0; d < draws; d++) {
        p.seed = rng();
        const mimo_channel ch(p);
        for (std::size_t i = 0; i < ch.taps().size(); i++)
            sum[i % 4] += std::norm(std::complex<double>(ch.taps()[i]));
    }
    const double n = double(draws) * p.tx * p.rx; // 5,120 taps each: ~1.4% standard error
    const double want[4] = { 0.5, 0.25, 0.125, 0.125 };
    for (int l = 0; l < 4; l++)
        EXPECT_NEAR(sum[l] / n, want[l], 0.07 * want[l]) << "tap " << l;
}

TEST(MimoChannel, TheSeedRepeatsARun)
{
    auto rng = make_rng(1304);
    channel_params p;
    p.tx = 2;
    p.rx = 2;
    p.snr_db = 5;
    p.seed = rng();
    const std::vector<cf> x = random_streams(rng, 2, 300);
    const std::vector<cf> a = mimo_channel(p).apply(x.data(), 300);
    const std::vector<cf> b = mimo_channel(p).apply(x.data(), 300);
    EXPECT_EQ(a, b);
    p.seed += 1;
    EXPECT_NE(a, mimo_channel(p).apply(x.data(), 300));
}

TEST(MimoChannel, BadParametersAndInputAreRefused)
{
    channel_params p;
    p.tx = 0;
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    p = channel_params();
    p.tap_powers = {};
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    p.tap_powers = { 0.0, 0.0 };
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    p.tap_powers = { 1.0, -0.1 };
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    p = channel_params();
    p.delay = -1;
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    p = channel_params();
    p.cfo = NAN;
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    // An SNR whose noise is infinite or zero, a delay no buffer holds: refused by the
    // constructor and the setters alike, the running channel left as it was.
    for (const double snr : { -1e308, -101.0, 401.0, double(NAN), double(INFINITY) }) {
        p = channel_params();
        p.snr_db = snr;
        EXPECT_THROW(mimo_channel{ p }, std::invalid_argument) << snr;
    }
    p = channel_params();
    p.delay = max_delay_samples + 1;
    EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    mimo_channel set{ channel_params() };
    EXPECT_THROW(set.set_snr_db(-1e308), std::invalid_argument);
    EXPECT_EQ(set.params().snr_db, channel_params().snr_db);
    EXPECT_TRUE(std::isfinite(set.stream_noise_var(1.0)) && set.stream_noise_var(1.0) > 0);
    mimo_channel ch{ channel_params() };
    std::vector<cf> x(10, cf(1, 0));
    x[4] = cf(INFINITY, 0);
    EXPECT_THROW(ch.apply(x.data(), 10), std::invalid_argument);
}

TEST(MimoChannel, StreamingInRandomChunksEqualsTheBlock)
{
    auto rng = make_rng(1305);
    channel_params p;
    p.tx = 2;
    p.rx = 3;
    p.tap_powers = { 0.6, 0.3, 0.1 };
    p.snr_db = 300;
    p.cfo = -0.0071;
    p.delay = 9;
    p.seed = rng();
    const std::size_t n = 700;
    const std::vector<cf> x = random_streams(rng, p.tx, n);
    const std::vector<cf> block = mimo_channel(p).apply(x.data(), n);

    // The same input then `delay` zeros as a stream, cut at random points.
    const std::size_t len = n + p.delay;
    const std::vector<cf> streamed = gpumimo_test::streamed_in_pieces(p, x, n, 90, rng);
    for (std::size_t i = 0; i < block.size(); i++)
        ASSERT_LT(std::abs(block[i] - streamed[i]), 1e-5f * (1 + std::abs(block[i])))
            << "antenna " << i / len << " sample " << i % len;
}

// The noise and the radio's impairments do not depend on where a stream is cut: a
// flowgraph repeats with the same seed whatever sizes GNU Radio's calls have (the noise
// was drawn antenna by antenna from a distribution made per call: two runs of one
// flowgraph differed by up to 1.9 at 14 dB). 10 dB, 3 antennas, phase noise, IQ
// imbalance and DC on; the stream in one call against cuts of 0 to 90 samples.
TEST(MimoChannel, NoiseIsTheSameWhereverTheStreamIsCut)
{
    auto rng = make_rng(1307);
    channel_params p;
    p.tx = 2;
    p.rx = 3;
    p.tap_powers = { 0.6, 0.3, 0.1 };
    p.snr_db = 10;
    p.cfo = 0.0031;
    p.delay = 9;
    p.impairments.phase_noise_var = 1e-4;
    p.impairments.iq_gain_db = 0.5;
    p.impairments.iq_phase_deg = 3;
    p.impairments.dc_dbc = -20;
    p.seed = rng();
    const std::size_t n = 1500;
    const std::vector<cf> x = random_streams(rng, p.tx, n);
    const double var = mimo_channel(p).stream_noise_var(1.0);
    const std::vector<cf> whole = gpumimo_test::streamed_in_pieces(p, x, n, 0, rng, var);
    const std::vector<cf> cut = gpumimo_test::streamed_in_pieces(p, x, n, 90, rng, var);
    const std::size_t len = n + std::size_t(p.delay);
    double noise = 0;
    for (std::size_t i = 0; i < whole.size(); i++) {
        ASSERT_LT(std::abs(whole[i] - cut[i]), 1e-5f * (1 + std::abs(whole[i])))
            << "antenna " << i / len << " sample " << i % len;
        noise += std::abs(whole[i]);
    }
    EXPECT_GT(noise, 0.1 * double(whole.size())); // the noise is there: 10 dB
}

TEST(MimoChannel, StreamingNoiseHasTheSetVarianceAndBadInputMovesNothing)
{
    auto rng = make_rng(1306);
    channel_params p;
    p.tx = 4;
    p.rx = 2;
    p.snr_db = 7;
    p.seed = rng();
    mimo_channel ch(p);
    const double var = ch.stream_noise_var(0.5);
    EXPECT_NEAR(var, 4 * 0.5 / std::pow(10.0, 0.7), 1e-12);
    const std::size_t n = 40000;
    std::vector<cf> zeros(n), y0(n), y1(n);
    const cf* in[4] = { zeros.data(), zeros.data(), zeros.data(), zeros.data() };
    cf* out[2] = { y0.data(), y1.data() };
    ch.process(in, out, n, var);
    double power = 0;
    for (std::size_t t = 0; t < n; t++)
        power += std::norm(std::complex<double>(y0[t])) + std::norm(std::complex<double>(y1[t]));
    EXPECT_NEAR(power / (2.0 * n), var, 0.03 * var); // 80,000 samples: 0.5% standard error

    std::vector<cf> bad(n, cf(0.1f, 0));
    bad[123] = cf(0, NAN);
    const cf* bad_in[4] = { zeros.data(), bad.data(), zeros.data(), zeros.data() };
    std::fill(y0.begin(), y0.end(), cf(7, 7));
    EXPECT_THROW(ch.process(bad_in, out, n, var), std::invalid_argument);
    EXPECT_EQ(y0[0], cf(7, 7));
    EXPECT_THROW(ch.process(in, out, n, -1.0), std::invalid_argument);
}

// A time-varying channel: the output is the input through the taps of its own sample
// (read one sample at a time), the taps move, and across seeds their autocorrelation is
// Jakes' J0(2 pi f_D lag) and their power the profile's.
TEST(MimoChannel, DopplerFadesTheTapsWithJakesAutocorrelation)
{
    auto rng = make_rng(2201);
    const double fd = 0.01;
    {
        channel_params p;
        p.tx = 2;
        p.rx = 2;
        p.tap_powers = { 0.6, 0.4 };
        p.doppler = fd;
        p.snr_db = 300; // no noise to speak of
        p.seed = rng();
        mimo_channel ch(p);
        const std::size_t n = 200;
        const std::vector<cf> x = random_streams(rng, 2, n);
        std::vector<cf> prev(2, cf(0, 0)); // x_k[t - 1]
        double moved = 0;
        const std::vector<cf> first = ch.taps();
        for (std::size_t t = 0; t < n; t++) {
            const std::vector<cf> h = ch.taps(); // what sample t meets
            const cf* in[2] = { &x[t], &x[n + t] };
            cf y[2];
            cf* out[2] = { &y[0], &y[1] };
            ch.process(in, out, 1, 0.0);
            for (int r = 0; r < 2; r++) {
                std::complex<double> want = 0;
                for (int k = 0; k < 2; k++)
                    want += std::complex<double>(h[(r * 2 + k) * 2]) * std::complex<double>(x[k * n + t]) +
                            std::complex<double>(h[(r * 2 + k) * 2 + 1]) * std::complex<double>(prev[k]);
                ASSERT_LT(std::abs(std::complex<double>(y[r]) - want), 1e-5) << t;
            }
            prev = { x[t], x[n + t] };
        }
        for (std::size_t i = 0; i < first.size(); i++)
            moved += std::abs(ch.taps()[i] - first[i]);
        EXPECT_GT(moved, 0.1); // 200 samples is 2 Doppler cycles
        ch.restart();
        EXPECT_EQ(ch.taps(), first);
    }
    // Statistics over 3000 channels: E h(t) conj(h(t + lag)) / power against J0.
    const int trials = 3000;
    const std::size_t lags[] = { 0, 8, 20, 38, 60 };
    std::vector<std::complex<double>> corr(std::size(lags), 0.0);
    std::vector<float> zeros(2, 0.0f);
    for (int i = 0; i < trials; i++) {
        channel_params p;
        p.doppler = fd;
        p.seed = rng();
        mimo_channel ch(p);
        const cf h0 = ch.taps()[0];
        std::size_t at = 0;
        std::vector<cf> in(64, cf(0, 0)), out(64);
        for (std::size_t j = 0; j < std::size(lags); j++) {
            const std::size_t step = lags[j] - at;
            if (step) {
                const cf* ip[1] = { in.data() };
                cf* op[1] = { out.data() };
                ch.process(ip, op, step, 0.0);
                at = lags[j];
            }
            corr[j] += std::complex<double>(h0) * std::conj(std::complex<double>(ch.taps()[0]));
        }
    }
    for (std::size_t j = 0; j < std::size(lags); j++) {
        const double want = std::cyl_bessel_j(0.0, 2 * M_PI * fd * double(lags[j]));
        // The estimate's spread: about 1 / sqrt(trials) = 0.018.
        EXPECT_NEAR(corr[j].real() / trials, want, 0.07) << "lag " << lags[j];
        EXPECT_NEAR(corr[j].imag() / trials, 0.0, 0.07) << "lag " << lags[j];
    }
    channel_params bad;
    for (double d : { -0.1, 0.6, double(NAN) }) {
        bad.doppler = d;
        EXPECT_THROW(validate(bad), std::invalid_argument) << d;
    }
}
