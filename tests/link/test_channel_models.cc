/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel simulator's path models and radio impairments (core/link/mimo_channel.h,
 * channel_profiles.h, fractional_delay.h) against what each one is by definition: the
 * TDL tables' delay spread and powers, a continuous delay's phase across frequency, the
 * correlation matrices, Jakes' autocorrelation of a moving path, the timing drift of a
 * sample clock offset, phase noise's variance growth, the image an IQ imbalance makes
 * (the image rejection ratio's closed form), the DC's power, and bad parameters.
 */
#include "common/test_util.h"
#include "link/streamed_channel.h"

#include <gnuradio/gpumimo/core/link/channel_profiles.h>
#include <gnuradio/gpumimo/core/link/fractional_delay.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

// One stream of a complex tone e^{2 pi i nu t}, n samples.
std::vector<cf> tone(double nu, std::size_t n)
{
    std::vector<cf> x(n);
    for (std::size_t t = 0; t < n; t++)
        x[t] = std::polar(1.0f, float(2 * M_PI * std::remainder(nu * double(t), 1.0)));
    return x;
}

// y through a fresh channel as a stream (process(), no noise), one antenna's samples.
std::vector<cf> stream_through(mimo_channel& ch, const std::vector<cf>& x, double noise_var = 0)
{
    const channel_params& p = ch.params();
    std::vector<const cf*> in(std::size_t(p.tx), x.data());
    std::vector<std::vector<cf>> y(std::size_t(p.rx), std::vector<cf>(x.size()));
    std::vector<cf*> out;
    for (auto& v : y)
        out.push_back(v.data());
    ch.process(in.data(), out.data(), x.size(), noise_var);
    return y[0];
}

} // namespace

TEST(ChannelModels, TdlTablesHaveUnitDelaySpreadAndUnitPower)
{
    for (const std::string& m : tdl_model_names()) {
        const std::vector<channel_path> paths = tdl_paths(m, 1.0, 1.0, NAN);
        double sum = 0;
        for (const channel_path& p : paths)
            sum += p.power;
        EXPECT_NEAR(sum, 1.0, 1e-12) << m;
        // TR 38.901's tables are normalised to an RMS delay spread of 1 (to the tables'
        // rounding of delays and powers: within 2%).
        EXPECT_NEAR(rms_delay_spread(paths), 1.0, 0.02) << m;
        const bool los = m == "tdl-d" || m == "tdl-e";
        EXPECT_EQ(paths[0].los, los) << m;
        // Scaled: 300 ns at 30.72 MHz is 9.216 samples per unit of delay.
        const std::vector<channel_path> scaled = tdl_paths(m, 300e-9, 30.72e6, NAN);
        for (std::size_t i = 0; i < paths.size(); i++)
            EXPECT_NEAR(scaled[i].delay, paths[i].delay * 9.216, 1e-9) << m;
    }
    // The tables' own K-factors, and one set: LOS over the Rayleigh path beside it.
    auto k_of = [](const std::vector<channel_path>& p) { return 10 * std::log10(p[0].power / p[1].power); };
    EXPECT_NEAR(k_of(tdl_paths("tdl-d", 1, 1, NAN)), 13.3, 1e-9);
    EXPECT_NEAR(k_of(tdl_paths("tdl-e", 1, 1, NAN)), 22.0, 1e-9);
    EXPECT_NEAR(k_of(tdl_paths("tdl-d", 1, 1, 6.0)), 6.0, 1e-9);
    EXPECT_THROW(tdl_paths("tdl-a", 1, 1, 6.0), std::invalid_argument);
    EXPECT_THROW(tdl_paths("tdl-f", 1, 1, NAN), std::invalid_argument);
    EXPECT_THROW(tdl_paths("tdl-a", 0, 1, NAN), std::invalid_argument);
    EXPECT_THROW(tdl_paths("tdl-a", 1, NAN, NAN), std::invalid_argument);
}

TEST(ChannelModels, FractionalDelayKernelIsTheDelayInTheUsedBand)
{
    auto rng = make_rng(4701);
    std::uniform_real_distribution<double> frac(0.0, 1.0);
    const int W = fractional_delay_half_width;
    double worst = 0;
    for (int trial = 0; trial < 20; trial++) {
        const double f = trial == 0 ? 0.5 : frac(rng);
        for (double nu = -0.39; nu <= 0.39; nu += 0.01) {
            cd h = 0;
            for (int j = -W + 1; j <= W; j++)
                h += fractional_delay_kernel(double(j) - f) * std::polar(1.0, -2 * M_PI * nu * j);
            worst = std::max(worst, std::abs(h - std::polar(1.0, -2 * M_PI * nu * f)));
        }
    }
    EXPECT_LT(worst, 1.5e-4);
    EXPECT_DOUBLE_EQ(fractional_delay_kernel(0), 1.0);
    EXPECT_NEAR(fractional_delay_kernel(3), 0.0, 1e-15);
    EXPECT_EQ(fractional_delay_kernel(W), 0.0);
}

