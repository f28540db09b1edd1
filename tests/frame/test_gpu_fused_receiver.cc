/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver on the GPU held to its CPU path (cpu_fused_receiver) on fresh random
 * frames: every numerology, 2x2 .. 4x4, QPSK .. 64-QAM, every detector, frame counts of
 * 1, a prime and more than a chunk, chunks of 1 frame and of the default, frames with
 * pilot blocks on a fading channel (time tracking); outputs
 * poisoned first and checked fully written; damaged and silent frames as zeros.
 */
#include "frame/fused_frames.h"
#include "common/test_util.h"
#include "common/gpu_test.h"

#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

using namespace gr::gpumimo::core;
using gpumimo_test::make_received_frames;
using gpumimo_test::make_rng;
using gpumimo_test::vector_scale;
using cf = std::complex<float>;

namespace {

struct fused_case {
    const char* preset;
    int streams, rx;
    modulation mod;
    int payload;
    algorithm algo;
    std::size_t frames, frames_per_chunk;
    int pilot_interval = 0; // > 0: pilot blocks, the channel fading at 100 Hz
    double phase_noise = 0; // > 0: Wiener phase noise per antenna (rad^2 a sample)
};

std::string describe(const fused_case& c)
{
    return std::string(c.preset) + " " + std::to_string(c.streams) + "x" +
           std::to_string(c.rx) + " " + to_string(c.mod) + " " + to_string(c.algo) + " " +
           std::to_string(c.frames) + " frames, chunk " + std::to_string(c.frames_per_chunk) +
           (c.pilot_interval ? ", pilot interval " + std::to_string(c.pilot_interval) : std::string()) +
           (c.phase_noise > 0 ? ", phase noise per antenna" : "");
}

bool linear(algorithm a) { return a == algorithm::zf || a == algorithm::mmse; }

void compare(const fused_case& c, std::mt19937_64& rng, double snr_db)
{
    frame_format f;
    f.num = numerology_preset(c.preset);
    f.streams = c.streams;
    f.mod = c.mod;
    f.payload_symbols = c.payload;
    f.pilot_interval = c.pilot_interval;
    fused_receiver_config cfg;
    cfg.frame = f;
    cfg.rx = c.rx;
    cfg.algo = c.algo;
    const double doppler = c.pilot_interval ? 100.0 / f.num.sample_rate : 0.0;
    const auto in = make_received_frames(rng, f, c.rx, c.frames, snr_db, { 0.7, 0.2, 0.1 }, 0, nullptr, doppler,
                                         c.phase_noise);
    const std::size_t bits = f.payload_bits();

    cpu_fused_receiver cpu(cfg);
    std::vector<float> ref(c.frames * bits), ref_noise(c.frames);
    cpu.process(in.pointers().data(), c.frames, ref.data(), ref_noise.data());

    gpu_fused_receiver gpu(cfg, 0, c.frames_per_chunk);
    std::vector<float> noise(c.frames, NAN);
    const std::vector<float> llr = gpumimo_test::run_poisoned(c.frames * bits, [&](float* out) {
        const fused_receiver_report rep =
            gpu.process(in.pointers().data(), c.frames, out, noise.data());
        EXPECT_EQ(rep.damaged_frames, 0u) << describe(c);
        EXPECT_EQ(rep.unusable_estimates, 0u) << describe(c);
    });
    for (std::size_t fr = 0; fr < c.frames; fr++)
        EXPECT_NEAR(noise[fr], ref_noise[fr], 1e-3 * ref_noise[fr]) << describe(c) << " frame " << fr;
    // Linear detectors: the float FFT, estimates and filter against FFTW and the double
    // reference detector, within 1e-3 of the LLR's vector's size (vector_scale). List
    // detectors may follow another path on near-ties between path metrics (docs/gpu.md):
    // their hard decisions agree on all but a few in ten thousand bits. Signs may differ
    // where the reference's LLR is within 1e-3 of 0 (ties), rarely; the bit error counts
    // differ by no more than the sign differences.
    const std::size_t per_vector = fused_layout(f).bits_per_vector;
    std::size_t far = 0, flips = 0, ties = 0, worst = 0;
    auto relative = [&](std::size_t i) {
        return std::abs(llr[i] - ref[i]) / vector_scale(ref, i, per_vector);
    };
    for (std::size_t i = 0; i < llr.size(); i++) {
        far += relative(i) > 1e-3f;
        const bool differ = (llr[i] > 0) != (ref[i] > 0);
        flips += differ && std::abs(ref[i]) > 1e-3f;
        ties += differ && std::abs(ref[i]) <= 1e-3f;
        worst = relative(i) > relative(worst) ? i : worst;
    }
    if (linear(c.algo)) {
        EXPECT_EQ(far, 0u) << describe(c) << "; worst: LLR " << worst << " (frame "
                           << worst / bits << ") " << llr[worst] << " against " << ref[worst];
        EXPECT_EQ(flips, 0u) << describe(c);
    } else {
        EXPECT_LE(flips, llr.size() / 2000) << describe(c);
    }
    EXPECT_LE(ties, llr.size() / 10000 + 1) << describe(c);
    // Page-locked input and output, as a block registers its stream buffers: copied by
    // DMA in place instead of staged, the same results (to the last bits that the
    // smoother's shared-memory double sums, in an order that varies, may round; linear
    // detectors, since a list detector may take another path on such a near-tie).
    if (linear(c.algo)) {
        std::vector<float> locked_llr(c.frames * bits, NAN);
        std::vector<host_registration> locks;
        for (const auto& a : in.antenna)
            locks.emplace_back(a.data(), a.size() * sizeof(a[0]));
        locks.emplace_back(locked_llr.data(), locked_llr.size() * sizeof(float));
        for (const host_registration& r : locks)
            ASSERT_TRUE(r.pinned());
        gpu_fused_receiver locked(cfg, 0, c.frames_per_chunk);
        locked.process(in.pointers().data(), c.frames, locked_llr.data());
        std::size_t apart = 0;
        for (std::size_t i = 0; i < llr.size(); i++)
            apart += !(std::abs(locked_llr[i] - llr[i]) <= 1e-5f * vector_scale(llr, i, per_vector));
        EXPECT_EQ(apart, 0u) << describe(c) << ", page-locked buffers";
    }
    const long gpu_errors = long(gpumimo_test::bit_errors(llr, in.bits));
    const long cpu_errors = long(gpumimo_test::bit_errors(ref, in.bits));
    EXPECT_LE(std::labs(gpu_errors - cpu_errors), long(flips + ties))
        << describe(c) << ": bit errors " << gpu_errors << " against " << cpu_errors;
}

} // namespace

