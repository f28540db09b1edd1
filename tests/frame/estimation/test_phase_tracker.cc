/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tracking pilots (core::phase_tracker): each payload symbol's common phase recovered
 * from a known channel on fresh random grids, against the phase applied; the neutral
 * answer where the pilots see nothing; and a carrier offset the synchroniser left in the
 * frame, detected error-free with tracking and not without.
 */
#include "common/test_util.h"
#include "frame/fused_frames.h"

#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/fused_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_received_frames;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

frame_format make(const char* preset, int K, int payload)
{
    frame_format f;
    f.num = numerology_preset(preset);
    f.streams = K;
    f.mod = modulation::qam16;
    f.payload_symbols = payload;
    return f;
}

// The angle between a derotation and e^{-i phi}.
double phase_error(cf derotation, double phi)
{
    return std::abs(std::arg(std::complex<double>(derotation) * std::polar(1.0, phi)));
}

} // namespace

// Each payload symbol's phase, one for every antenna (own = false: a shared
// oscillator) or one per antenna (own = true: each antenna's phase up to 1 rad from the
// others'), recovered on random grids within 6 spreads of its estimate's; the test says
// which it was.
TEST(PhaseTracker, RecoversEachPayloadSymbolsPhase)
{
    auto rng = make_rng(2101);
    std::normal_distribution<float> g(0.0f, std::sqrt(0.5f));
    std::uniform_real_distribution<double> angle(-M_PI, M_PI), apart(-1.0, 1.0);
    std::uniform_int_distribution<int> bit(0, 1);
    for (bool own : { false, true })
        for (const char* preset : { "small", "fft512" })
            for (int K : { 1, 2, 4 })
                for (double noise : { 0.0, 1e-2 }) {
                    const frame_format f = make(preset, K, 5);
                    const int rx = 4, U = f.num.used_carriers, S = f.symbols(), P = f.payload_symbols;
                    std::vector<std::uint8_t> bits(f.payload_bits());
                    for (auto& b : bits)
                        b = std::uint8_t(bit(rng));
                    const std::vector<cf> grid = frame_grid(f, bits.data()); // [k][symbol][c]
                    channel_estimate e;
                    e.rx = rx;
                    e.tx = K;
                    e.carriers = U;
                    e.noise_var = float(noise > 0 ? noise : 1e-9); // the receiver's is never 0
                    e.h.resize(std::size_t(U) * rx * K);
                    for (cf& v : e.h)
                        v = cf(g(rng), g(rng));
                    std::vector<double> phi(static_cast<std::size_t>(P) * rx); // [symbol][antenna]
                    for (int s = 0; s < P; s++) {
                        const double common = angle(rng);
                        for (int r = 0; r < rx; r++)
                            phi[std::size_t(s) * rx + r] = common + (own ? apart(rng) : 0.0);
                    }
                    // y[r][s][c] = e^{i phi_sr} sum_k H[c][r][k] x_k[s][c] + noise
                    std::vector<cf> y(std::size_t(rx) * P * U);
                    const float sd = float(std::sqrt(noise));
                    for (int r = 0; r < rx; r++)
                        for (int s = 0; s < P; s++)
                            for (int c = 0; c < U; c++) {
                                std::complex<double> v = 0;
                                for (int k = 0; k < K; k++)
                                    v += std::complex<double>(e.h[(std::size_t(c) * rx + r) * K + k]) *
                                         std::complex<double>(grid[(std::size_t(k) * S + 1 + K + s) * U + c]);
                                y[(std::size_t(r) * P + s) * U + c] =
                                    cf(v * std::polar(1.0, phi[std::size_t(s) * rx + r])) + sd * cf(g(rng), g(rng));
                            }
                    std::vector<cf> derotation(static_cast<std::size_t>(P) * rx, cf(NAN, NAN));
                    const bool per_antenna =
                        phase_tracker(f).estimate(e, y.data(), std::size_t(P) * U, derotation.data());
                    EXPECT_EQ(per_antenna, own) << preset << " K " << K << " noise " << noise;
                    // The estimate's spread: sqrt(noise / (2 sum |H p|^2)), the sum over the
                    // tracking carriers of the antenna (of every antenna for the common
                    // one); allow 6 of it.
                    std::vector<double> energy(static_cast<std::size_t>(rx), 0.0);
                    const phase_tracker t(f);
                    for (std::size_t j = 0; j < t.carriers().size(); j++)
                        for (int r = 0; r < rx; r++) {
                            std::complex<double> v = 0;
                            for (int k = 0; k < K; k++)
                                v += std::complex<double>(e.h[(std::size_t(t.carriers()[j]) * rx + r) * K + k]) *
                                     std::complex<double>(t.pilots()[j * K + k]);
                            energy[std::size_t(r)] += std::norm(v);
                        }
                    double all = 0;
                    for (double v : energy)
                        all += v;
                    for (int s = 0; s < P; s++)
                        for (int r = 0; r < rx; r++) {
                            const double bound =
                                noise > 0 ? 6 * std::sqrt(noise / (2 * (own ? energy[std::size_t(r)] : all))) : 1e-5;
                            const cf d = derotation[std::size_t(s) * rx + r];
                            EXPECT_NEAR(std::abs(d), 1.0f, 1e-5f);
                            EXPECT_LT(phase_error(d, phi[std::size_t(s) * rx + r]), bound)
                                << preset << " K " << K << " noise " << noise << " symbol " << s
                                << " antenna " << r << (own ? " (own phases)" : "");
                        }
                }
}