// A tone through one path at a continuous delay d comes out as a e^{2 pi i nu (t - latency
// - d)}: the ratio to that is the same complex number a at every frequency. A delay
// rounded to a sample would turn it by 2 pi nu (d - round(d)) across the band.
TEST(ChannelModels, APathAtAContinuousDelayTurnsEachFrequencyByItsDelay)
{
    auto rng = make_rng(4702);
    std::uniform_real_distribution<double> delay(0.0, 20.0);
    for (int trial = 0; trial < 5; trial++) {
        channel_params p;
        p.model = "paths";
        p.path_delays = { trial == 0 ? 2.5 : delay(rng) };
        p.path_powers = { 1.0 };
        p.snr_db = 300;
        p.seed = rng();
        cd first = 0;
        for (double nu : { -0.35, -0.1, 0.05, 0.2, 0.37 }) {
            mimo_channel ch(p);
            const std::size_t n = 200;
            const std::vector<cf> y = stream_through(ch, tone(nu, n));
            const double d = ch.path_latency() + p.path_delays[0];
            for (std::size_t t = std::size_t(ch.tap_count()); t < n; t++) {
                const cd a = cd(y[t]) * std::polar(1.0, -2 * M_PI * nu * (double(t) - d));
                if (first == 0.0)
                    first = a;
                ASSERT_LT(std::abs(a - first), 3e-4 * std::abs(first))
                    << "delay " << p.path_delays[0] << " nu " << nu << " t " << t;
            }
        }
    }
}

TEST(ChannelModels, CorrelationFollowsTheAnnexBMatrices)
{
    auto rng = make_rng(4703);
    const correlation_level high = parse_correlation_level("medium");
    const int R = 4, K = 2, trials = 3000;
    std::vector<cd> sum(std::size_t(R * K) * R * K, 0.0);
    for (int i = 0; i < trials; i++) {
        channel_params p;
        p.model = "paths";
        p.path_delays = { 0.0 };
        p.path_powers = { 1.0 };
        p.rx = R;
        p.tx = K;
        p.rx_correlation = high.alpha;
        p.tx_correlation = high.beta;
        p.seed = rng();
        const mimo_channel ch(p);
        // A path at delay 0: tap path_latency() is its coefficient.
        std::vector<cd> h(std::size_t(R * K));
        for (int c = 0; c < R * K; c++)
            h[std::size_t(c)] = cd(ch.taps()[std::size_t(c) * ch.tap_count() + ch.path_latency()]);
        for (int a = 0; a < R * K; a++)
            for (int b = 0; b < R * K; b++)
                sum[std::size_t(a) * R * K + b] += h[std::size_t(a)] * std::conj(h[std::size_t(b)]);
    }
    const std::vector<double> rr = antenna_correlation(R, high.alpha), rt = antenna_correlation(K, high.beta);
    EXPECT_NEAR(rr[3], 0.3, 1e-12);          // the end elements: alpha
    EXPECT_NEAR(rr[1], std::pow(0.3, 1.0 / 9), 1e-12);
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++)
            for (int r2 = 0; r2 < R; r2++)
                for (int k2 = 0; k2 < K; k2++) {
                    const cd got = sum[std::size_t(r * K + k) * R * K + (r2 * K + k2)] / double(trials);
                    const double want = rr[std::size_t(r) * R + r2] * rt[std::size_t(k) * K + k2];
                    // 3000 draws: a standard error about 0.02.
                    EXPECT_NEAR(got.real(), want, 0.08) << r << k << r2 << k2;
                    EXPECT_NEAR(got.imag(), 0.0, 0.08) << r << k << r2 << k2;
                }
    // High correlation at 16 antennas is regularised, not refused.
    channel_params p;
    p.model = "tdl-a";
    p.delay_spread = 30e-9;
    p.sample_rate = 30.72e6;
    p.rx = 16;
    p.rx_correlation = 0.9;
    EXPECT_NO_THROW(mimo_channel{ p });
    EXPECT_THROW(parse_correlation_level("very"), std::invalid_argument);
}

