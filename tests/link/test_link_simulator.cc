/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator on the CPU: its frames (codewords that satisfy H, the information
 * where the encoder put it, channel and noise powers, the tapped delay line's frequency
 * response), the uncoded BER of 1x1 QPSK over AWGN and Rayleigh fading against the
 * closed forms, a short coded run of every detector, reproducibility across threads and
 * batches, the stopping rule and refusals. Seeds from test_util.h (printed).
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace gr::gpumimo::core;
using gpumimo_test::test_seed;

namespace {

link_config cpu_config(int nt, int nr, modulation mod, algorithm algo)
{
    link_config c;
    c.nt = nt;
    c.nr = nr;
    c.mod = mod;
    c.algo = algo;
    c.backend = "cpu";
    c.threads = 2;
    c.seed = test_seed();
    return c;
}

struct frame_data {
    std::vector<std::uint8_t> info, bits;
    std::vector<cf32> h, y;
};

frame_data make_frame(const link_setup& s, std::uint32_t point, std::uint64_t frame, float n0)
{
    frame_data d;
    d.info.resize(s.layout.k);
    d.bits.resize(s.layout.frame_bits);
    d.h.resize(std::size_t(s.layout.channels) * s.config.nr * s.config.nt);
    d.y.resize(std::size_t(s.layout.vectors) * s.config.nr);
    make_link_frame(s, point, frame, n0, d.info.data(), d.bits.data(), d.h.data(), d.y.data());
    return d;
}

// Q(x) = P(N(0,1) > x).
double q_function(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

// |measured - expected| within 5 binomial standard deviations (plus one error).
void expect_rate(double expected, std::uint64_t errors, std::uint64_t trials, const char* what)
{
    const double sigma = std::sqrt(expected * (1 - expected) / double(trials));
    EXPECT_NEAR(double(errors) / double(trials), expected, 5 * sigma + 1.0 / double(trials))
        << what << ": " << errors << " errors in " << trials;
}

} // namespace

TEST(LinkRandom, UniformsStayInsideTheOpenInterval)
{
    // The extremes of the word, and every value near them: Box-Muller's log must never
    // see 0 or 1 (an exact 1 made a zero channel gain, which the detector refuses).
    for (std::uint32_t w : { 0u, 1u, 511u, 512u, 0xFFFFFE00u, 0xFFFFFFFEu, 0xFFFFFFFFu }) {
        const float u = philox_uniform(w);
        EXPECT_GT(u, 0.0f) << w;
        EXPECT_LT(u, 1.0f) << w;
        float g0, g1;
        philox_gaussian_pair(w, 12345u, g0, g1);
        EXPECT_GT(std::hypot(g0, g1), 0.0f) << w;
    }
    // Distinct words a step of 2^9 apart give distinct uniforms: no value is lost to
    // rounding at the top.
    EXPECT_LT(philox_uniform(0xFFFFFC00u), philox_uniform(0xFFFFFE00u));
}

TEST(LinkSetup, LayoutAndInterleaver)
{
    const link_setup s(cpu_config(4, 4, modulation::qam16, algorithm::mtt));
    EXPECT_EQ(s.layout.n, 2304);
    EXPECT_EQ(s.layout.k, 1152);
    EXPECT_EQ(s.layout.bits_per_vector, 16);
    EXPECT_EQ(s.layout.vectors, 144);
    EXPECT_EQ(s.layout.frame_bits, 2304);
    EXPECT_EQ(s.layout.channels, 144);
    std::set<std::uint32_t> seen(s.interleaver.begin(), s.interleaver.end());
    EXPECT_EQ(seen.size(), s.interleaver.size());
    EXPECT_EQ(*seen.rbegin(), std::uint32_t(s.layout.frame_bits - 1));
    // A permutation that moves almost every bit (the identity would not interleave).
    std::size_t fixed = 0;
    for (std::size_t i = 0; i < s.interleaver.size(); i++)
        fixed += s.interleaver[i] == i;
    EXPECT_LT(fixed, 20u);

    // 2x2 64-QAM: 12 bits a vector, 192 vectors; 8x8 256-QAM pads 2304 to 2304 + 64.
    EXPECT_EQ(link_setup(cpu_config(2, 2, modulation::qam64, algorithm::ml)).layout.vectors, 192);
    const link_setup big(cpu_config(8, 8, modulation::qam256, algorithm::zf));
    EXPECT_EQ(big.layout.vectors, 36);
    EXPECT_EQ(big.layout.frame_bits, 2304);
    link_config odd = cpu_config(3, 3, modulation::qam64, algorithm::zf);
    const link_setup padded(odd);
    EXPECT_EQ(padded.layout.vectors, 128);
    EXPECT_EQ(padded.layout.frame_bits, 2304);
    odd.nt = odd.nr = 5;
    EXPECT_EQ(link_setup(odd).layout.frame_bits, 77 * 30);
}

TEST(LinkFrame, CodewordsInformationChannelAndNoise)
{
    link_config c = cpu_config(4, 4, modulation::qam16, algorithm::mtt);
    c.coherence_vectors = 4;
    const link_setup s(c);
    const float n0 = s.noise_variance(6.0);
    EXPECT_NEAR(n0, 4 * std::pow(10.0, -0.6), 1e-6);
    const constellation constel(c.mod);
    const int m = 4;
    double noise_power = 0, h_power = 0, ones = 0;
    std::size_t noise_count = 0, h_count = 0, bit_count = 0;
    for (std::uint64_t f = 0; f < 20; f++) {
        const frame_data d = make_frame(s, 3, 1000 + f, n0);
        std::vector<std::uint8_t> codeword(s.layout.n);
        for (int i = 0; i < s.layout.n; i++)
            codeword[i] = d.bits[s.interleaver[i]];
        ASSERT_TRUE(c.code.satisfied(codeword.data())) << "frame " << f;
        for (int i = 0; i < s.layout.k; i++)
            ASSERT_EQ(codeword[s.encoder->info_positions()[i]], d.info[i]);
        for (std::uint8_t b : d.info)
            ones += b;
        bit_count += d.info.size();
        for (const cf32& h : d.h)
            h_power += std::norm(h);
        h_count += d.h.size();
        // y - H s from an independent mapping of the frame's bits.
        for (int v = 0; v < s.layout.vectors; v++) {
            for (int r = 0; r < c.nr; r++) {
                std::complex<double> hs = 0;
                for (int t = 0; t < c.nt; t++) {
                    int index = 0;
                    for (int b = 0; b < m; b++)
                        index = 2 * index + d.bits[v * 16 + t * m + b];
                    hs += std::complex<double>(d.h[(v / 4) * 16 + r * 4 + t]) * constel.point(index);
                }
                noise_power += std::norm(std::complex<double>(d.y[v * 4 + r]) - hs);
                noise_count++;
            }
        }
    }
    EXPECT_NEAR(ones / double(bit_count), 0.5, 0.02);
    EXPECT_NEAR(h_power / double(h_count), 1.0, 0.05); // 20 x 36 x 16 entries
    EXPECT_NEAR(noise_power / double(noise_count) / n0, 1.0, 0.03); // 11520 samples

    // The same counter, the same frame; another frame, point or seed, another one.
    const frame_data a = make_frame(s, 3, 1000, n0), b = make_frame(s, 3, 1000, n0);
    EXPECT_EQ(a.bits, b.bits);
    EXPECT_EQ(a.y, b.y);
    EXPECT_NE(make_frame(s, 3, 1001, n0).info, a.info);
    EXPECT_NE(make_frame(s, 4, 1000, n0).info, a.info);
    link_config other = c;
    other.seed = c.seed + 1;
    EXPECT_NE(make_frame(link_setup(other), 3, 1000, n0).info, a.info);
}

TEST(LinkFrame, TappedDelayLineIsTheTapsDft)
{
    link_config c = cpu_config(2, 2, modulation::qpsk, algorithm::mmse);
    c.channel = link_channel::tdl;
    c.tap_powers = { 5, 3, 2 }; // normalised to 0.5, 0.3, 0.2
    c.tdl_fft_len = 64;
    const link_setup s(c); // 576 vectors: subcarriers 0..63 nine times over
    ASSERT_EQ(s.layout.group, 1);
    std::vector<double> tap_power(64, 0.0);
    const int frames = 200;
    for (int f = 0; f < frames; f++) {
        const frame_data d = make_frame(s, 0, std::uint64_t(f), 1.0f);
        for (int e = 0; e < 4; e++) {
            // The channel repeats every 64 subcarriers, and its inverse DFT is the taps.
            for (int v = 64; v < s.layout.vectors; v++)
                ASSERT_LT(std::abs(d.h[v * 4 + e] - d.h[(v % 64) * 4 + e]), 1e-6);
            for (int l = 0; l < 64; l++) {
                std::complex<double> tap = 0;
                for (int sc = 0; sc < 64; sc++)
                    tap += std::complex<double>(d.h[sc * 4 + e]) *
                           std::polar(1.0, 2 * M_PI * sc * l / 64.0);
                tap /= 64.0;
                tap_power[l] += std::norm(tap) / (4.0 * frames);
                if (l >= 3)
                    ASSERT_LT(std::abs(tap), 1e-5) << "tap " << l;
            }
        }
    }
    EXPECT_NEAR(tap_power[0], 0.5, 0.1);
    EXPECT_NEAR(tap_power[1], 0.3, 0.07);
    EXPECT_NEAR(tap_power[2], 0.2, 0.05);
}

// Continuous delays (a TR 38.901 profile's): each H is sum_l g_l e^{-2 pi i sc tau_l / N}.
// The taps' gains are not visible, but with a path at delay 0 and one at a fractional
// delay the response's correlation between subcarriers sc and sc + 1,
// E H(sc+1) conj(H(sc)) = sum_l p_l e^{-2 pi i tau_l / N}, is: its phase and size against
// the formula over many draws; and integer delays give the sample-spaced channel.
TEST(LinkFrame, ContinuousDelaysAreTheirResponse)
{
    link_config c = cpu_config(2, 2, modulation::qpsk, algorithm::mmse);
    c.channel = link_channel::tdl;
    c.tap_powers = { 0.5, 0.5 };
    c.tap_delays = { 0.0, 2.5 };
    c.tdl_fft_len = 64;
    const link_setup s(c);
    std::complex<double> corr = 0;
    double power = 0;
    const int frames = 300;
    for (int f = 0; f < frames; f++) {
        const frame_data d = make_frame(s, 0, std::uint64_t(f), 1.0f);
        for (int e = 0; e < 4; e++)
            for (int sc = 0; sc + 1 < 64; sc++) {
                corr += std::complex<double>(d.h[(sc + 1) * 4 + e]) * std::conj(std::complex<double>(d.h[sc * 4 + e]));
                power += std::norm(std::complex<double>(d.h[sc * 4 + e]));
            }
    }
    const std::complex<double> want = 0.5 + 0.5 * std::polar(1.0, -2 * M_PI * 2.5 / 64);
    EXPECT_LT(std::abs(corr / power - want), 0.05) << corr / power << " against " << want;
    // Integer delays: the sample-spaced taps, to float rounding.
    link_config a = cpu_config(2, 2, modulation::qpsk, algorithm::mmse);
    a.channel = link_channel::tdl;
    a.tap_powers = { 0.6, 0.3, 0.1 };
    a.tdl_fft_len = 64;
    link_config b = a;
    b.tap_delays = { 0, 1, 2 };
    const frame_data da = make_frame(link_setup(a), 0, 3, 1.0f), db = make_frame(link_setup(b), 0, 3, 1.0f);
    ASSERT_EQ(da.h.size(), db.h.size());
    for (std::size_t i = 0; i < da.h.size(); i++)
        ASSERT_LT(std::abs(da.h[i] - db.h[i]), 1e-5f) << i;
}

TEST(LinkSimulator, UncodedQpskMatchesTheClosedForms)
{
    for (link_channel ch : { link_channel::awgn, link_channel::rayleigh }) {
        link_config c = cpu_config(1, 1, modulation::qpsk, algorithm::zf);
        c.code = ldpc_code();
        c.channel = ch;
        c.target_frame_errors = 0;
        c.max_frames = 60; // 138,240 bits a point
        link_simulator sim(c);
        EXPECT_EQ(sim.backend(), "cpu");
        const std::vector<double> snrs{ 0.0, 4.0, 8.0 };
        const auto points = sim.run(snrs);
        for (std::size_t i = 0; i < snrs.size(); i++) {
            const double snr = std::pow(10.0, snrs[i] / 10.0); // Es/N0; Eb/N0 = snr / 2
            const double expected = ch == link_channel::awgn
                                        ? q_function(std::sqrt(snr))
                                        : 0.5 * (1 - std::sqrt(snr / 2 / (1 + snr / 2)));
            EXPECT_EQ(points[i].counts.frames, 60u);
            EXPECT_EQ(points[i].counts.bit_errors, points[i].counts.raw_bit_errors);
            EXPECT_NEAR(points[i].ebn0_db, snrs[i] - 10 * std::log10(2.0), 1e-9);
            expect_rate(expected, points[i].counts.bit_errors, points[i].counts.info_bits,
                        (to_string(ch) + " SNR " + std::to_string(snrs[i])).c_str());
        }
    }
}

TEST(LinkSimulator, EveryDetectorCodedOn2x2Qpsk)
{
    std::map<std::string, std::pair<link_point, link_point>> runs;
    for (const std::string& name : algorithm_names()) { // every detector of the registry
        link_config c = cpu_config(2, 2, modulation::qpsk, parse_algorithm(name));
        c.target_frame_errors = 0;
        c.max_frames = 24;
        link_simulator sim(c);
        const link_point low = sim.run_point(0, 0.0), high = sim.run_point(1, 12.0);
        EXPECT_GE(low.fer(), 0.9) << name;
        EXPECT_LE(high.fer(), 0.1) << name;
        EXPECT_LT(high.ber(), high.raw_ber()) << name << ": the code corrects";
        EXPECT_GT(high.raw_ber(), 0.0) << name;
        EXPECT_GT(low.mean_iterations(), high.mean_iterations()) << name;
        runs[name] = { low, high };
    }
    // Common random numbers: every detector saw the same frames. For 2x2 the trellis
    // detector's lists hold the max-log minima, so its LLRs are ML's; the sphere
    // detector's decisions are ML's.
    for (int p = 0; p < 2; p++) {
        auto pick = [&](const char* name) {
            return p ? runs[name].second.counts : runs[name].first.counts;
        };
        EXPECT_EQ(pick("mtt").raw_bit_errors, pick("ml").raw_bit_errors);
        EXPECT_EQ(pick("mtt").bit_errors, pick("ml").bit_errors);
        EXPECT_EQ(pick("psd").raw_bit_errors, pick("ml").raw_bit_errors);
    }
}

TEST(LinkSimulator, ThreadsAndBatchesDoNotChangeTheFrames)
{
    link_config c = cpu_config(2, 2, modulation::qam16, algorithm::mmse);
    c.target_frame_errors = 0;
    c.max_frames = 13;
    c.threads = 1;
    c.max_batch_frames = 13;
    const link_point one = link_simulator(c).run_point(2, 9.0);
    c.threads = 3;
    c.max_batch_frames = 2;
    const link_point three = link_simulator(c).run_point(2, 9.0);
    EXPECT_EQ(one.counts.frames, 13u);
    EXPECT_EQ(three.counts.frames, 13u);
    EXPECT_EQ(one.counts.frame_errors, three.counts.frame_errors);
    EXPECT_EQ(one.counts.bit_errors, three.counts.bit_errors);
    EXPECT_EQ(one.counts.raw_bit_errors, three.counts.raw_bit_errors);
    EXPECT_EQ(one.counts.iterations, three.counts.iterations);
}

TEST(LinkSimulator, StoppingRule)
{
    link_config c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.target_frame_errors = 5;
    c.max_frames = 1000;
    c.max_batch_frames = 4;
    link_simulator sim(c);
    int calls = 0;
    const link_point low = sim.run_point(0, -5.0, [&](const link_point&) { calls++; });
    EXPECT_GE(low.counts.frame_errors, 5u);
    EXPECT_LT(low.counts.frames, 5u + 4u); // stops after the batch that reached 5
    EXPECT_GE(calls, 1);
    const link_point high = sim.run_point(1, 40.0);
    EXPECT_EQ(high.counts.frame_errors, 0u);
    EXPECT_EQ(high.counts.frames, 1000u); // the frame limit, exactly
}

TEST(LinkSimulator, Refusals)
{
    auto refused = [](const link_config& c) {
        EXPECT_THROW(link_setup{ c }, std::invalid_argument);
    };
    link_config c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.channel = link_channel::awgn;
    c.nr = 3;
    refused(c); // H = I needs nr == nt
    c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.coherence_vectors = 7; // 576 vectors: 7 does not divide
    refused(c);
    c = cpu_config(2, 1, modulation::qpsk, algorithm::zf);
    refused(c);
    c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.channel = link_channel::tdl;
    c.tap_powers = { 1.0, -1.0 };
    refused(c);
    c.tap_powers = {};
    refused(c);
    c.tap_powers = { 0.5, 0.5 };
    c.tap_delays = { 0.0 }; // one per tap
    refused(c);
    c.tap_delays = { 0.0, NAN };
    refused(c);
    c.tap_delays = { 0.0, 256.0 }; // the default 256 subcarriers
    refused(c);
    c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.max_frames = 0;
    refused(c);
    c.max_frames = 10;
    c.backend = "gpu";
    refused(c);
    c.backend = "cpu";
    c.decoder.max_iterations = 0;
    refused(c);
    c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
    c.devices = { 0, -1 };
    refused(c);
    EXPECT_THROW(parse_link_channel("fading"), std::invalid_argument);

    // No GPU here: "cuda" refuses, "auto" runs on the CPU and says why.
    if (cuda_device_count() == 0) {
        c = cpu_config(2, 2, modulation::qpsk, algorithm::zf);
        c.backend = "cuda";
        EXPECT_THROW(link_simulator{ c }, std::runtime_error);
        c.devices = { 0, 1 }; // over several GPUs: refused the same way
        EXPECT_THROW(link_simulator{ c }, std::runtime_error);
        c.devices.clear();
        c.backend = "auto";
        link_simulator sim(c);
        EXPECT_EQ(sim.backend(), "cpu");
        EXPECT_FALSE(sim.fallback_reason().empty());
    }
}
