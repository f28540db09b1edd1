/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * core::apsm_frame_layout and apsm_frame_splitter against the transmitter's own grid (core::frame_grid) of
 * frames with fresh random payloads, for every modulation: each user's training REs
 * are what training_symbols() says it sent, its data REs decide to its payload bits,
 * and the users interleaved RE by RE give the frame's bit order; the users through a
 * random flat channel onto several antennas, with a timing offset's phase slope over
 * the carriers, split as without the slope (timing_slope() finds it exactly).
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/apsm/apsm_frame.h>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

using namespace gr::gpumimo::core;
using cf = std::complex<float>;

namespace {

// The index of the point nearest x (bits as constellation::point numbers them).
int nearest(const constellation& c, cf x)
{
    int best = 0;
    for (int i = 1; i < c.size(); i++)
        if (std::norm(std::complex<double>(x) - c.point(i)) <
            std::norm(std::complex<double>(x) - c.point(best)))
            best = i;
    return best;
}

} // namespace

TEST(ApsmFrame, SplitsTheTransmittersFramesIntoTrainingAndData)
{
    auto rng = gpumimo_test::make_rng(901);
    for (const char* mod : { "bpsk", "pi/2-bpsk", "qpsk", "16qam", "64qam", "256qam", "1024qam" })
        for (const auto& shape : { std::make_pair(1, 1), std::make_pair(3, 2), std::make_pair(4, 3) }) {
            const int users = shape.first, payload_symbols = shape.second;
            SCOPED_TRACE(std::string(mod) + ", " + std::to_string(users) + " users");
            const frame_format f = make_frame_format("small", users, mod, payload_symbols);
            const apsm_frame_layout layout(f);
            const std::size_t used = std::size_t(f.num.used_carriers);
            ASSERT_EQ(layout.symbols_in(), std::size_t(1 + users + payload_symbols));
            ASSERT_EQ(layout.training_len(), std::size_t(users) * used);
            ASSERT_EQ(layout.data_len() * std::size_t(users) *
                          std::size_t(constellation(f.mod).bits_per_symbol()),
                      f.payload_bits());
            const std::vector<std::uint8_t> bits = gpumimo_test::random_bits(rng, f.payload_bits());
            const std::vector<cf> grid = frame_grid(f, bits.data()); // [user][symbol][used]
            const std::vector<cf> sent = layout.training_symbols();
            ASSERT_EQ(sent.size(), std::size_t(users) * layout.training_len());

            const constellation detected(detected_modulation(f.mod));
            const int m = detected.bits_per_symbol();
            std::vector<std::uint8_t> interleaved(f.payload_bits(), 7);
            std::vector<cf> res(layout.res_out(), cf(NAN, NAN));
            for (int k = 0; k < users; k++) {
                // User k alone on a clean antenna.
                const cf* alone = grid.data() + std::size_t(k) * layout.symbols_in() * used;
                cf* out = res.data();
                apsm_frame_splitter(f, 1).split(&alone, &out, true);
                for (std::size_t n = 0; n < layout.training_len(); n++)
                    ASSERT_LT(std::abs(res[n] - sent[std::size_t(k) * layout.training_len() + n]), 1e-5f)
                        << "training RE " << n;
                for (std::size_t n = 0; n < layout.data_len(); n++) {
                    const cf x = res[layout.training_len() + n];
                    const int index = nearest(detected, x);
                    ASSERT_LT(std::abs(std::complex<double>(x) - detected.point(index)), 1e-5)
                        << "data RE " << n << " is not a point of " << to_string(detected.mod());
                    for (int b = 0; b < m; b++)
                        interleaved[(n * std::size_t(users) + std::size_t(k)) * std::size_t(m) + std::size_t(b)] =
                            std::uint8_t(index >> (m - 1 - b) & 1);
                }
            }
            EXPECT_EQ(interleaved, bits) << "the users' data REs interleaved are not the payload";

            // Every user through a random flat channel onto 3 antennas, then the same with
            // a timing offset of d samples: carrier b (from DC) turned by e^{2 pi i b d / N}.
            const int antennas = 3;
            std::normal_distribution<float> g(0.0f, 1.0f);
            std::vector<cf> h(std::size_t(antennas * users));
            for (auto& x : h)
                x = cf(g(rng), g(rng));
            const std::vector<int> carriers = f.num.carriers();
            for (double d : { -4.0, 0.3, 1.7 }) {
                SCOPED_TRACE("timing offset " + std::to_string(d));
                std::vector<std::vector<cf>> clean(antennas), turned(antennas),
                    want(antennas, std::vector<cf>(layout.res_out())), got(want);
                std::vector<const cf*> clean_p, turned_p;
                std::vector<cf*> want_p, got_p;
                for (int a = 0; a < antennas; a++) {
                    clean[a].assign(layout.symbols_in() * used, cf(0));
                    for (int k = 0; k < users; k++) {
                        const cf* gk = grid.data() + std::size_t(k) * layout.symbols_in() * used;
                        for (std::size_t i = 0; i < clean[a].size(); i++)
                            clean[a][i] += h[std::size_t(a * users + k)] * gk[i];
                    }
                    turned[a] = clean[a];
                    for (std::size_t i = 0; i < turned[a].size(); i++) {
                        const int b = carriers[i % used] - f.num.fft_len / 2;
                        turned[a][i] *= cf(std::polar(1.0, 2 * M_PI * b * d / f.num.fft_len));
                    }
                    clean_p.push_back(clean[a].data());
                    turned_p.push_back(turned[a].data());
                    want_p.push_back(want[a].data());
                    got_p.push_back(got[a].data());
                }
                apsm_frame_splitter splitter(f, antennas);
                splitter.split(clean_p.data(), want_p.data(), true);
                EXPECT_NEAR(splitter.last_slope(), 0.0, 1e-6);
                splitter.split(turned_p.data(), got_p.data(), true);
                EXPECT_NEAR(splitter.last_slope(), 2 * M_PI * d / f.num.fft_len, 1e-6);
                for (int a = 0; a < antennas; a++)
                    for (std::size_t n = 0; n < layout.res_out(); n++)
                        ASSERT_LT(std::abs(got[a][n] - want[a][n]), 1e-4f * (1 + std::abs(want[a][n])))
                            << "antenna " << a << ", RE " << n;
            }
        }
}