TEST(ChannelModels, AMovingPathHasJakesAutocorrelationAndALosPathAFixedAmplitude)
{
    auto rng = make_rng(4704);
    const double fd = 0.004;
    const std::size_t lags[] = { 0, 30, 75, 150 };
    std::vector<cd> corr(std::size(lags), 0.0);
    const int trials = 2000;
    for (int i = 0; i < trials; i++) {
        channel_params p;
        p.model = "paths";
        p.path_delays = { 0.0 };
        p.path_powers = { 1.0 };
        p.doppler = fd;
        p.seed = rng();
        mimo_channel ch(p);
        const int at = ch.path_latency();
        const cd h0 = cd(ch.taps()[std::size_t(at)]);
        std::size_t done = 0;
        std::vector<cf> zeros(200, cf(0, 0));
        for (std::size_t j = 0; j < std::size(lags); j++) {
            if (lags[j] > done) {
                std::vector<cf> part(zeros.begin(), zeros.begin() + std::ptrdiff_t(lags[j] - done));
                stream_through(ch, part);
                done = lags[j];
            }
            corr[j] += h0 * std::conj(cd(ch.taps()[std::size_t(at)]));
        }
    }
    for (std::size_t j = 0; j < std::size(lags); j++) {
        // Taps refreshed every path_update() samples: the lag rounded down to one.
        const double want = std::cyl_bessel_j(0.0, 2 * M_PI * fd * double(lags[j]));
        EXPECT_NEAR(corr[j].real() / trials, want, 0.08) << "lag " << lags[j];
        EXPECT_NEAR(corr[j].imag() / trials, 0.0, 0.08) << "lag " << lags[j];
    }
    // TDL-E at 0 Hz, every path within a tenth of a sample: the taps sum to the LOS path
    // (power P) plus the Rayleigh paths (power Q), whose power |h|^2 has mean P + Q and
    // spread sqrt(2 P Q + Q^2) (Rayleigh alone: a spread equal to its mean).
    const std::vector<channel_path> e = tdl_paths("tdl-e", 1e-9, 1e6, NAN);
    const double P = e[0].power, Q = 1 - P;
    double m1 = 0, m2 = 0;
    for (int i = 0; i < 300; i++) {
        channel_params p;
        p.model = "tdl-e";
        p.delay_spread = 1e-9; // every path within a tenth of a sample
        p.sample_rate = 1e6;
        p.seed = rng();
        const mimo_channel ch(p);
        cd h = 0;
        for (int l = 0; l < ch.tap_count(); l++)
            h += cd(ch.taps()[std::size_t(l)]);
        m1 += std::norm(h);
        m2 += std::norm(h) * std::norm(h);
    }
    m1 /= 300;
    const double spread = std::sqrt(m2 / 300 - m1 * m1), want = std::sqrt(2 * P * Q + Q * Q);
    EXPECT_NEAR(m1, 1.0, 0.08);
    EXPECT_NEAR(spread, want, 0.25 * want) << "Rayleigh alone: 1";
}

// The received signal is the transmitted one at time t (1 + eps): a tone at nu comes out
// at nu (1 + eps), its phase drifting by 2 pi nu eps a sample against the tone's.
TEST(ChannelModels, ASampleClockOffsetDriftsTheTiming)
{
    for (double ppm : { 250.0, -400.0 }) {
        channel_params p;
        p.model = "paths";
        p.path_delays = { 3.0 };
        p.path_powers = { 1.0 };
        p.impairments.sco_ppm = ppm;
        p.snr_db = 300;
        p.seed = 9;
        mimo_channel ch(p);
        const double nu = 0.3, eps = ppm * 1e-6;
        const std::size_t n = 20000; // a drift of 5 and 8 samples
        const std::vector<cf> y = stream_through(ch, tone(nu, n));
        // The phase against the tone's, unwrapped, at two times far apart.
        auto phase_at = [&](std::size_t t) {
            return std::arg(cd(y[t]) * std::polar(1.0, -2 * M_PI * nu * double(t)));
        };
        double turned = 0, prev = phase_at(1000);
        for (std::size_t t = 1001; t <= 19000; t++) {
            const double ph = phase_at(t);
            turned += std::remainder(ph - prev, 2 * M_PI);
            prev = ph;
        }
        EXPECT_NEAR(turned, 2 * M_PI * nu * eps * 18000, 0.01) << ppm << " ppm";
        // The taps' peak moved by the drift.
        auto peak = [&] {
            int best = 0;
            for (int l = 0; l < ch.tap_count(); l++)
                if (std::abs(ch.taps()[std::size_t(l)]) > std::abs(ch.taps()[std::size_t(best)]))
                    best = l;
            return best;
        };
        EXPECT_EQ(peak(), ch.path_latency() + 3 - int(std::lround(eps * double(n))));
        // Past the taps' room for drift: refused, not wrong.
        std::vector<cf> more(std::size_t(std::abs(20.0 / eps)), cf(0, 0));
        EXPECT_THROW(stream_through(ch, more), std::runtime_error);
        ch.restart();
        EXPECT_EQ(peak(), ch.path_latency() + 3);
    }
}

