/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Synchronised received frames for the fused receiver's tests: random payloads (or
 * random information bits LDPC-coded into them) through frame_samples and a fresh
 * mimo_channel per frame, no offsets (what mimo_ofdm_sync hands on), laid out as a GNU
 * Radio block sees them: antenna a's frames one after another.
 */
#ifndef INCLUDED_GPUMIMO_TESTS_FUSED_FRAMES_H
#define INCLUDED_GPUMIMO_TESTS_FUSED_FRAMES_H

#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/coded_payload.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace gpumimo_test {

struct received_frames {
    std::vector<std::vector<std::complex<float>>> antenna; // [rx][frames * samples]
    std::vector<std::uint8_t> bits;                        // [frames][payload bits]
    std::vector<std::uint8_t> info; // coded: [frames][the code's information bits]
    std::vector<double> noise_var;                         // the channel's, per frame

    std::vector<const std::complex<float>*> pointers() const
    {
        std::vector<const std::complex<float>*> p;
        for (const auto& a : antenna)
            p.push_back(a.data());
        return p;
    }
};

inline received_frames make_received_frames(std::mt19937_64& rng,
                                            const gr::gpumimo::core::frame_format& f,
                                            int rx,
                                            std::size_t frames,
                                            double snr_db,
                                            std::vector<double> taps = { 0.7, 0.2, 0.1 },
                                            double cfo = 0, // cycles per sample
                                            const gr::gpumimo::core::coded_payload* code = nullptr,
                                            double doppler = 0, // cycles per sample
                                            double phase_noise_var = 0) // rad^2 a sample, per antenna
{
    using namespace gr::gpumimo::core;
    received_frames out;
    const std::size_t n = f.samples(), nbits = f.payload_bits();
    out.antenna.assign(std::size_t(rx), std::vector<std::complex<float>>(frames * n));
    out.bits.resize(frames * nbits);
    std::uniform_int_distribution<int> bit(0, 1);
    if (code) { // random information bits, each frame's encoded into its payload
        out.info.resize(frames * code->info_bits());
        for (auto& b : out.info)
            b = std::uint8_t(bit(rng));
        for (std::size_t fr = 0; fr < frames; fr++)
            code->encode(&out.info[fr * code->info_bits()], &out.bits[fr * nbits]);
    } else {
        for (auto& b : out.bits)
            b = std::uint8_t(bit(rng));
    }
    for (std::size_t fr = 0; fr < frames; fr++) {
        channel_params cp;
        cp.tx = f.streams;
        cp.rx = rx;
        cp.tap_powers = taps;
        cp.snr_db = snr_db;
        cp.cfo = cfo;
        cp.doppler = doppler;
        cp.impairments.phase_noise_var = phase_noise_var; // an oscillator per antenna
        cp.seed = rng();
        mimo_channel ch(cp);
        const std::vector<std::complex<float>> tx = frame_samples(f, &out.bits[fr * nbits]);
        const std::vector<std::complex<float>> y = ch.apply(tx.data(), n);
        double power = 0; // apply's noise: the block's mean signal power per antenna / snr
        for (int r = 0; r < rx; r++)
            std::copy(&y[r * n], &y[r * n] + n, &out.antenna[r][fr * n]);
        for (const auto& v : y)
            power += std::norm(std::complex<double>(v));
        out.noise_var.push_back(power / double(y.size()) / (1 + std::pow(10.0, snr_db / 10)));
    }
    return out;
}

/*! Frame fr of `in` through the CPU OFDM FFT (fft made for f's numerology and rx
 *  channels): its carriers [rx][symbol][used carrier], as the fused receiver sees them. */
inline std::vector<std::complex<float>> demodulate(const gr::gpumimo::core::frame_format& f,
                                                   const gr::gpumimo::core::cpu_ofdm_fft& fft,
                                                   const received_frames& in,
                                                   int rx,
                                                   std::size_t fr)
{
    using namespace gr::gpumimo::core;
    const std::size_t n = f.samples(), U = std::size_t(f.num.used_carriers),
                      S = std::size_t(f.symbols());
    std::vector<std::complex<float>> time(std::size_t(rx) * n), carriers(std::size_t(rx) * S * U);
    for (int r = 0; r < rx; r++)
        std::copy(&in.antenna[r][fr * n], &in.antenna[r][fr * n] + n, &time[r * n]);
    ofdm_fft_io io;
    io.in = time.data();
    io.in_stride = n;
    io.out = carriers.data();
    io.out_stride = S * U;
    io.nsym = S;
    fft.process(io);
    return carriers;
}

// The size of LLR i's vector (bits_per_vector LLRs, a vector's streams x bits): its
// largest |LLR| (at least 1). A max-log LLR is a difference of two squared distances
// over N0, and float rounding in the FFT, the estimates and the filter errs in
// proportion to those distances, which the vector's largest LLR bounds from below, not
// to the difference: an LLR of 0.3 in a vector whose largest is 60 carries the rounding
// of the 60 (measured on the H200 at lte20, MMSE: 1.2e-3 of error on LLRs of 0.34 and
// 0.61).
inline float vector_scale(const std::vector<float>& ref, std::size_t i, std::size_t bits_per_vector)
{
    const std::size_t first = i / bits_per_vector * bits_per_vector;
    float scale = 1.0f;
    for (std::size_t b = first; b < first + bits_per_vector; b++)
        scale = std::max(scale, std::abs(ref[b]));
    return scale;
}

/*! The bit errors of in's first `frames` frames (format f, rx antennas) through the CPU
 *  fused receiver with mmse, its LLRs poisoned first. */
inline std::size_t cpu_mmse_bit_errors(const gr::gpumimo::core::frame_format& f,
                                       int rx,
                                       const received_frames& in,
                                       std::size_t frames)
{
    gr::gpumimo::core::fused_receiver_config c;
    c.frame = f;
    c.rx = rx;
    c.algo = gr::gpumimo::core::algorithm::mmse;
    gr::gpumimo::core::cpu_fused_receiver receiver(c);
    const std::vector<float> llr = run_poisoned(frames * f.payload_bits(), [&](float* out) {
        receiver.process(in.pointers().data(), frames, out);
    });
    return bit_errors(llr, in.bits);
}

} // namespace gpumimo_test

#endif