TEST(PhaseTracker, SilentOrNonFinitePilotsLeaveThePhaseAlone)
{
    const frame_format f = make("small", 2, 3);
    const int rx = 2, U = f.num.used_carriers, P = f.payload_symbols;
    channel_estimate e;
    e.rx = rx;
    e.tx = 2;
    e.carriers = U;
    e.h.assign(std::size_t(U) * rx * 2, cf(1, 0));
    std::vector<cf> y(std::size_t(rx) * P * U, cf(0, 0));
    y[std::size_t(P) * U + std::size_t(tracking_carriers(f.num)[1])] = cf(NAN, 0); // symbol 0, antenna 1
    std::vector<cf> derotation(static_cast<std::size_t>(P) * rx, cf(NAN, NAN));
    phase_tracker(f).estimate(e, y.data(), std::size_t(P) * U, derotation.data());
    for (int s = 0; s < P * rx; s++)
        EXPECT_EQ(derotation[s], cf(1, 0)) << s;
    e.h.resize(1); // the estimate of another frame
    EXPECT_THROW(phase_tracker(f).estimate(e, y.data(), std::size_t(P) * U, derotation.data()),
                 std::invalid_argument);
}

// Receivers whose antennas have oscillators of their own: Wiener phase noise of 1e-4
// rad^2 a sample on each antenna (0.28 rad of spread between antennas by the end of a
// 10-symbol frame) at 30 dB. One phase for all antennas left a BER of 1.6e-2 here
// (gpumimo_rx_quality --preset small --phase-noise 1e-4, docs/performance.md); each
// antenna's own phase takes it below 1e-3.
TEST(PhaseTracker, AntennasWithOscillatorsOfTheirOwnAreTrackedApart)
{
    auto rng = make_rng(2103);
    const frame_format f = make("small", 2, 10);
    const int rx = 4;
    const std::size_t frames = 8;
    const auto in = make_received_frames(rng, f, rx, frames, 30.0, { 0.7, 0.2, 0.1 }, 0, nullptr, 0, 1e-4);
    const std::size_t errors = gpumimo_test::cpu_mmse_bit_errors(f, rx, in, frames);
    EXPECT_LE(errors, frames * f.payload_bits() / 1000) << errors << " of " << frames * f.payload_bits();
}

// A carrier offset of 0.02 carrier spacings left in the frame (what the synchroniser
// misses when its estimate is off) turns the last of 24 payload symbols by 2 pi 0.02 x
// 80 / 64 x 27 = 4.2 rad against the pilot symbols: without tracking most bits are
// wrong, with it (nearly) none at 30 dB (the offset's inter-carrier interference is
// -33 dB).
TEST(PhaseTracker, AResidualCarrierOffsetIsTrackedOut)
{
    auto rng = make_rng(2102);
    const frame_format f = make("small", 2, 24);
    const int rx = 4, U = f.num.used_carriers, S = f.symbols();
    const std::size_t frames = 6;
    const auto in = make_received_frames(rng, f, rx, frames, 30.0, { 0.7, 0.2, 0.1 }, 0.02 / 64);
    fused_receiver_config c;
    c.frame = f;
    c.rx = rx;
    c.algo = algorithm::mmse;
    cpu_fused_receiver receiver(c);
    std::vector<float> llr = gpumimo_test::run_poisoned(frames * f.payload_bits(), [&](float* out) {
        receiver.process(in.pointers().data(), frames, out);
    });
    // Not always 0: one 2x4 draw in a few hundred fades a carrier deep enough for a
    // 16-QAM error at 30 dB with or without an offset.
    const std::size_t tracked_errors = gpumimo_test::bit_errors(llr, in.bits);
    EXPECT_LE(tracked_errors, frames * f.payload_bits() / 1000);

    // The same frames without the tracker's derotation: the channel estimate and
    // detector alone.
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, rx));
    const cpu_detector det(algorithm::mmse, f.mod, f.streams, rx);
    const std::vector<int> data = data_carriers(f.num);
    std::vector<cf> y(rx);
    std::vector<float> v(det.bits_per_vector());
    std::size_t untracked_errors = 0;
    for (std::size_t fr = 0; fr < frames; fr++) {
        const std::vector<cf> carriers = gpumimo_test::demodulate(f, fft, in, rx, fr);
        const channel_estimate e = estimate_channel(f, carriers.data(), rx, S);
        for (int s = 0; s < f.payload_symbols; s++)
            for (std::size_t d = 0; d < data.size(); d++) {
                for (int r = 0; r < rx; r++)
                    y[r] = carriers[(std::size_t(r) * S + 1 + f.streams + s) * U + data[d]];
                mimo_batch b;
                b.y = y.data();
                b.h = &e.h[std::size_t(data[d]) * rx * f.streams];
                b.noise_var = &e.noise_eff[std::size_t(data[d])];
                b.batch = 1;
                b.nt = f.streams;
                b.nr = rx;
                det.detect(b, v.data(), 1);
                const std::uint8_t* bits =
                    &in.bits[fr * f.payload_bits() + (s * data.size() + d) * v.size()];
                for (std::size_t i = 0; i < v.size(); i++)
                    untracked_errors += (v[i] > 0) != (bits[i] == 1);
            }
    }
    EXPECT_GT(untracked_errors, frames * f.payload_bits() / 10) << tracked_errors;
}