TEST(ChannelModels, PhaseNoiseIQImbalanceAndDcAreTheirDefinitions)
{
    auto rng = make_rng(4706);
    channel_params p;
    p.model = "paths";
    p.path_delays = { 0.0 };
    p.path_powers = { 1.0 };
    p.snr_db = 300;
    p.seed = rng();
    const std::size_t n = 40000;
    {   // Wiener: the phase's steps have variance phase_noise_var.
        channel_params q = p;
        q.impairments.phase_noise_var = 1e-3;
        mimo_channel ch(q);
        const std::vector<cf> y = stream_through(ch, std::vector<cf>(n, cf(1, 0)));
        double s2 = 0;
        for (std::size_t t = 100; t + 1 < n; t++)
            s2 += std::norm(std::remainder(std::arg(cd(y[t + 1]) / cd(y[t])), 2 * M_PI));
        EXPECT_NEAR(s2 / double(n - 101), 1e-3, 0.05e-3);
    }
    {   // IQ imbalance: the image of a tone at -nu, its power below the tone's by the image
        // rejection ratio (1 + 2 g cos phi + g^2) / (1 - 2 g cos phi + g^2).
        channel_params q = p;
        q.impairments.iq_gain_db = 1.0;
        q.impairments.iq_phase_deg = 5.0;
        mimo_channel ch(q);
        const double nu = 0.0625;
        const std::vector<cf> y = stream_through(ch, tone(nu, 4096));
        cd at_nu = 0, at_image = 0;
        for (std::size_t t = 64; t < 4096; t++) {
            at_nu += cd(y[t]) * std::polar(1.0, -2 * M_PI * nu * double(t));
            at_image += cd(y[t]) * std::polar(1.0, 2 * M_PI * nu * double(t));
        }
        const double g = std::pow(10.0, 0.05), c = std::cos(5 * M_PI / 180);
        const double irr = (1 + 2 * g * c + g * g) / (1 - 2 * g * c + g * g);
        EXPECT_NEAR(10 * std::log10(std::norm(at_nu) / std::norm(at_image)), 10 * std::log10(irr), 0.05);
    }
    {   // DC at -20 dBc of the expected signal power (noise_var 10^(snr/10)).
        channel_params q = p;
        q.snr_db = 10;
        q.impairments.dc_dbc = -20;
        mimo_channel ch(q);
        const double noise_var = 0.5, signal = noise_var * 10;
        const std::vector<cf> y = stream_through(ch, std::vector<cf>(n, cf(0, 0)), noise_var);
        cd mean = 0;
        for (const cf& v : y)
            mean += cd(v);
        mean /= double(n);
        EXPECT_NEAR(std::norm(mean), signal * 0.01, 0.1 * signal * 0.01);
    }
}

TEST(ChannelModels, StreamingAPathModelInChunksEqualsTheBlock)
{
    auto rng = make_rng(4707);
    channel_params p;
    p.model = "tdl-c";
    p.delay_spread = 300e-9;
    p.sample_rate = 7.68e6;
    p.tx = 2;
    p.rx = 3;
    p.doppler = 100 / 7.68e6;
    p.impairments.sco_ppm = 10;
    p.impairments.phase_noise_var = 1e-5;
    p.impairments.iq_gain_db = 0.5;
    p.impairments.iq_phase_deg = 3;
    p.rx_correlation = 0.3;
    p.snr_db = 300;
    p.delay = 11;
    p.seed = rng();
    const std::size_t n = 3000, len = n + std::size_t(p.delay);
    std::normal_distribution<float> g(0.0f, 0.7071f);
    std::vector<cf> x(std::size_t(p.tx) * n);
    for (auto& v : x)
        v = cf(g(rng), g(rng));
    const std::vector<cf> block = mimo_channel(p).apply(x.data(), n);
    const std::vector<cf> streamed = gpumimo_test::streamed_in_pieces(p, x, n, 300, rng);
    double power = 0;
    for (const cf& v : block)
        power += std::norm(v);
    ASSERT_GT(power, 0.01 * double(block.size()));
    for (std::size_t i = 0; i < block.size(); i++)
        ASSERT_LT(std::abs(block[i] - streamed[i]), 1e-5f * (1 + std::abs(block[i])))
            << "antenna " << i / len << " sample " << i % len;
}