// What a carrier offset leaves: a later frame turned as a whole against the reference
// frame, and its payload symbols each a little further. The splitter takes both off.
TEST(ApsmFrame, TakesACarrierOffsetsPhasesOffAgainstTheReferenceFrame)
{
    auto rng = gpumimo_test::make_rng(902);
    const int users = 3, antennas = 4;
    const frame_format f = make_frame_format("small", users, "16qam", 5);
    const apsm_frame_layout layout(f);
    const std::size_t used = std::size_t(f.num.used_carriers), S = layout.symbols_in();
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_real_distribution<double> angle(-3.0, 3.0);
    std::vector<cf> h(std::size_t(antennas * users));
    for (auto& x : h)
        x = cf(g(rng), g(rng));
    // Two frames of fresh payloads through the same flat channel.
    auto received = [&](const std::vector<cf>& grid) {
        std::vector<std::vector<cf>> rx(antennas, std::vector<cf>(S * used));
        for (int a = 0; a < antennas; a++)
            for (int k = 0; k < users; k++)
                for (std::size_t i = 0; i < S * used; i++)
                    rx[a][i] += h[std::size_t(a * users + k)] * grid[std::size_t(k) * S * used + i];
        return rx;
    };
    const auto first = received(frame_grid(f, gpumimo_test::random_bits(rng, f.payload_bits()).data()));
    const auto second = received(frame_grid(f, gpumimo_test::random_bits(rng, f.payload_bits()).data()));
    const double whole = angle(rng);
    std::vector<double> drift(std::size_t(f.payload_symbols));
    for (auto& x : drift)
        x = 0.3 * angle(rng);
    auto turned = second;
    for (auto& rx : turned)
        for (std::size_t s = 0; s < S; s++) {
            const double phase = whole + (s > std::size_t(users) ? drift[s - 1 - std::size_t(users)] : 0.0);
            for (std::size_t i = 0; i < used; i++)
                rx[s * used + i] *= cf(std::polar(1.0, phase));
        }
    auto pointers = [](const std::vector<std::vector<cf>>& v) {
        std::vector<const cf*> p;
        for (const auto& x : v)
            p.push_back(x.data());
        return p;
    };
    std::vector<std::vector<cf>> scratch(antennas, std::vector<cf>(layout.res_out())), want(scratch), got(scratch);
    std::vector<cf*> scratch_p, want_p, got_p;
    for (int a = 0; a < antennas; a++) {
        scratch_p.push_back(scratch[a].data());
        want_p.push_back(want[a].data());
        got_p.push_back(got[a].data());
    }
    apsm_frame_splitter clean(f, antennas), offset(f, antennas);
    clean.split(pointers(first).data(), scratch_p.data(), true);
    clean.split(pointers(second).data(), want_p.data(), false);
    EXPECT_NEAR(clean.last_frame_phase(), 0.0, 1e-5);
    offset.split(pointers(first).data(), scratch_p.data(), true);
    offset.split(pointers(turned).data(), got_p.data(), false);
    EXPECT_NEAR(std::remainder(offset.last_frame_phase() - whole, 2 * M_PI), 0.0, 1e-5);
    for (std::size_t s = 0; s < drift.size(); s++)
        EXPECT_NEAR(offset.last_symbol_phases()[s], drift[s], 1e-5) << "payload symbol " << s;
    for (int a = 0; a < antennas; a++)
        for (std::size_t n = 0; n < layout.res_out(); n++)
            ASSERT_LT(std::abs(got[a][n] - want[a][n]), 1e-4f * (1 + std::abs(want[a][n])))
                << "antenna " << a << ", RE " << n;
    // A new reference: the turned frame is then its own, phase 0.
    EXPECT_TRUE(offset.split(pointers(turned).data(), got_p.data(), true));
    EXPECT_NEAR(offset.last_frame_phase(), 0.0, 1e-9);

    // A NaN in a pilot symbol: nothing measured, every RE NaN, and the frame does not
    // become the reference even when asked (the next frame's phase is still against
    // the turned one).
    auto broken = second;
    broken[2][(1 + users - 1) * used + 5] = cf(std::nanf(""), 0.0f);
    EXPECT_FALSE(offset.split(pointers(broken).data(), got_p.data(), true));
    for (int a = 0; a < antennas; a++)
        for (const cf& x : got[a])
            ASSERT_TRUE(std::isnan(x.real())) << "antenna " << a;
    EXPECT_TRUE(offset.split(pointers(second).data(), got_p.data(), false));
    EXPECT_NEAR(std::remainder(offset.last_frame_phase() + whole, 2 * M_PI), 0.0, 1e-5);
}

TEST(ApsmFrame, RefusesAnInvalidFrame)
{
    frame_format f = make_frame_format("small", 2, "qpsk", 1);
    f.streams = 9;
    EXPECT_THROW(apsm_frame_layout{ f }, std::invalid_argument);
    EXPECT_THROW(apsm_frame_splitter(make_frame_format("small", 2, "qpsk", 1), 0), std::invalid_argument);
}
