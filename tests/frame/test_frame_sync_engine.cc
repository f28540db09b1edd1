/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The synchroniser engine on the CPU (core/frame/frame_sync_engine.h): search_step's
 * loop over a block's calls finds every frame of a stream once, whatever the calls'
 * sizes, and corrects it by the offset it reports.
 */
#include "common/test_util.h"
#include "frame/sync_streams.h"

#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {
frame_format small_format()
{
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qpsk;
    f.payload_symbols = 3;
    return f;
}
} // namespace

TEST(FrameSyncEngine, EveryFrameOnceWhateverTheCalls)
{
    auto rng = make_rng(2101);
    const frame_format f = small_format();
    const double bins = 0.23;
    const gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, 4, 10, 20, bins);
    const std::size_t max_input = search_window(f) + 3 * f.samples();
    const auto engine = make_cpu_frame_sync_engine(f, 4, max_input, 4);
    EXPECT_STREQ(engine->backend(), "cpu");
    const gpumimo_test::sync_run run = gpumimo_test::run_sync_engine(*engine, s, max_input, 4, rng());
    ASSERT_EQ(run.starts.size(), s.starts.size());
    const std::size_t n = f.samples();
    for (std::size_t k = 0; k < s.starts.size(); k++) {
        // A quarter prefix early, within noise (find_frame).
        EXPECT_LE(std::abs(double(run.starts[k]) - double(s.starts[k])), f.num.cp_lengths[0] / 2.0) << k;
        EXPECT_NEAR(run.frames[k].cfo * f.num.fft_len, bins, 0.01) << k;
        EXPECT_TRUE(run.frames[k].usable) << k;
        for (int a = 0; a < 4; a++)
            for (std::size_t t = 0; t < n; t += 7) {
                const std::complex<double> x = s.samples[a * s.len + run.starts[k] + t];
                const std::complex<double> want = x * std::polar(1.0, -2 * M_PI * run.frames[k].cfo * double(t));
                const std::complex<double> got = run.corrected[(k * 4 + a) * n + t];
                ASSERT_LT(std::abs(got - want), 1e-5 * (1 + std::abs(want))) << k << " " << a << " " << t;
            }
    }
    // Other call sizes, and one call over the whole stream: the same frames.
    const gpumimo_test::sync_run again = gpumimo_test::run_sync_engine(*engine, s, max_input, 4, rng());
    const auto whole = make_cpu_frame_sync_engine(f, 4, s.len, 64);
    const gpumimo_test::sync_run one = gpumimo_test::run_sync_engine(*whole, s, s.len, 64, rng());
    EXPECT_EQ(again.starts, run.starts);
    EXPECT_EQ(one.starts, run.starts);
    for (std::size_t k = 0; k < one.frames.size() && k < run.frames.size(); k++)
        EXPECT_NEAR(one.frames[k].cfo, run.frames[k].cfo, 1e-9) << k;
}

// A DC offset 20 dB below the signal at 30 dB repeats at every lag: the uncentred metric
// stayed at |dc|^4 / (|dc|^2 + N0)^2, 0.83, in the gaps and found frames there (half of
// them lost, gpumimo_rx_quality --dc -20); with the halves' means taken out every frame
// is found where it is, as without DC.
TEST(FrameSyncEngine, ADcOffsetHidesNoFrame)
{
    auto rng = make_rng(2104);
    const frame_format f = small_format();
    const gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, 4, 12, 30, 0.1, -20);
    const std::size_t max_input = search_window(f) + 3 * f.samples();
    const auto engine = make_cpu_frame_sync_engine(f, 4, max_input, 4);
    const gpumimo_test::sync_run run = gpumimo_test::run_sync_engine(*engine, s, max_input, 4, rng());
    ASSERT_EQ(run.starts.size(), s.starts.size());
    for (std::size_t k = 0; k < s.starts.size(); k++) {
        EXPECT_LE(std::abs(double(run.starts[k]) - double(s.starts[k])), f.num.cp_lengths[0] / 2.0) << k;
        EXPECT_NEAR(run.frames[k].cfo * f.num.fft_len, 0.1, 0.02) << k;
    }
}