TEST(ChannelModels, BadPathModelsAndImpairmentsAreRefused)
{
    auto refused = [](const channel_params& p) {
        EXPECT_THROW(mimo_channel{ p }, std::invalid_argument);
    };
    channel_params p;
    p.model = "tdl-x";
    refused(p);
    p.model = "tdl-a"; // no delay spread or sample rate
    refused(p);
    p.delay_spread = 1e-5; // a longest path of 2967 samples: fine; 10 times that is not
    p.sample_rate = 30.72e6;
    EXPECT_NO_THROW(validate(p));
    p.delay_spread = 1e-4;
    refused(p);
    p = channel_params();
    p.model = "paths";
    refused(p); // no paths
    p.path_delays = { 0, 1.5 };
    p.path_powers = { 1 };
    refused(p);
    p.path_powers = { 1, NAN };
    refused(p);
    p.path_powers = { 1, 1 };
    p.path_delays = { 0, -0.5 };
    refused(p);
    p.path_delays = { 0, 1e9 };
    refused(p);
    p.path_delays = { 0, NAN };
    refused(p);
    p = channel_params();
    p.rx_correlation = 0.5; // model taps
    refused(p);
    p = channel_params();
    p.impairments.sco_ppm = 10; // model taps
    refused(p);
    p.model = "paths";
    p.path_delays = { 0 };
    p.path_powers = { 1 };
    p.impairments.sco_ppm = 2000;
    refused(p);
    p.impairments.sco_ppm = NAN;
    refused(p);
    p.impairments.sco_ppm = 0;
    p.rx_correlation = 1.0;
    refused(p);
    p.rx_correlation = 0;
    for (double v : { double(NAN), -1e-3, 2.0 }) {
        channel_params q = p;
        q.impairments.phase_noise_var = v;
        refused(q);
    }
    for (double v : { double(NAN), 40.0 }) {
        channel_params q = p;
        q.impairments.iq_gain_db = v;
        refused(q);
        q = p;
        q.impairments.iq_phase_deg = v;
        refused(q);
    }
    for (double v : { double(NAN), double(INFINITY), 30.0 }) {
        channel_params q = p;
        q.impairments.dc_dbc = v;
        refused(q);
    }
    p.impairments.dc_dbc = -INFINITY; // none
    EXPECT_NO_THROW(mimo_channel{ p });
}

TEST(ChannelModels, ImpairmentsChangeWhileRunningAndBadOnesMoveNothing)
{
    channel_params p;
    p.model = "paths";
    p.path_delays = { 0.0 };
    p.path_powers = { 1.0 };
    p.snr_db = 300;
    p.seed = 5;
    mimo_channel ch(p);
    const double nu = 0.0625;
    auto image_db = [&] { // the tone's power over its image's
        const std::vector<cf> y = stream_through(ch, tone(nu, 2048));
        cd at_nu = 0, at_image = 0;
        for (std::size_t t = 64; t < y.size(); t++) {
            at_nu += cd(y[t]) * std::polar(1.0, -2 * M_PI * nu * double(t));
            at_image += cd(y[t]) * std::polar(1.0, 2 * M_PI * nu * double(t));
        }
        return 10 * std::log10(std::norm(at_nu) / std::max(std::norm(at_image), 1e-300));
    };
    EXPECT_GT(image_db(), 100); // no imbalance: no image
    radio_impairments m;
    m.iq_gain_db = 1.0;
    ch.set_impairments(m);
    EXPECT_LT(image_db(), 30);
    radio_impairments bad = m;
    bad.iq_phase_deg = NAN;
    EXPECT_THROW(ch.set_impairments(bad), std::invalid_argument);
    bad = m;
    bad.sco_ppm = 5; // the taps' layout depends on it
    EXPECT_THROW(ch.set_impairments(bad), std::invalid_argument);
    EXPECT_EQ(ch.params().impairments.iq_gain_db, 1.0);
    EXPECT_TRUE(std::isnan(bad.iq_phase_deg) || ch.params().impairments.iq_phase_deg == 0);
    EXPECT_LT(image_db(), 30);
}
