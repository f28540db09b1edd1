/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MIMO-OFDM frame format (core/frame.h, docs/frame.md): presets, the PRBS's period
 * and balance, the preamble's half-symbol repetition in time (an independent DFT here),
 * the pilots' orthogonality in time, the payload's bit order, bad input.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/frame/frame.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

TEST(Frame, PresetsHaveTheDocumentedNumerology)
{
    const numerology lte = numerology_preset("lte20");
    EXPECT_EQ(lte.fft_len, 2048);
    EXPECT_EQ(lte.used_carriers, 1200);
    EXPECT_EQ(lte.cp_lengths, (std::vector<int>{ 160, 144, 144, 144, 144, 144, 144 }));
    EXPECT_DOUBLE_EQ(lte.sample_rate / lte.fft_len, 15e3); // 15 kHz carriers
    EXPECT_DOUBLE_EQ(numerology_preset("fft512").sample_rate / 512, 15e3);
    for (const char* name : { "small", "fft512", "lte20" }) {
        const numerology n = numerology_preset(name);
        const std::vector<int> c = n.carriers();
        ASSERT_EQ(int(c.size()), n.used_carriers) << name;
        const std::set<int> unique(c.begin(), c.end());
        EXPECT_EQ(unique.size(), c.size()) << name;
        EXPECT_EQ(unique.count(n.fft_len / 2), 0u) << name << ": DC used";
        for (std::size_t i = 0; i < c.size(); i++) { // symmetric about DC
            EXPECT_EQ(c[i] - n.fft_len / 2, -(c[c.size() - 1 - i] - n.fft_len / 2)) << name;
            EXPECT_GE(c[i], 0);
            EXPECT_LT(c[i], n.fft_len);
        }
        const ofdm_fft_config f = n.fft_config(fft_direction::inverse, 4);
        EXPECT_NO_THROW(validate(f)) << name;
        EXPECT_EQ(f.carriers, c);
    }
    EXPECT_THROW(numerology_preset("lte10"), std::invalid_argument);
}

TEST(Frame, PrbsFollowingContinuesFromAnyWindowOfBits)
{
    auto rng = gpumimo_test::make_rng(1411);
    for (int order : { 9, 15, 23, 31 }) {
        prbs p(order, std::uint32_t(rng()) | 1u);
        std::vector<std::uint8_t> bits(5000);
        p.fill(bits.data(), bits.size());
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, 4000)(rng);
        prbs q = prbs::following(order, bits.data() + at);
        for (std::size_t i = at + order; i < bits.size(); i++)
            ASSERT_EQ(q.next(), bits[i]) << "order " << order << " from " << at << ", bit " << i;
    }
    const std::vector<std::uint8_t> zeros(23, 0);
    EXPECT_THROW(prbs::following(23, zeros.data()), std::invalid_argument);
}

TEST(Frame, PrbsHasFullPeriodAndBalance)
{
    for (int order : { 9, 15, 23 }) {
        const std::uint32_t seed = 0x5A5A5A5Au;
        const std::size_t period = (std::size_t(1) << order) - 1;
        prbs p(order, seed);
        std::vector<std::uint8_t> first(64), again(64);
        p.fill(first.data(), first.size());
        // Over one period from the seed: 2^(order-1) ones (maximal length), and the
        // first 64 bits again right after it.
        prbs q(order, seed);
        std::size_t ones = 0;
        for (std::size_t i = 0; i < period; i++)
            ones += q.next();
        EXPECT_EQ(ones, std::size_t(1) << (order - 1)) << "order " << order;
        q.fill(again.data(), again.size());
        EXPECT_EQ(again, first) << "order " << order << ": not periodic in 2^order - 1";
        // No shorter period: the first 64 bits do not recur after any proper divisor.
        for (std::size_t d = 64; d < period; d++) {
            if (period % d != 0)
                continue;
            prbs s(order, seed);
            std::vector<std::uint8_t> skip(d);
            s.fill(skip.data(), d);
            s.fill(again.data(), again.size());
            EXPECT_NE(again, first) << "order " << order << ": period " << d;
        }
    }
    EXPECT_THROW(prbs(9, 0x200), std::invalid_argument); // low 9 bits all zero
    EXPECT_THROW(prbs(10, 1), std::invalid_argument);
}

