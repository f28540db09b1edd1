/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fused receiver's CPU path against the separate stages assembled here by hand
 * (reference FFT, estimate_channel, cpu_detector per payload symbol), every payload bit
 * back at high SNR for every detector, and its handling of damaged frames.
 */
#include "frame/fused_frames.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

using namespace gr::gpumimo::core;
using gpumimo_test::make_received_frames;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

frame_format small_frame(int streams, modulation mod, int payload)
{
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = streams;
    f.mod = mod;
    f.payload_symbols = payload;
    return f;
}

// Frame `fr` the long way: the stages one by one, one payload symbol at a time.
std::vector<float> separate_stages(const frame_format& f,
                                   const gpumimo_test::received_frames& in,
                                   int rx,
                                   std::size_t fr,
                                   algorithm algo,
                                   float* noise)
{
    const std::size_t U = f.num.used_carriers, S = f.symbols();
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, rx));
    const std::vector<cf> carriers = gpumimo_test::demodulate(f, fft, in, rx, fr);
    const channel_estimate est = estimate_channel(f, carriers.data(), rx, int(S));
    *noise = est.noise_var;
    const cpu_detector det(algo, f.mod, f.streams, rx);
    const std::size_t bits = det.bits_per_vector();
    std::vector<cf> derotation(static_cast<std::size_t>(f.payload_symbols) * rx); // [symbol][antenna]
    phase_tracker(f).estimate(est, &carriers[(1 + f.streams) * U], S * U, derotation.data());
    const std::vector<int> data = data_carriers(f.num);
    const std::size_t D = data.size();
    std::vector<float> llr(f.payload_bits());
    std::vector<cf> y(static_cast<std::size_t>(rx));
    for (int s = 0; s < f.payload_symbols; s++)
        for (std::size_t d = 0; d < D; d++) {
            const std::size_t c = std::size_t(data[d]);
            for (int r = 0; r < rx; r++)
                y[r] = derotation[s * rx + r] * carriers[(r * S + 1 + f.streams + s) * U + c];
            mimo_batch b;
            b.y = y.data();
            b.h = &est.h[c * rx * f.streams];
            b.noise_var = &est.noise_eff[c]; // N0 and the estimate's error on this carrier
            b.batch = 1;
            b.nt = f.streams;
            b.nr = rx;
            det.detect(b, &llr[(s * D + d) * bits], 1);
        }
    return llr;
}

fused_receiver_config config_of(const frame_format& f, int rx, algorithm algo)
{
    fused_receiver_config c;
    c.frame = f;
    c.rx = rx;
    c.algo = algo;
    return c;
}

} // namespace

TEST(FusedReceiver, EqualsTheSeparateStages)
{
    auto rng = make_rng(1501);
    for (algorithm algo : { algorithm::mmse, algorithm::kbest }) {
        const frame_format f = small_frame(2, modulation::qam16, 3);
        const int rx = 3;
        const std::size_t frames = 4;
        const auto in = make_received_frames(rng, f, rx, frames, 18.0);
        cpu_fused_receiver fused(config_of(f, rx, algo));
        std::vector<float> noise(frames, NAN);
        const std::vector<float> llr =
            gpumimo_test::run_poisoned(frames * f.payload_bits(), [&](float* out) {
                const fused_receiver_report rep =
                    fused.process(in.pointers().data(), frames, out, noise.data());
                EXPECT_EQ(rep.damaged_frames, 0u);
                EXPECT_EQ(rep.unusable_estimates, 0u);
            });
        std::size_t sign_flips = 0;
        for (std::size_t fr = 0; fr < frames; fr++) {
            float ref_noise = 0;
            const std::vector<float> ref = separate_stages(f, in, rx, fr, algo, &ref_noise);
            EXPECT_NEAR(noise[fr], ref_noise, 1e-4 * ref_noise) << "frame " << fr;
            for (std::size_t i = 0; i < ref.size(); i++) {
                const float got = llr[fr * f.payload_bits() + i];
                // FFTW in float against the double reference FFT: a few ulps of the
                // carriers, scaled by the LLR's size.
                EXPECT_NEAR(got, ref[i], 1e-3f * std::max(1.0f, std::abs(ref[i])))
                    << to_string(algo) << " frame " << fr << " bit " << i;
                sign_flips += (got > 0) != (ref[i] > 0) && std::abs(ref[i]) > 1e-3f;
            }
        }
        EXPECT_EQ(sign_flips, 0u) << to_string(algo);
    }
}