class GpuFusedReceiver : public Gpu
{
};

TEST_F(GpuFusedReceiver, EqualsTheCpuPath)
{
    auto rng = make_rng(1601);
    const std::vector<fused_case> cases = {
        { "small", 2, 2, modulation::qpsk, 3, algorithm::mmse, 1, 0 },
        { "small", 2, 4, modulation::qam16, 4, algorithm::zf, 37, 0 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::mmse, 37, 1 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::mmse, 37, 3 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::kbest, 37, 0 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::mtt, 19, 0 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::nway, 19, 0 },
        { "small", 4, 4, modulation::qam16, 5, algorithm::psd, 19, 0 },
        { "small", 2, 2, modulation::qam64, 3, algorithm::mmse, 11, 0 },
        { "fft512", 2, 4, modulation::qam64, 3, algorithm::mmse, 5, 2 },
        { "lte20", 4, 4, modulation::qam16, 3, algorithm::mmse, 3, 0 },
        { "lte20", 4, 4, modulation::qam16, 3, algorithm::kbest, 2, 0 },
    };
    for (const fused_case& c : cases) {
        compare(c, rng, 22.0);
        if (::testing::Test::HasFailure())
            return;
    }
}

// Time tracking: every pilot block estimated and smoothed, each payload vector its own
// interpolated H, on channels fading at 100 Hz; and antennas with oscillators of their
// own (phase noise per antenna: each antenna turned back by its own phase).
TEST_F(GpuFusedReceiver, TracksInTimeAsTheCpu)
{
    auto rng = make_rng(1604);
    const std::vector<fused_case> cases = {
        { "small", 2, 4, modulation::qam16, 9, algorithm::mmse, 37, 0, 4 },
        { "small", 4, 4, modulation::qam16, 6, algorithm::kbest, 19, 3, 2 },
        { "fft512", 2, 4, modulation::qam64, 7, algorithm::mmse, 5, 2, 3 },
        { "lte20", 2, 2, modulation::qam16, 5, algorithm::mmse, 3, 0, 2 },
        // Each antenna's own oscillator: the tracking pilots' test, a phase per antenna.
        { "small", 2, 4, modulation::qam16, 10, algorithm::mmse, 19, 0, 0, 1e-4 },
        { "small", 2, 4, modulation::qam16, 9, algorithm::mmse, 19, 0, 3, 1e-4 },
    };
    for (const fused_case& c : cases) {
        compare(c, rng, 22.0);
        if (::testing::Test::HasFailure())
            return;
    }
}

