/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_chanest's host engine held to the references composed frame by frame
 * (estimate_channel with its own smoother, phase_tracker, each payload symbol turned
 * back by its phase: tests/frame/estimation/chanest_batches.h) on fresh random frames, with noise
 * between some of them and an all-zero frame; frames with unusable values marked and
 * skipped; its batch checks; its estimates' storage kept between calls. Outputs are
 * poisoned before each call.
 */
#include "common/test_util.h"
#include "frame/estimation/chanest_batches.h"

#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace gr::gpumimo::core;
using gpumimo_test::chanest_format;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

// |a - b| within rel of b's size (and a hair above zero).
::testing::AssertionResult close(cf a, cf b, double rel)
{
    if (std::abs(a - b) <= rel * std::abs(b) + 1e-30 && std::isfinite(std::abs(a)))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a << " against " << b;
}

} // namespace

TEST(ChanestEngine, HostEngineMatchesTheReferencesFrameByFrame)
{
    auto rng = make_rng(4101);
    struct shape {
        const char* preset;
        int streams, rx, payload;
        channel_estimator method;
        std::size_t frames;
        bool gaps;
    };
    for (const shape& t : { shape{ "small", 2, 4, 3, channel_estimator::lmmse, 5, true },
                            shape{ "small", 1, 1, 1, channel_estimator::ls, 1, false },
                            shape{ "small", 4, 4, 6, channel_estimator::dft, 4, false },
                            shape{ "fft512", 4, 4, 2, channel_estimator::lmmse, 3, true } }) {
        SCOPED_TRACE(std::string(t.preset) + " " + std::to_string(t.streams) + "x" +
                     std::to_string(t.rx) + " " + to_string(t.method));
        const frame_format f = chanest_format(t.preset, t.streams, t.payload);
        const std::size_t U = std::size_t(f.num.used_carriers), P = std::size_t(t.payload);
        const auto in = gpumimo_test::make_chanest_input(rng, f, t.rx, t.frames, 20.0, t.gaps,
                                                         t.frames > 2 ? 1 : std::size_t(-1));
        auto engine = make_chanest_engine(f, t.method, t.rx, "cpu", 0, nullptr, t.frames);
        ASSERT_STREQ(engine->backend(), "cpu");
        gpumimo_test::engine_outputs out;
        run_chanest_engine(*engine, in, f, t.rx, gpumimo_test::buffers::pageable, out, true);
        const auto& estimates = out.estimates;
        const auto& payload = out.payload;
        ASSERT_GE(estimates.size(), t.frames);
        for (std::size_t fr = 0; fr < t.frames; fr++) {
            SCOPED_TRACE("frame " + std::to_string(fr));
            ASSERT_EQ(out.usable[fr], 1);
            std::vector<cf> want_payload;
            const channel_estimate want =
                gpumimo_test::reference_chanest(f, t.method, t.rx, in, fr, want_payload);
            const channel_estimate& e = estimates[fr];
            EXPECT_EQ(e.rx, t.rx);
            EXPECT_EQ(e.tx, t.streams);
            EXPECT_EQ(e.method, t.method);
            ASSERT_EQ(e.h.size(), want.h.size());
            EXPECT_FLOAT_EQ(e.noise_var, want.noise_var);
            for (std::size_t i = 0; i < want.h.size(); i++)
                ASSERT_TRUE(close(e.h[i], want.h[i], 1e-6)) << "h " << i;
            for (std::size_t c = 0; c < U; c++) {
                ASSERT_FLOAT_EQ(e.noise_eff[c], want.noise_eff[c]) << c;
                ASSERT_FLOAT_EQ(e.error_var[c], want.error_var[c]) << c;
            }
            for (int r = 0; r < t.rx; r++)
                for (std::size_t i = 0; i < P * U; i++)
                    ASSERT_TRUE(close(payload[std::size_t(r)][fr * P * U + i],
                                      want_payload[std::size_t(r) * P * U + i], 1e-6))
                        << "antenna " << r << " value " << i;
            EXPECT_TRUE(gpumimo_test::record_matches_estimate(out, estimate_items_of(f, t.rx), fr));
        }
    }
}

