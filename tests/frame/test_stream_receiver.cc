/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream receiver on the CPU (core/frame/stream_receiver_engine.h): sample streams
 * in, each frame's LLRs out, call by call as a block calls it; every frame of a clean
 * stream found and its bits back, a damaged frame's LLRs zero.
 */
#include "common/test_util.h"
#include "frame/sync_streams.h"

#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

fused_receiver_config small_config(int streams, int rx)
{
    fused_receiver_config c;
    c.frame.num = numerology_preset("small");
    c.frame.streams = streams;
    c.frame.mod = modulation::qpsk;
    c.frame.payload_symbols = 4;
    c.rx = rx;
    c.algo = algorithm::mmse;
    return c;
}

} // namespace

TEST(StreamReceiver, EveryFrameFoundAndItsBitsBack)
{
    auto rng = make_rng(2301);
    const fused_receiver_config c = small_config(2, 4);
    gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, c.frame, 4, 9, 25, 0.3);
    s.samples[s.starts[5] + 123] = cf(INFINITY, 0); // antenna 0, frame 5
    const std::size_t max_input = search_window(c.frame) + 3 * c.frame.samples(), max_frames = 4;
    const auto engine = make_cpu_stream_receiver_engine(c, max_input, max_frames);
    EXPECT_STREQ(engine->backend(), "cpu");
    const std::size_t bits = c.frame.payload_bits();
    std::vector<float> llr(max_frames * bits), noise(max_frames);
    std::vector<synced_frame> found(max_frames);
    std::vector<std::uint64_t> starts;
    std::size_t errors = 0, at = 0;
    while (s.len - at >= c.frame.samples() + search_margin(c.frame)) {
        const cf* in[4];
        for (int a = 0; a < 4; a++)
            in[a] = &s.samples[a * s.len + at];
        std::fill(llr.begin(), llr.end(), NAN);
        fused_receiver_report rep;
        const sync_call_result r = engine->process(in, at, std::min(s.len - at, max_input), max_frames,
                                                   automatic_threshold, llr.data(), noise.data(),
                                                   found.data(), &rep);
        ASSERT_GT(r.consumed, 0u);
        for (std::size_t k = 0; k < r.frames; k++) {
            const std::size_t frame = starts.size();
            starts.push_back(at + found[k].start);
            EXPECT_EQ(found[k].usable, frame != 5) << frame;
            for (std::size_t i = 0; i < bits; i++) {
                const float v = llr[k * bits + i];
                ASSERT_TRUE(std::isfinite(v)) << frame << " " << i;
                if (!found[k].usable)
                    ASSERT_EQ(v, 0.0f) << frame << " " << i; // a damaged frame: erasures
                else
                    errors += (v > 0) != (s.bits[frame * bits + i] == 1);
            }
        }
        EXPECT_EQ(rep.damaged_frames, std::size_t(std::count_if(
                                          found.begin(), found.begin() + long(r.frames),
                                          [](const synced_frame& f) { return !f.usable; })));
        at += r.consumed;
    }
    ASSERT_EQ(starts.size(), s.starts.size());
    for (std::size_t k = 0; k < starts.size(); k++)
        EXPECT_LE(std::abs(double(starts[k]) - double(s.starts[k])), c.frame.num.cp_lengths[0] / 2.0);
    EXPECT_EQ(errors, 0u) << "of " << (starts.size() - 1) * bits << " bits at 25 dB";
}

TEST(StreamReceiver, RefusesACodeAndBadSizes)
{
    fused_receiver_config c = small_config(2, 2);
    const std::size_t w = search_window(c.frame);
    EXPECT_THROW(make_cpu_stream_receiver_engine(c, w - 1, 1), std::invalid_argument);
    EXPECT_THROW(make_cpu_stream_receiver_engine(c, w, 0), std::invalid_argument);
    c.code = "wimax_576";
    EXPECT_THROW(make_stream_receiver_engine(c, w, 1, "auto"), std::invalid_argument);
    c.code.clear();
    c.rx = 1; // fewer antennas than streams
    EXPECT_THROW(make_stream_receiver_engine(c, w, 1, "cpu"), std::invalid_argument);
}