TEST(FusedReceiver, EveryDetectorGetsEveryBitAtHighSnr)
{
    auto rng = make_rng(1502);
    const frame_format f = small_frame(2, modulation::qam16, 4);
    const int rx = 4;
    const std::size_t frames = 3;
    const auto in = make_received_frames(rng, f, rx, frames, 40.0);
    for (algorithm algo : { algorithm::zf, algorithm::mmse, algorithm::kbest, algorithm::mtt,
                            algorithm::nway, algorithm::psd }) {
        cpu_fused_receiver fused(config_of(f, rx, algo));
        std::vector<float> llr(frames * f.payload_bits()), noise(frames);
        fused.process(in.pointers().data(), frames, llr.data(), noise.data());
        EXPECT_EQ(gpumimo_test::bit_errors(llr, in.bits), 0u) << to_string(algo);
        for (std::size_t fr = 0; fr < frames; fr++) // 24 empty carriers x 4 antennas
            EXPECT_NEAR(noise[fr], in.noise_var[fr], 0.4 * in.noise_var[fr]) << fr;
    }
}

TEST(FusedReceiver, DamagedFramesLeaveAsZerosAndAreCounted)
{
    auto rng = make_rng(1503);
    const frame_format f = small_frame(2, modulation::qpsk, 2);
    const int rx = 2;
    const std::size_t frames = 4, n = f.samples(), bits = f.payload_bits();
    auto in = make_received_frames(rng, f, rx, frames, 25.0);
    cpu_fused_receiver fused(config_of(f, rx, algorithm::mmse));
    std::vector<float> clean(frames * bits);
    fused.process(in.pointers().data(), frames, clean.data());

    in.antenna[1][1 * n + 17] = cf(NAN, 0); // frame 1: one NaN on antenna 1
    std::fill(&in.antenna[0][2 * n], &in.antenna[0][3 * n], cf(0, 0)); // frame 2: silent
    std::fill(&in.antenna[1][2 * n], &in.antenna[1][3 * n], cf(0, 0));
    std::vector<float> llr(frames * bits, NAN), noise(frames, NAN);
    const fused_receiver_report rep =
        fused.process(in.pointers().data(), frames, llr.data(), noise.data());
    EXPECT_EQ(rep.damaged_frames, 1u);
    EXPECT_EQ(rep.unusable_estimates, 1u);
    for (std::size_t fr = 0; fr < frames; fr++)
        for (std::size_t i = 0; i < bits; i++) {
            const float expect = fr == 1 || fr == 2 ? 0.0f : clean[fr * bits + i];
            ASSERT_EQ(llr[fr * bits + i], expect) << "frame " << fr << " bit " << i;
        }
    EXPECT_EQ(noise[1], 0.0f);
}

TEST(FusedReceiver, RefusesBadConfigurations)
{
    const frame_format f = small_frame(4, modulation::qam16, 2);
    EXPECT_THROW(cpu_fused_receiver(config_of(f, 3, algorithm::mmse)), std::invalid_argument);
    EXPECT_THROW(cpu_fused_receiver(config_of(f, 17, algorithm::mmse)), std::invalid_argument);
    fused_receiver_config bad = config_of(f, 4, algorithm::kbest);
    bad.params.kbest.k = 0;
    EXPECT_THROW(cpu_fused_receiver{ bad }, std::invalid_argument);
}