TEST(ChanestEngine, RefusesBatchesOfTheWrongForm)
{
    auto rng = make_rng(4102);
    const frame_format f = chanest_format("small", 2, 2);
    const auto in = gpumimo_test::make_chanest_input(rng, f, 2, 3, 20.0, false);
    auto engine = make_chanest_engine(f, channel_estimator::lmmse, 2, "cpu", 0, nullptr, 2);
    const auto pointers = in.pointers();
    std::vector<cf> p0(3 * 2 * std::size_t(f.num.used_carriers)), p1(p0.size());
    cf* out[2] = { p0.data(), p1.data() };
    std::vector<channel_estimate> estimates;
    unsigned char usable[3];
    chanest_batch b;
    b.in = pointers.data();
    b.frame_at = in.frame_at.data();
    b.payload = out;
    b.usable = usable;
    b.frames = 3; // more than max_frames
    EXPECT_THROW(engine->estimate(b, estimates), std::invalid_argument);
    b.frames = 0;
    EXPECT_THROW(engine->estimate(b, estimates), std::invalid_argument);
    const std::size_t overlapping[2] = { 0, std::size_t(f.symbols()) - 1 };
    b.frames = 2;
    b.frame_at = overlapping;
    EXPECT_THROW(engine->estimate(b, estimates), std::invalid_argument);
    b.frame_at = in.frame_at.data();
    b.usable = nullptr;
    EXPECT_THROW(engine->estimate(b, estimates), std::invalid_argument);
    b.usable = usable;
    b.payload = nullptr;
    EXPECT_THROW(engine->estimate(b, estimates), std::invalid_argument);
    b.payload = out;
    gpumimo_test::expect_record_spacing_checked(*engine, b, f, 2);
    // With pilot blocks a frame's records span its payload symbols' items.
    const frame_format tracked = chanest_format("small", 2, 2, 1);
    const auto tin = gpumimo_test::make_chanest_input(rng, tracked, 2, 2, 20.0, false);
    auto tengine = make_chanest_engine(tracked, channel_estimator::lmmse, 2, "cpu", 0, nullptr, 2);
    const auto tpointers = tin.pointers();
    b.in = tpointers.data();
    b.frame_at = tin.frame_at.data();
    gpumimo_test::expect_record_spacing_checked(*tengine, b, tracked, 2);
    EXPECT_THROW(make_chanest_engine(f, channel_estimator::ls, 0, "cpu"), std::invalid_argument);
    EXPECT_THROW(make_chanest_engine(f, channel_estimator::ls, 2, "cpu", 0, nullptr, 0),
                 std::invalid_argument);
}

// A smaller batch after a larger one leaves the estimates' vectors (and so their
// storage) alone: mimo_chanest's work() then allocates nothing for them.
TEST(ChanestEngine, EstimatesAreNeverShrunk)
{
    auto rng = make_rng(4103);
    const frame_format f = chanest_format("small", 2, 2);
    const auto three = gpumimo_test::make_chanest_input(rng, f, 2, 3, 20.0, false);
    const auto one = gpumimo_test::make_chanest_input(rng, f, 2, 1, 20.0, false);
    auto engine = make_chanest_engine(f, channel_estimator::lmmse, 2, "cpu", 0, nullptr, 3);
    gpumimo_test::engine_outputs out;
    run_chanest_engine(*engine, three, f, 2, gpumimo_test::buffers::pageable, out);
    ASSERT_EQ(out.estimates.size(), 3u);
    const cf* kept = out.estimates[2].h.data();
    run_chanest_engine(*engine, one, f, 2, gpumimo_test::buffers::pageable, out);
    EXPECT_EQ(out.estimates.size(), 3u);
    EXPECT_EQ(out.estimates[2].h.data(), kept);
}

// A frame with a NaN, an Inf and an out-of-range value on one antenna is marked not
// usable and not estimated (its estimate left as it was); the frames around it come out
// as the references give them, as if it were not there.
TEST(ChanestEngine, MarksFramesWithUnusableValues)
{
    auto rng = make_rng(4104);
    const frame_format f = chanest_format("small", 2, 3);
    const std::size_t U = std::size_t(f.num.used_carriers), P = 3;
    for (std::size_t bad : { std::size_t(0), std::size_t(2), std::size_t(4) }) {
        SCOPED_TRACE("damaged frame " + std::to_string(bad));
        auto in = gpumimo_test::make_chanest_input(rng, f, 4, 5, 20.0, true, std::size_t(-1), bad);
        auto engine = make_chanest_engine(f, channel_estimator::lmmse, 4, "cpu", 0, nullptr, 5);
        gpumimo_test::engine_outputs out;
        out.estimates.resize(5);
        out.estimates[bad].noise_var = 1234.5; // a marker the engine must leave alone
        run_chanest_engine(*engine, in, f, 4, gpumimo_test::buffers::pageable, out);
        for (std::size_t fr = 0; fr < 5; fr++) {
            SCOPED_TRACE("frame " + std::to_string(fr));
            ASSERT_EQ(out.usable[fr], fr == bad ? 0 : 1);
            if (fr == bad) {
                EXPECT_EQ(out.estimates[fr].noise_var, 1234.5);
                continue;
            }
            std::vector<cf> want_payload;
            const channel_estimate want =
                gpumimo_test::reference_chanest(f, channel_estimator::lmmse, 4, in, fr, want_payload);
            EXPECT_FLOAT_EQ(out.estimates[fr].noise_var, want.noise_var);
            for (std::size_t i = 0; i < want.h.size(); i++)
                ASSERT_TRUE(close(out.estimates[fr].h[i], want.h[i], 1e-6)) << "h " << i;
            for (std::size_t i = 0; i < P * U; i++)
                ASSERT_TRUE(close(out.payload[3][fr * P * U + i], want_payload[3 * P * U + i], 1e-6)) << i;
        }
    }
}

