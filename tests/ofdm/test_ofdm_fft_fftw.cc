/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT's FFTW path (the GNU Radio block's CPU path) against the CPU reference
 * on fresh random symbols, with the checks the CUDA path gets (ofdm_compare.h): sizes
 * 64 .. 4096, 1 .. 16 channels, every format, both directions, prefix patterns,
 * window, separate channel buffers, non-finite input. Skipped where the core was built
 * without FFTW.
 */
#include "ofdm/ofdm_compare.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/ofdm/fftw_ofdm_fft.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>

#include <gtest/gtest.h>

#include <memory>

using namespace gr::gpumimo::core;
using gpumimo_test::lte_like;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

class Fftw : public ::testing::Test
{
protected:
    void SetUp() override
    {
        std::string why;
        if (!fftw_available(&why))
            GTEST_SKIP() << why;
    }
};

void compare(const ofdm_fft_config& c,
             std::size_t first,
             std::size_t nsym,
             std::mt19937_64& rng,
             bool separate = false)
{
    fftw_ofdm_fft fftw(c);
    gpumimo_test::compare_with_reference(
        c,
        first,
        nsym,
        rng,
        [&](const ofdm_fft_io& io) { return fftw.process(io); },
        separate);
}

} // namespace

TEST_F(Fftw, ForwardEqualsReferenceAcrossSizesAndChannels)
{
    auto rng = make_rng(600);
    for (int n : { 64, 128, 256, 512, 1024, 1536, 2048, 3072, 4096 })
        for (int channels : { 1, 3, 16 }) {
            if (channels == 16 && n > 512)
                continue; // the double-precision reference is the slow side
            ofdm_fft_config c = lte_like(n, fft_direction::forward);
            c.channels = channels;
            c.input = sample_format::sc16;
            compare(c, 1, channels == 16 ? 3 : 5, rng);
        }
}

TEST_F(Fftw, EngineSubmitThenFinishEqualsTheReference)
{
    // The CPU engine's one call in flight (the streamed block's use): done in submit(),
    // its zeroed count from finish(), then nothing until the next submit().
    auto rng = make_rng(604);
    ofdm_fft_config c = lte_like(256, fft_direction::forward);
    c.channels = 2;
    auto engine = make_ofdm_fft_engine(c, "cpu");
    gpumimo_test::compare_with_reference(c, 2, 9, rng, [&](const ofdm_fft_io& io) {
        engine->submit(io);
        return engine->finish();
    });
    EXPECT_EQ(engine->finish(), 0u);
}

TEST_F(Fftw, EveryFormatBothDirections)
{
    auto rng = make_rng(601);
    gpumimo_test::for_every_format_pair(
        [&](const ofdm_fft_config& c) { compare(c, 3, 7, rng); });
}

TEST_F(Fftw, WindowNoShiftAllCarriersNoPrefixAndSeparateBuffers)
{
    auto rng = make_rng(602);
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c;
        c.fft_len = 1024;
        c.direction = dir;
        c.channels = 4;
        for (int t = 0; t < 1024; t++)
            c.window.push_back(float(0.54 - 0.46 * std::cos(2 * M_PI * t / 1023)));
        compare(c, 0, 4, rng);
        c.cp_lengths = { 0, 72 };
        compare(c, 5, 4, rng, true);
    }
}

TEST_F(Fftw, NonFiniteSymbolsComeOutZeroAndAreCounted)
{
    auto rng = make_rng(603);
    std::unique_ptr<fftw_ofdm_fft> fftw;
    const auto make = [&](const ofdm_fft_config& c) {
        fftw = std::make_unique<fftw_ofdm_fft>(c);
        return gpumimo_test::ofdm_process(
            [&](const ofdm_fft_io& io) { return fftw->process(io); });
    };
    gpumimo_test::check_non_finite_symbols(rng, make);
    gpumimo_test::check_non_finite_carriers(rng, make);
}

TEST_F(Fftw, BadBuffersAreRefused)
{
    ofdm_fft_config c;
    c.channels = 2;
    fftw_ofdm_fft fftw(c);
    std::vector<cf> in(128), out(128);
    EXPECT_THROW(fftw.process({ in.data(), 10, out.data(), 64, 0, 1 }),
                 std::invalid_argument);
    EXPECT_THROW(fftw.process({ nullptr, 64, out.data(), 64, 0, 1 }),
                 std::invalid_argument);
    const void* ins[2] = { in.data(), nullptr };
    ofdm_fft_io io;
    io.in_channels = ins;
    io.out = out.data();
    io.out_stride = 64;
    io.nsym = 1;
    EXPECT_THROW(fftw.process(io), std::invalid_argument);
    c.fft_len = 7;
    EXPECT_THROW(fftw_ofdm_fft{ c }, std::invalid_argument);
}