// Structured input that is not a frame (sync_streams.h, make_structured_stream): no
// frame in any (search_step's repeat_after test; a DC offset the centred metric does
// not see at all).
TEST(FrameSyncEngine, NoFrameInStructuredInput)
{
    auto rng = make_rng(2105);
    const frame_format f = small_format();
    const std::size_t max_input = search_window(f) + 3 * f.samples();
    for (const std::string kind : gpumimo_test::structured_kinds) {
        const gpumimo_test::sync_stream s = gpumimo_test::make_structured_stream(rng, f, kind);
        const auto engine = make_cpu_frame_sync_engine(f, 4, max_input, 4);
        const gpumimo_test::sync_run run = gpumimo_test::run_sync_engine(*engine, s, max_input, 4, rng());
        EXPECT_EQ(run.starts.size(), 0u) << kind;
    }
}

TEST(FrameSyncEngine, RoomForFramesAndDamagedFrames)
{
    auto rng = make_rng(2102);
    const frame_format f = small_format();
    gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, 2, 6, 25, 0.1);
    s.samples[s.starts[2] + 100] = cf(NAN, 0); // antenna 0, inside frame 2
    s.samples[s.len + s.starts[4] + 7] = cf(0, 2e15f); // antenna 1, frame 4, beyond the range
    const auto engine = make_cpu_frame_sync_engine(f, 2, s.len, 8);
    std::vector<cf> out(2 * 8 * f.samples());
    cf* to[2] = { out.data(), out.data() + 8 * f.samples() };
    const cf* in[2] = { s.samples.data(), s.samples.data() + s.len };
    std::vector<synced_frame> found(8);
    // One frame of room: one frame, and the stream moves on just past it.
    const sync_call_result one = engine->search(in, 0, s.len, 1, automatic_threshold, to, found.data());
    ASSERT_EQ(one.frames, 1u);
    EXPECT_EQ(one.consumed, found[0].start + f.samples());
    const sync_call_result all = engine->search(in, 0, s.len, 8, automatic_threshold, to, found.data());
    ASSERT_EQ(all.frames, s.starts.size());
    for (std::size_t k = 0; k < all.frames; k++)
        EXPECT_EQ(found[k].usable, k != 2 && k != 4) << k;
    // Bad calls: more input than the engine takes, more room than it has, a threshold
    // out of range; and a factory asked for less than a search window.
    EXPECT_THROW(engine->search(in, 0, s.len + 1, 1, 0, to, found.data()), std::invalid_argument);
    EXPECT_THROW(engine->search(in, 0, s.len, 9, 0, to, found.data()), std::invalid_argument);
    EXPECT_THROW(engine->search(in, 0, s.len, 1, 1.5, to, found.data()), std::invalid_argument);
    EXPECT_THROW(make_frame_sync_engine(f, 2, search_window(f) - 1, 1, "cpu"), std::invalid_argument);
    EXPECT_THROW(make_frame_sync_engine(f, 2, search_window(f), 0, "cpu"), std::invalid_argument);
    EXPECT_THROW(make_frame_sync_engine(f, 0, search_window(f), 1, "cpu"), std::invalid_argument);
    // Less than a frame and a margin: nothing searched, nothing consumed.
    const sync_call_result little = engine->search(
        in, 0, f.samples() + search_margin(f) - 1, 8, automatic_threshold, to, found.data());
    EXPECT_EQ(little.consumed, 0u);
    EXPECT_EQ(little.frames, 0u);
}

TEST(FrameSyncEngine, AutoBackendWorksWithOrWithoutAGpu)
{
    auto rng = make_rng(2103);
    const frame_format f = small_format();
    const gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, 2, 4, 25, -0.3);
    std::string why;
    const auto engine = make_frame_sync_engine(f, 2, s.len, 8, "auto", 0, &why);
    const auto cpu = make_cpu_frame_sync_engine(f, 2, s.len, 8);
    std::cout << "auto backend: " << engine->backend() << (why.empty() ? "" : " (" + why + ")") << "\n";
    const std::uint64_t arrivals = rng();
    const gpumimo_test::sync_run a = gpumimo_test::run_sync_engine(*engine, s, s.len, 8, arrivals);
    const gpumimo_test::sync_run b = gpumimo_test::run_sync_engine(*cpu, s, s.len, 8, arrivals);
    EXPECT_EQ(a.starts, b.starts);
    EXPECT_EQ(a.starts.size(), s.starts.size());
}