TEST_F(GpuFusedReceiver, CountsDamagedFramesLikeTheCpu)
{
    auto rng = make_rng(1602);
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qam16;
    f.payload_symbols = 3;
    fused_receiver_config cfg;
    cfg.frame = f;
    cfg.rx = 2;
    cfg.algo = algorithm::mmse;
    const std::size_t frames = 7, n = f.samples(), bits = f.payload_bits();
    auto in = make_received_frames(rng, f, 2, frames, 25.0);
    in.antenna[0][3 * n + 5] = cf(0, INFINITY); // frame 3
    std::fill(&in.antenna[0][5 * n], &in.antenna[0][6 * n], cf(0, 0)); // frame 5 silent
    std::fill(&in.antenna[1][5 * n], &in.antenna[1][6 * n], cf(0, 0));

    cpu_fused_receiver cpu(cfg);
    std::vector<float> ref(frames * bits);
    const fused_receiver_report cpu_rep = cpu.process(in.pointers().data(), frames, ref.data());
    gpu_fused_receiver gpu(cfg, 0, 2); // frames 3 and 5 in different chunks
    std::vector<float> llr(frames * bits, NAN), noise(frames, NAN);
    const fused_receiver_report rep = gpu.process(in.pointers().data(), frames, llr.data(), noise.data());
    EXPECT_EQ(rep.damaged_frames, cpu_rep.damaged_frames);
    EXPECT_EQ(rep.damaged_frames, 1u);
    EXPECT_EQ(rep.unusable_estimates, 1u); // one chunk held the silent frame
    EXPECT_EQ(noise[3], 0.0f);
    for (std::size_t fr : { 3, 5 })
        for (std::size_t i = 0; i < bits; i++)
            ASSERT_EQ(llr[fr * bits + i], 0.0f) << "frame " << fr << " bit " << i;
    const std::size_t per_vector = fused_layout(f).bits_per_vector;
    for (std::size_t fr : { 0, 1, 2, 4, 6 })
        for (std::size_t i = 0; i < bits; i++)
            ASSERT_NEAR(llr[fr * bits + i], ref[fr * bits + i],
                        1e-3f * vector_scale(ref, fr * bits + i, per_vector))
                << "frame " << fr << " bit " << i;

    // The next call starts clean: nothing of the damaged one stays behind.
    const auto again = make_received_frames(rng, f, 2, frames, 25.0);
    std::vector<float> ref2(frames * bits), llr2(frames * bits, NAN);
    cpu.process(again.pointers().data(), frames, ref2.data());
    const fused_receiver_report rep2 = gpu.process(again.pointers().data(), frames, llr2.data());
    EXPECT_EQ(rep2.damaged_frames, 0u);
    EXPECT_EQ(rep2.unusable_estimates, 0u);
    for (std::size_t i = 0; i < llr2.size(); i++)
        ASSERT_NEAR(llr2[i], ref2[i], 1e-3f * vector_scale(ref2, i, per_vector)) << i;
}

TEST_F(GpuFusedReceiver, RefusesBadChunking)
{
    fused_receiver_config cfg;
    cfg.frame = make_frame_format("small", 2, "qpsk", 2);
    cfg.rx = 4;
    EXPECT_THROW(gpu_fused_receiver(cfg, 0, 17), std::invalid_argument); // 68 FFT channels
    EXPECT_THROW(gpu_fused_receiver(cfg, 0, 4, 0), std::invalid_argument);
    EXPECT_THROW(gpu_fused_receiver(cfg, 99), std::invalid_argument);
}