TEST(Frame, PreambleRepeatsAfterHalfASymbol)
{
    for (const char* name : { "small", "fft512" }) {
        const numerology n = numerology_preset(name);
        const std::vector<int> c = n.carriers();
        const std::vector<cf> pre = preamble_carriers(n);
        // Independent inverse DFT in double, carriers in shifted order (index N/2 = DC).
        const int N = n.fft_len;
        std::vector<std::complex<double>> x(N);
        double energy = 0;
        for (std::size_t i = 0; i < c.size(); i++) {
            const int f = c[i] - N / 2;
            energy += std::norm(std::complex<double>(pre[i]));
            for (int t = 0; t < N; t++)
                x[t] += std::complex<double>(pre[i]) *
                        std::polar(1.0, 2 * M_PI * double(f) * t / N);
        }
        for (int t = 0; t < N / 2; t++)
            ASSERT_LT(std::abs(x[t] - x[t + N / 2]), 1e-9 * N) << name << " sample " << t;
        // The same energy as a full symbol of unit-energy carriers.
        EXPECT_NEAR(energy / c.size(), 1.0, 0.05) << name;
    }
}

TEST(Frame, GridHasCoveredPilotsAndThePayloadInBitOrder)
{
    auto rng = make_rng(1201);
    for (int K : { 1, 3, 8 }) {
        frame_format f;
        f.num = numerology_preset("small");
        f.streams = K;
        f.mod = modulation::qam16;
        f.payload_symbols = 3;
        EXPECT_EQ(f.symbols(), 1 + K + 3);
        EXPECT_EQ(f.samples(), std::size_t(f.symbols()) * (64 + 16));
        std::vector<std::uint8_t> bits(f.payload_bits());
        ASSERT_EQ(bits.size(), std::size_t(3) * 44 * K * 4); // 48 used, 4 tracking
        std::uniform_int_distribution<int> bit(0, 1);
        for (auto& b : bits)
            b = std::uint8_t(bit(rng));
        const std::vector<cf> grid = frame_grid(f, bits.data());
        const int S = f.symbols(), U = 48;
        ASSERT_EQ(grid.size(), std::size_t(K) * S * U);
        auto at = [&](int k, int s, int i) { return grid[(std::size_t(k) * S + s) * U + i]; };
        // Preamble: every stream its own sequence. Pilots: every stream in every pilot
        // symbol, its QPSK under the cover; the covers orthogonal: despreading with
        // stream k's recovers its pilots alone (the other streams cancel).
        for (int k = 0; k < K; k++) {
            const std::vector<cf> pre = preamble_carriers(f.num, k);
            const std::vector<cf> pil = pilot_carriers(f.num, k);
            for (int i = 0; i < U; i++) {
                ASSERT_EQ(at(k, 0, i), pre[i]) << "stream " << k;
                ASSERT_NEAR(std::norm(pil[i]), 1.0f, 1e-6f); // QPSK pilot
            }
            for (int s = 0; s < K; s++)
                for (int i = 0; i < U; i++)
                    ASSERT_LT(std::abs(at(k, 1 + s, i) - pilot_cover(K, s, k) * pil[i]), 1e-6f);
            for (int j = 0; j < K; j++) { // sum_s conj(w_sk) w_sj = K [j == k]
                std::complex<double> dot = 0;
                for (int s = 0; s < K; s++)
                    dot += std::conj(std::complex<double>(pilot_cover(K, s, k))) *
                           std::complex<double>(pilot_cover(K, s, j));
                ASSERT_LT(std::abs(dot - (j == k ? double(K) : 0.0)), 1e-5) << k << " " << j;
            }
            if (K > 1)
                EXPECT_NE(preamble_carriers(f.num, k), preamble_carriers(f.num, (k + 1) % K));
        }
        // Pilots of different streams differ (distinct seeds).
        if (K > 1)
            EXPECT_NE(pilot_carriers(f.num, 0), pilot_carriers(f.num, 1));
        // Tracking carriers: every stream's pilot value in every payload symbol.
        const std::vector<int> track = tracking_carriers(f.num), data = data_carriers(f.num);
        for (int k = 0; k < K; k++)
            for (int s = 0; s < f.payload_symbols; s++)
                for (int i : track)
                    ASSERT_EQ(at(k, 1 + K + s, i), pilot_carriers(f.num, k)[std::size_t(i)]);
        // Payload: each data carrier's value decides back to its bits, in the documented
        // order.
        const constellation c(f.mod);
        const int D = int(data.size());
        for (int s = 0; s < f.payload_symbols; s++)
            for (int d = 0; d < D; d++)
                for (int k = 0; k < K; k++) {
                    const int i = data[std::size_t(d)];
                    const cf v = at(k, 1 + K + s, i);
                    int best = 0;
                    for (int q = 1; q < c.size(); q++)
                        if (std::abs(std::complex<double>(v) - c.point(q)) <
                            std::abs(std::complex<double>(v) - c.point(best)))
                            best = q;
                    for (int b = 0; b < 4; b++)
                        ASSERT_EQ(c.bit(best, b), bits[((std::size_t(s) * D + d) * K + k) * 4 + b])
                            << "symbol " << s << " carrier " << i << " stream " << k;
                }
    }
}