// Frames with pilot blocks (time tracking, frame format 4): the host engine held to the
// references composed symbol by symbol (every block estimated with its own smoother,
// each payload symbol's estimate interpolated, the tracker fed symbol by symbol, the
// blocks left out of the payload), on a channel fading within the frame; each symbol's
// record is its interpolated estimate, the frame's estimate its first block's.
TEST(ChanestEngine, HostEngineTracksFramesWithPilotBlocks)
{
    auto rng = make_rng(4105);
    struct shape {
        const char* preset;
        int streams, rx, payload, interval;
        channel_estimator method;
        std::size_t frames;
    };
    for (const shape& t : { shape{ "small", 2, 4, 10, 4, channel_estimator::lmmse, 4 },
                            shape{ "small", 1, 2, 3, 1, channel_estimator::ls, 2 },
                            shape{ "fft512", 4, 4, 9, 3, channel_estimator::dft, 2 } }) {
        SCOPED_TRACE(std::string(t.preset) + " " + std::to_string(t.streams) + "x" + std::to_string(t.rx) +
                     " " + to_string(t.method) + ", a block every " + std::to_string(t.interval));
        const frame_format f = chanest_format(t.preset, t.streams, t.payload, t.interval);
        ASSERT_GT(f.pilot_blocks(), 1);
        const estimate_items items = estimate_items_of(f, t.rx);
        ASSERT_TRUE(items.per_symbol);
        const std::size_t U = std::size_t(f.num.used_carriers), P = std::size_t(t.payload);
        const auto in = gpumimo_test::make_chanest_input(rng, f, t.rx, t.frames, 20.0, true, std::size_t(-1),
                                                         std::size_t(-1), 0, 2e-4);
        auto engine = make_chanest_engine(f, t.method, t.rx, "cpu", 0, nullptr, t.frames);
        gpumimo_test::engine_outputs out;
        run_chanest_engine(*engine, in, f, t.rx, gpumimo_test::buffers::pageable, out, true);
        for (std::size_t fr = 0; fr < t.frames; fr++) {
            SCOPED_TRACE("frame " + std::to_string(fr));
            ASSERT_EQ(out.usable[fr], 1);
            std::vector<cf> want_payload;
            const std::vector<channel_estimate> want =
                gpumimo_test::reference_tracked_chanest(f, t.method, t.rx, in, fr, want_payload);
            // The frame's estimate: block 0's, which symbol 0 (w = 0 beside it) copies.
            EXPECT_FLOAT_EQ(out.estimates[fr].noise_var, want[0].noise_var);
            for (std::size_t s = 0; s < P; s++) {
                SCOPED_TRACE("payload symbol " + std::to_string(s));
                channel_estimate e;
                ASSERT_TRUE(gpumimo_test::read_symbol_record(out, items, fr, s, want[s].noise_var, e));
                ASSERT_EQ(e.h.size(), want[s].h.size());
                for (std::size_t i = 0; i < e.h.size(); i++)
                    ASSERT_TRUE(close(e.h[i], want[s].h[i], 1e-6)) << "h " << i;
                for (std::size_t c = 0; c < U; c++)
                    ASSERT_FLOAT_EQ(e.noise_eff[c], want[s].noise_eff[c]) << c;
            }
            // The channel moves between the blocks: the symbols' estimates differ.
            EXPECT_NE(want[0].h[0], want[P - 1].h[0]);
            for (int r = 0; r < t.rx; r++)
                for (std::size_t i = 0; i < P * U; i++)
                    ASSERT_TRUE(close(out.payload[std::size_t(r)][fr * P * U + i],
                                      want_payload[std::size_t(r) * P * U + i], 1e-6))
                        << "antenna " << r << " value " << i;
        }
    }
}
