/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator's CUDA engine against the CPU reference: the frames it makes (the
 * same bits; channel and output samples within float rounding of the host's Box-Muller)
 * for every channel, coded and uncoded, with device buffers poisoned first; its counts
 * on the same frames as the CPU engine's (double-precision detector, min-sum decoder
 * bit for bit: equal up to the rare frame a last-place difference in the samples tips);
 * the uncoded closed form for 1x1 QPSK over AWGN on many more bits than the CPU test;
 * every detector it runs. Skipped, and reported as skipped, without a usable GPU.
 */
#include "common/gpu_test.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/link/link_simulator.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

using namespace gr::gpumimo::core;
using gpumimo_test::test_seed;

namespace {

using GpuLink = Gpu;

link_config config(int nt, int nr, modulation mod, algorithm algo, const char* backend)
{
    link_config c;
    c.nt = nt;
    c.nr = nr;
    c.mod = mod;
    c.algo = algo;
    c.backend = backend;
    c.seed = test_seed();
    return c;
}

void expect_same_frames(const link_config& c, const char* what)
{
    auto setup = std::make_shared<const link_setup>(c);
    const link_layout& l = setup->layout;
    const std::size_t frames = 7, hs = std::size_t(l.channels) * c.nr * c.nt,
                      ys = std::size_t(l.vectors) * c.nr;
    const float n0 = setup->noise_variance(7.0);
    std::vector<std::uint8_t> info(frames * l.k, 0xEE), bits(frames * l.frame_bits, 0xEE);
    std::vector<cf32> h(frames * hs, cf32(NAN, NAN)), y(frames * ys, cf32(NAN, NAN));
    make_gpu_link_frames(setup, 5, 123456, frames, n0, info.data(), bits.data(), h.data(), y.data());
    double worst_h = 0, worst_y = 0;
    for (std::size_t f = 0; f < frames; f++) {
        std::vector<std::uint8_t> ri(l.k), rb(l.frame_bits);
        std::vector<cf32> rh(hs), ry(ys);
        make_link_frame(*setup, 5, 123456 + f, n0, ri.data(), rb.data(), rh.data(), ry.data());
        for (int i = 0; i < l.k; i++)
            ASSERT_EQ(info[f * l.k + i], ri[i]) << what << " frame " << f << " info " << i;
        for (int i = 0; i < l.frame_bits; i++)
            ASSERT_EQ(bits[f * l.frame_bits + i], rb[i]) << what << " frame " << f << " bit " << i;
        for (std::size_t i = 0; i < hs; i++) {
            ASSERT_TRUE(is_usable(h[f * hs + i])) << what << ": H entry not written";
            worst_h = std::max(worst_h, double(std::abs(h[f * hs + i] - rh[i])) / (1 + std::abs(rh[i])));
        }
        for (std::size_t i = 0; i < ys; i++) {
            ASSERT_TRUE(is_usable(y[f * ys + i])) << what << ": y not written";
            worst_y = std::max(worst_y, double(std::abs(y[f * ys + i] - ry[i])) / (1 + std::abs(ry[i])));
        }
    }
    std::cout << "  " << what << ": largest H difference " << worst_h << ", y " << worst_y << std::endl;
    EXPECT_LT(worst_h, 1e-5) << what;
    EXPECT_LT(worst_y, 1e-5) << what;
}

} // namespace

TEST_F(GpuLink, FramesEqualTheCpuReference)
{
    link_config c = config(4, 4, modulation::qam16, algorithm::mtt, "cuda");
    c.max_batch_frames = 16;
    expect_same_frames(c, "4x4 16-QAM rayleigh, coded");
    c.coherence_vectors = 0;
    expect_same_frames(c, "4x4 16-QAM block fading, coded");
    c = config(2, 4, modulation::qam64, algorithm::mmse, "cuda");
    c.max_batch_frames = 16;
    c.channel = link_channel::tdl;
    c.tap_powers = { 0.6, 0.25, 0.1, 0.05 };
    c.tdl_fft_len = 128;
    expect_same_frames(c, "2x4 64-QAM tdl, coded");
    c.tap_delays = { 0.0, 1.37, 2.9, 7.25 }; // continuous delays, as a TR 38.901 profile's
    expect_same_frames(c, "2x4 64-QAM tdl at continuous delays, coded");
    c.tap_delays.clear();
    c = config(3, 3, modulation::qpsk, algorithm::zf, "cuda");
    c.max_batch_frames = 16;
    c.code = ldpc_code();
    c.uncoded_frame_bits = 1001; // padding
    c.channel = link_channel::awgn;
    expect_same_frames(c, "3x3 QPSK awgn, uncoded, padded");
    c.code = wimax_rate_half_code(576);
    c.interleave = false;
    expect_same_frames(c, "3x3 QPSK awgn, n = 576, not interleaved");
}