TEST(Frame, TrackingCarriersAreSpreadAndTheRestCarryData)
{
    // The rule of docs/frame.md: the least n >= max(2, U / 12) leaving a multiple of 4
    // data carriers, the j-th at (2 j + 1) U / (2 n).
    EXPECT_EQ(tracking_carriers(numerology_preset("small")), (std::vector<int>{ 6, 18, 30, 42 }));
    const struct {
        const char* preset;
        int tracking, data;
    } sizes[] = { { "small", 4, 44 }, { "fft512", 36, 364 }, { "lte20", 100, 1100 } };
    for (const auto& z : sizes) {
        const numerology n = numerology_preset(z.preset);
        const std::vector<int> t = tracking_carriers(n), d = data_carriers(n);
        EXPECT_EQ(int(t.size()), z.tracking) << z.preset;
        EXPECT_EQ(tracking_carrier_count(n), z.tracking) << z.preset;
        EXPECT_EQ(int(d.size()), z.data) << z.preset;
        // Together every used carrier once, each list ascending.
        std::vector<int> all(t);
        all.insert(all.end(), d.begin(), d.end());
        std::sort(all.begin(), all.end());
        for (int c = 0; c < n.used_carriers; c++)
            ASSERT_EQ(all[std::size_t(c)], c) << z.preset;
        EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
        EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
        // Spread: gaps between tracking carriers differ by at most one.
        for (std::size_t j = 2; j < t.size(); j++)
            EXPECT_LE(std::abs((t[j] - t[j - 1]) - (t[1] - t[0])), 1) << z.preset;
    }
}

TEST(Frame, TimeSamplesDemodulateBackToTheGrid)
{
    auto rng = make_rng(1202);
    frame_format f;
    f.num = numerology_preset("fft512");
    f.streams = 4;
    f.mod = modulation::qam64;
    f.payload_symbols = 2;
    std::vector<std::uint8_t> bits(f.payload_bits());
    std::uniform_int_distribution<int> bit(0, 1);
    for (auto& b : bits)
        b = std::uint8_t(bit(rng));
    const std::vector<cf> grid = frame_grid(f, bits.data());
    const std::vector<cf> tx = frame_samples(f, bits.data());
    ASSERT_EQ(tx.size(), std::size_t(4) * f.samples());
    // The forward transform (the receiver's) of each stream gives its grid back.
    const cpu_ofdm_fft fft(f.num.fft_config(fft_direction::forward, 4));
    std::vector<cf> back(grid.size(), cf(NAN, NAN));
    ofdm_fft_io io;
    io.in = tx.data();
    io.in_stride = f.samples();
    io.out = back.data();
    io.out_stride = std::size_t(f.symbols()) * f.num.used_carriers;
    io.nsym = f.symbols();
    fft.process(io);
    for (std::size_t i = 0; i < grid.size(); i++)
        ASSERT_LT(std::abs(back[i] - grid[i]), 1e-5f) << "value " << i;
    // Stream 0's preamble: after its prefix, the two halves of the symbol are equal.
    const int cp = f.num.cp_lengths[0], N = f.num.fft_len;
    for (int t = 0; t < N / 2; t++)
        ASSERT_LT(std::abs(tx[cp + t] - tx[cp + t + N / 2]), 1e-5f) << "sample " << t;
}

TEST(Frame, BadFramesAreRefused)
{
    frame_format f;
    f.num = numerology_preset("small");
    std::vector<std::uint8_t> bits(48 * 2, 0);
    f.streams = 0;
    EXPECT_THROW(frame_grid(f, bits.data()), std::invalid_argument);
    f.streams = 9;
    EXPECT_THROW(frame_grid(f, bits.data()), std::invalid_argument);
    f.streams = 1;
    f.payload_symbols = 0;
    EXPECT_THROW(frame_grid(f, bits.data()), std::invalid_argument);
    f.payload_symbols = 1;
    bits[5] = 2;
    EXPECT_THROW(frame_grid(f, bits.data()), std::invalid_argument);
    f.num.used_carriers = 63;
    EXPECT_THROW(f.validate(), std::invalid_argument);
    // A frame description's sizes are bounded before anything is allocated for them
    // (payload_symbols 2e9 took 6.6 s to fail with bad_alloc).
    EXPECT_THROW(make_frame_format("lte20", 4, "16qam", 2000000000), std::invalid_argument);
    EXPECT_THROW(make_frame_format("small", 1, "qpsk", max_payload_symbols + 1),
                 std::invalid_argument);
    EXPECT_NO_THROW(make_frame_format("small", 1, "qpsk", max_payload_symbols));
}