// Samples in, decoded bits out: process_decoded against process()'s LLRs decoded here
// step by step (de-interleaved by coded_payload::position, the CPU decoder, the
// information positions, the uncoded errors of satisfied codewords counted), over
// frames at an SNR where some codewords fail, and against the information bits sent at
// an SNR where none do.
TEST(FusedReceiver, DecodesCodedFramesAsTheirLlrsDecode)
{
    auto rng = make_rng(1503);
    const frame_format f = small_frame(2, modulation::qam16, 4); // 1408 bits: 2 x 576
    const int rx = 4;
    const std::size_t frames = 6;
    fused_receiver_config c = config_of(f, rx, algorithm::mmse);
    c.code = "wimax_576";
    cpu_fused_receiver fused(c);
    const coded_payload code(f, c.code);
    ASSERT_EQ(code.codewords(), 2);
    ASSERT_EQ(fused.info_bits_per_frame(), code.info_bits());
    const std::size_t K = code.info_bits(), N = std::size_t(code.n());
    for (double snr : { 5.0, 30.0 }) {
        const auto in = make_received_frames(rng, f, rx, frames, snr, { 0.7, 0.2, 0.1 }, 0, &code);
        std::vector<std::uint8_t> info(frames * K, 0xAA); // poisoned: every bit written
        fused_decode_report got;
        const fused_receiver_report r =
            fused.process_decoded(in.pointers().data(), frames, info.data(), &got);
        EXPECT_EQ(r.damaged_frames, 0u);

        std::vector<float> llr(frames * f.payload_bits());
        fused.process(in.pointers().data(), frames, llr.data());
        cpu_ldpc_decoder decoder(code.code(), c.decoder);
        fused_decode_report want;
        std::size_t differ = 0, wrong_frames = 0;
        for (std::size_t fr = 0; fr < frames; fr++) {
            std::vector<float> cw(2 * N);
            for (std::size_t i = 0; i < cw.size(); i++)
                cw[i] = llr[fr * f.payload_bits() + code.position(i)];
            std::vector<std::uint8_t> bits(cw.size()), ok(2);
            std::vector<int> its(2);
            ldpc_outputs out;
            out.bits = bits.data();
            out.satisfied = ok.data();
            out.iterations = its.data();
            decoder.decode(cw.data(), 2, out);
            bool frame_wrong = false;
            for (std::size_t w = 0; w < 2; w++) {
                want.codewords++;
                want.iterations += std::uint64_t(its[w]);
                for (std::size_t i = 0; i < std::size_t(code.k()); i++) {
                    const std::uint8_t b = bits[w * N + std::size_t(code.encoder().info_positions()[i])];
                    const std::size_t at = fr * K + w * std::size_t(code.k()) + i;
                    differ += info[at] != b;
                    frame_wrong |= info[at] != in.info[at];
                }
                if (ok[w]) {
                    want.satisfied++;
                    want.raw_bits += N;
                    for (std::size_t b = 0; b < N; b++)
                        want.raw_errors += (cw[w * N + b] > 0.0f) != (bits[w * N + b] == 1);
                }
            }
            wrong_frames += frame_wrong;
        }
        std::cout << snr << " dB: " << got.satisfied << " of " << got.codewords
                  << " codewords satisfied, " << wrong_frames << " of " << frames
                  << " frames wrong, " << got.raw_errors << " uncoded errors in "
                  << got.raw_bits << " bits\n";
        EXPECT_EQ(differ, 0u) << snr;
        EXPECT_EQ(got.codewords, want.codewords);
        EXPECT_EQ(got.satisfied, want.satisfied);
        EXPECT_EQ(got.iterations, want.iterations);
        EXPECT_EQ(got.raw_errors, want.raw_errors);
        EXPECT_EQ(got.raw_bits, want.raw_bits);
        if (snr > 20) {
            EXPECT_EQ(wrong_frames, 0u);
            EXPECT_EQ(got.satisfied, got.codewords);
        }
    }
    cpu_fused_receiver uncoded(config_of(f, rx, algorithm::mmse));
    std::vector<std::uint8_t> info(K);
    EXPECT_THROW(uncoded.process_decoded(nullptr, 0, info.data()), std::logic_error);
    EXPECT_EQ(uncoded.info_bits_per_frame(), 0u);
    c.code = "wimax_2304"; // longer than the 1408 payload bits
    EXPECT_THROW(cpu_fused_receiver{ c }, std::invalid_argument);
}