// Samples in, decoded bits out on the device (the LLRs never copied out) against the CPU
// path's process_decoded: 37 coded frames over 3 chunks of 16. At 25 dB every bit is the
// information sent on both; at 5 dB, where codewords fail, the two differ at most where
// the LLRs' float rounding tips a codeword (a codeword's bits). Then process() on the
// same object still gives LLRs, and a chunk with a damaged frame decodes it as the CPU
// does (zero LLRs: the all-zero codeword).
TEST_F(GpuFusedReceiver, DecodesOnTheDeviceAsTheCpuDoes)
{
    auto rng = make_rng(1603);
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qam16;
    f.payload_symbols = 4; // 1408 payload bits: 2 codewords of 576
    fused_receiver_config cfg;
    cfg.frame = f;
    cfg.rx = 4;
    cfg.algo = algorithm::mmse;
    cfg.code = "wimax_576";
    const coded_payload code(f, cfg.code);
    cpu_fused_receiver cpu(cfg);
    gpu_fused_receiver gpu(cfg, 0, 16);
    ASSERT_EQ(gpu.info_bits_per_frame(), code.info_bits());
    const std::size_t frames = 37, K = code.info_bits(), k = std::size_t(code.k());
    for (double snr : { 5.0, 25.0 }) {
        auto in = make_received_frames(rng, f, cfg.rx, frames, snr, { 0.7, 0.2, 0.1 }, 0, &code);
        if (snr > 20) // frame 20 damaged (in the second chunk)
            in.antenna[1][20 * f.samples() + 7] = cf(NAN, 0);
        std::vector<std::uint8_t> want(frames * K), got(frames * K, 0xAA);
        fused_decode_report want_rep, got_rep;
        const fused_receiver_report cpu_r =
            cpu.process_decoded(in.pointers().data(), frames, want.data(), &want_rep);
        const fused_receiver_report gpu_r =
            gpu.process_decoded(in.pointers().data(), frames, got.data(), &got_rep);
        EXPECT_EQ(gpu_r.damaged_frames, cpu_r.damaged_frames);
        std::size_t differing_codewords = 0, wrong_frames = 0;
        for (std::size_t w = 0; w < frames * 2; w++) {
            bool differs = false;
            for (std::size_t i = 0; i < k; i++) {
                ASSERT_LE(got[w * k + i], 1u) << "codeword " << w << " bit " << i << " unwritten";
                differs |= got[w * k + i] != want[w * k + i];
            }
            differing_codewords += differs;
        }
        for (std::size_t fr = 0; fr < frames; fr++)
            wrong_frames += !std::equal(&got[fr * K], &got[(fr + 1) * K], &in.info[fr * K]);
        std::cout << "[ decoded  ] " << snr << " dB: GPU " << got_rep.satisfied << " of "
                  << got_rep.codewords << " codewords satisfied (CPU " << want_rep.satisfied
                  << "), " << wrong_frames << " frames wrong, " << differing_codewords
                  << " codewords differ from the CPU's; uncoded errors " << got_rep.raw_errors
                  << " (CPU " << want_rep.raw_errors << ")\n";
        EXPECT_EQ(got_rep.codewords, frames * 2);
        EXPECT_EQ(want_rep.codewords, frames * 2);
        if (snr > 20) {
            EXPECT_EQ(gpu_r.damaged_frames, 1u);
            EXPECT_EQ(differing_codewords, 0u);
            EXPECT_EQ(got_rep.satisfied, want_rep.satisfied);
            // An LLR within rounding of 0 may take the other sign on the GPU.
            EXPECT_LE(std::labs(long(got_rep.raw_errors) - long(want_rep.raw_errors)), 2);
            EXPECT_LE(std::labs(long(got_rep.iterations) - long(want_rep.iterations)), 2);
            EXPECT_EQ(wrong_frames, 1u); // the damaged frame's bits are zeros
        } else {
            EXPECT_LE(differing_codewords, 3u);
            EXPECT_LE(std::labs(long(got_rep.satisfied) - long(want_rep.satisfied)), 3);
            EXPECT_LT(got_rep.satisfied, got_rep.codewords); // the failure path ran
        }
    }
    // LLRs again from the same receiver.
    const auto in = make_received_frames(rng, f, cfg.rx, 5, 30.0, { 0.7, 0.2, 0.1 }, 0, &code);
    std::vector<float> llr(5 * f.payload_bits(), NAN);
    gpu.process(in.pointers().data(), 5, llr.data());
    EXPECT_EQ(gpumimo_test::bit_errors(llr, in.bits), 0u);

    fused_receiver_config uncoded = cfg;
    uncoded.code.clear();
    gpu_fused_receiver plain(uncoded, 0, 4);
    std::vector<std::uint8_t> info(K);
    EXPECT_THROW(plain.process_decoded(in.pointers().data(), 1, info.data()), std::logic_error);
}