TEST_F(GpuLink, CountsEqualTheCpuEngineOnTheSameFrames)
{
    for (const char* name : { "mmse", "mtt" }) {
        link_config c = config(4, 4, modulation::qam16, parse_algorithm(name), "cuda");
        c.precision = gpu_precision::double_;
        c.target_frame_errors = 0;
        c.max_frames = 150;
        c.max_batch_frames = 64; // three batches, the last partial
        const link_point gpu = link_simulator(c).run_point(1, 12.0);
        c.backend = "cpu";
        const link_point cpu = link_simulator(c).run_point(1, 12.0);
        std::cout << "  " << name << ": GPU " << gpu.counts.frame_errors << " frame errors, "
                  << gpu.counts.raw_bit_errors << " detector errors; CPU " << cpu.counts.frame_errors
                  << ", " << cpu.counts.raw_bit_errors << std::endl;
        EXPECT_EQ(gpu.counts.frames, 150u);
        EXPECT_EQ(gpu.counts.info_bits, cpu.counts.info_bits);
        EXPECT_GT(cpu.counts.frame_errors, 0u) << name << ": pick an SNR with errors";
        EXPECT_NEAR(double(gpu.counts.raw_bit_errors), double(cpu.counts.raw_bit_errors),
                    2 + 1e-3 * double(cpu.counts.raw_bit_errors)) << name;
        EXPECT_NEAR(double(gpu.counts.frame_errors), double(cpu.counts.frame_errors), 2.0) << name;
        EXPECT_NEAR(double(gpu.counts.bit_errors), double(cpu.counts.bit_errors),
                    200 + 0.05 * double(cpu.counts.bit_errors)) << name;
        EXPECT_NEAR(gpu.mean_iterations(), cpu.mean_iterations(), 0.1) << name;
    }
}

// Each batch cut over two GPUs (0 and 1 where two are visible, else two engines on
// GPU 0 side by side): exactly the counts of one GPU, batch for batch. Batches up to
// 2048 frames (295k vectors), so that each device's share is detected in several
// chunks over its detector's streams (the path that found a detector whose event was
// made on the wrong device).
TEST_F(GpuLink, SeveralDevicesCountWhatOneCounts)
{
    int visible = 0;
    ASSERT_EQ(cudaGetDeviceCount(&visible), cudaSuccess);
    const std::vector<int> two = visible >= 2 ? std::vector<int>{ 0, 1 } : std::vector<int>{ 0, 0 };
    std::cout << "[ devices  ] link engines on GPUs " << two[0] << " and " << two[1] << std::endl;
    link_config c = config(4, 4, modulation::qam16, algorithm::mmse, "cuda");
    c.target_frame_errors = 0;
    c.max_frames = 4001; // batches of 128 to 2048 frames, the last one odd
    c.max_batch_frames = 2048;
    const link_point one = link_simulator(c).run_point(2, 11.0);
    c.devices = two;
    link_simulator sim(c);
    const link_point both = sim.run_point(2, 11.0);
    EXPECT_EQ(sim.backend(), "cuda") << "a GPU failure moved the run to the CPU";
    EXPECT_EQ(both.counts.frames, 4001u);
    EXPECT_GT(one.counts.frame_errors, 0u) << "pick an SNR with errors";
    EXPECT_EQ(both.counts.frames, one.counts.frames);
    EXPECT_EQ(both.counts.frame_errors, one.counts.frame_errors);
    EXPECT_EQ(both.counts.bit_errors, one.counts.bit_errors);
    EXPECT_EQ(both.counts.raw_bit_errors, one.counts.raw_bit_errors);
    EXPECT_EQ(both.counts.iterations, one.counts.iterations);
    c.devices = { 0, -1 };
    EXPECT_THROW(link_simulator{ c }, std::invalid_argument);
}

TEST_F(GpuLink, UncodedQpskAwgnMatchesTheClosedForm)
{
    link_config c = config(1, 1, modulation::qpsk, algorithm::zf, "cuda");
    c.code = ldpc_code();
    c.channel = link_channel::awgn;
    c.target_frame_errors = 0;
    c.max_frames = 20000; // 46 million bits a point
    link_simulator sim(c);
    ASSERT_EQ(sim.backend(), "cuda");
    const std::vector<double> snrs{ 2.0, 6.0, 9.0 };
    const auto points = sim.run(snrs);
    for (std::size_t i = 0; i < snrs.size(); i++) {
        const double p = 0.5 * std::erfc(std::sqrt(std::pow(10.0, snrs[i] / 10.0)) / std::sqrt(2.0));
        const double n = double(points[i].counts.info_bits);
        std::cout << "  SNR " << snrs[i] << " dB: BER " << points[i].ber() << ", Q(sqrt(SNR)) " << p
                  << std::endl;
        EXPECT_EQ(points[i].counts.frames, 20000u);
        EXPECT_NEAR(points[i].ber(), p, 5 * std::sqrt(p * (1 - p) / n) + 1 / n);
    }
}

TEST_F(GpuLink, EveryDetectorItRuns)
{
    std::map<std::string, link_point> high;
    for (const std::string& name : algorithm_names()) { // every detector of the registry
        link_config c = config(2, 2, modulation::qpsk, parse_algorithm(name), "cuda");
        c.target_frame_errors = 0;
        c.max_frames = 300;
        link_simulator sim(c);
        const link_point low = sim.run_point(0, 0.0), hi = sim.run_point(1, 12.0);
        EXPECT_GE(low.fer(), 0.9) << name;
        EXPECT_LE(hi.fer(), 0.05) << name;
        EXPECT_LT(hi.ber(), hi.raw_ber()) << name;
        high[name] = hi;
    }
    // psd's decisions are ML's on the same frames (float rounding may split a tie).
    EXPECT_NEAR(double(high["psd"].counts.raw_bit_errors), double(high["ml"].counts.raw_bit_errors),
                2 + 1e-3 * double(high["ml"].counts.raw_bit_errors));
}

TEST_F(GpuLink, Refusals)
{
    link_config c = config(4, 4, modulation::qam64, algorithm::ml, "cuda"); // 24 bits: too many
    EXPECT_THROW(link_simulator{ c }, std::invalid_argument);
    c.backend = "auto";
    link_simulator sim(c);
    EXPECT_EQ(sim.backend(), "cpu");
    EXPECT_FALSE(sim.fallback_reason().empty());
}
