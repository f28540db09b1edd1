/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The synchroniser on the GPU against the CPU engine (the reference) on fresh random
 * streams, fed call by call as a block feeds them: the same calls consume the same
 * samples and find the same frames (start exactly; metric and offset to rounding), the
 * corrected samples agree within float rounding, and damaged frames are flagged alike.
 */
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "frame/sync_streams.h"

#include <gnuradio/gpumimo/core/frame/frame_sync_engine.h>

#include <cmath>
#include <iostream>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

void expect_same_as_cpu(const char* preset,
                        int streams,
                        modulation mod,
                        int rx,
                        int frames,
                        double snr_db,
                        std::uint64_t salt,
                        double dc_dbc = -INFINITY,
                        double iq_gain_db = 0,
                        double iq_phase_deg = 0)
{
    auto rng = make_rng(salt);
    frame_format f;
    f.num = numerology_preset(preset);
    f.streams = streams;
    f.mod = mod;
    f.payload_symbols = 3;
    std::uniform_real_distribution<double> bins(-0.45, 0.45);
    gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, rx, frames, snr_db, bins(rng), dc_dbc,
                                                                 iq_gain_db, iq_phase_deg);
    // Damage: a NaN, an Inf and a sample beyond the input range, anywhere.
    std::uniform_int_distribution<std::size_t> where(0, s.samples.size() - 1);
    s.samples[where(rng)] = cf(NAN, 0);
    s.samples[where(rng)] = cf(0, -INFINITY);
    s.samples[where(rng)] = cf(3e15f, 0);
    // A frame 1e10 louder than the rest (a burst from a nearby transmitter): the frame
    // after it must still be found as the reference finds it.
    for (int a = 0; a < rx; a++)
        for (std::size_t t = 0; t < f.samples(); t++)
            s.samples[a * s.len + s.starts[1] + t] *= 1e5f;
    const std::size_t max_input = search_window(f) + 2 * f.samples();
    const std::size_t max_frames = 3;
    std::string why;
    const auto gpu = make_frame_sync_engine(f, rx, max_input, max_frames, "cuda", 0, &why);
    ASSERT_STREQ(gpu->backend(), "cuda");
    const auto cpu = make_cpu_frame_sync_engine(f, rx, max_input, max_frames);
    // Three call patterns, the GPU engine kept; the second with page-locked input and
    // output (copied by DMA in place, as from and to a block's registered stream buffers),
    // the third with the output in device memory (a device-resident stream buffer).
    using gpumimo_test::sync_buffers;
    for (int pass = 0; pass < 3; pass++) {
        const std::uint64_t arrivals = rng();
        const gpumimo_test::sync_run want = gpumimo_test::run_sync_engine(*cpu, s, max_input, max_frames, arrivals);
        const sync_buffers where[] = { sync_buffers::pageable, sync_buffers::page_locked,
                                       sync_buffers::device_output };
        const gpumimo_test::sync_run got =
            gpumimo_test::run_sync_engine(*gpu, s, max_input, max_frames, arrivals, where[pass]);
        ASSERT_EQ(got.consumed, want.consumed) << preset << " pass " << pass;
        ASSERT_EQ(got.starts, want.starts) << preset << " pass " << pass;
        EXPECT_GE(want.starts.size(), s.starts.size() - 3) << "damage may hide a frame, not most";
        const std::size_t n = f.samples();
        double worst = 0;
        for (std::size_t k = 0; k < want.frames.size(); k++) {
            // The reference's double sliding sums keep the loud frame's rounding (1e20 x
            // 1e-16 of power) when its window still holds the loud frame's last samples:
            // up to 2.2e-6 of the metric there (measured, lte20); the GPU's double-double
            // sums keep 1e-12. The starts above are the decisions, and equal.
            EXPECT_NEAR(got.frames[k].metric, want.frames[k].metric, 2e-5) << k;
            EXPECT_EQ(got.frames[k].usable, want.frames[k].usable) << k;
            if (!want.frames[k].usable) // its offset may be NaN: the frame is dropped
                continue;
            EXPECT_NEAR(got.frames[k].cfo, want.frames[k].cfo, 1e-10) << k; // 2e-7 spacings
            for (std::size_t i = 0; i < std::size_t(rx) * n; i++) {
                const std::complex<double> w = want.corrected[k * rx * n + i],
                                           g = got.corrected[k * rx * n + i];
                const double e = std::abs(g - w) / (1 + std::abs(w));
                ASSERT_TRUE(std::isfinite(e)) << k << " " << i; // written, not left poisoned
                worst = std::max(worst, e);
            }
        }
        std::cout << preset << " pass " << pass << ": " << want.starts.size() << " frames in "
                  << want.consumed.size() << " calls, worst corrected-sample difference " << worst << "\n";
        EXPECT_LT(worst, 2e-6);
    }
}

} // namespace

TEST_F(Gpu, FrameSyncFindsTheCpuEnginesFramesSmall)
{
    expect_same_as_cpu("small", 2, modulation::qpsk, 4, 12, 15, 2201);
}

TEST_F(Gpu, FrameSyncFindsTheCpuEnginesFramesLte20)
{
    expect_same_as_cpu("lte20", 4, modulation::qam16, 4, 5, 20, 2202);
}

// A DC offset 20 dB below the signal at 30 dB: the centred metric (the halves' means
// taken out) on both, the same frames.
TEST_F(Gpu, FrameSyncFindsTheCpuEnginesFramesWithADcOffset)
{
    expect_same_as_cpu("small", 2, modulation::qpsk, 4, 12, 30, 2203, -20);
    expect_same_as_cpu("fft512", 2, modulation::qam16, 4, 6, 30, 2204, -20);
}

// The receiver's IQ imbalance (1 dB, 5 degrees): both engines learn it over the frames
// and compensate the same frames the same way (the corrected samples compared above).
TEST_F(Gpu, FrameSyncLearnsTheIqImbalanceAsTheCpu)
{
    expect_same_as_cpu("small", 2, modulation::qam16, 4, 16, 25, 2205, -INFINITY, 1.0, 5.0);
    expect_same_as_cpu("fft512", 2, modulation::qam16, 4, 8, 25, 2206, -INFINITY, 1.0, 5.0);
}

// Structured input (sync_streams.h): the GPU's search refuses the candidates that
// repeat on after their symbol as search_step does: no frame, the same consumption.
TEST_F(Gpu, FrameSyncFindsNoFrameInStructuredInput)
{
    auto rng = make_rng(2207);
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qpsk;
    f.payload_symbols = 3;
    const std::size_t max_input = search_window(f) + 3 * f.samples();
    const auto gpu = make_frame_sync_engine(f, 4, max_input, 4, "cuda");
    const auto cpu = make_cpu_frame_sync_engine(f, 4, max_input, 4);
    for (const std::string kind : gpumimo_test::structured_kinds) {
        const gpumimo_test::sync_stream s = gpumimo_test::make_structured_stream(rng, f, kind);
        const std::uint64_t arrivals = rng();
        const gpumimo_test::sync_run want = gpumimo_test::run_sync_engine(*cpu, s, max_input, 4, arrivals);
        const gpumimo_test::sync_run got = gpumimo_test::run_sync_engine(*gpu, s, max_input, 4, arrivals);
        EXPECT_EQ(got.starts.size(), 0u) << kind;
        EXPECT_EQ(want.starts.size(), 0u) << kind;
        EXPECT_EQ(got.consumed, want.consumed) << kind;
    }
}

TEST_F(Gpu, FrameSyncFindsNothingInNoiseAndKeepsGoing)
{
    // Noise alone (SNR -100 dB: the frames drown), then the calls' bookkeeping: the same
    // consumption as the reference, no frame.
    auto rng = make_rng(2203);
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qpsk;
    f.payload_symbols = 3;
    const gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, f, 4, 30, -100, 0);
    const std::size_t max_input = search_window(f) + 8 * f.samples();
    const auto gpu = make_frame_sync_engine(f, 4, max_input, 2, "cuda");
    const auto cpu = make_cpu_frame_sync_engine(f, 4, max_input, 2);
    const std::uint64_t arrivals = rng();
    const gpumimo_test::sync_run want = gpumimo_test::run_sync_engine(*cpu, s, max_input, 2, arrivals);
    const gpumimo_test::sync_run got = gpumimo_test::run_sync_engine(*gpu, s, max_input, 2, arrivals);
    EXPECT_EQ(got.consumed, want.consumed);
    EXPECT_EQ(got.starts, want.starts);
    EXPECT_TRUE(want.starts.empty());
}

TEST_F(Gpu, FrameSyncRefusesWhatTheCpuRefuses)
{
    frame_format f;
    f.num = numerology_preset("small");
    f.streams = 2;
    f.mod = modulation::qpsk;
    f.payload_symbols = 3;
    const std::size_t max_input = search_window(f);
    const auto gpu = make_frame_sync_engine(f, 2, max_input, 2, "cuda");
    std::vector<cf> x(2 * (max_input + 1)), out(2 * 2 * f.samples());
    const cf* in[2] = { x.data(), x.data() + max_input + 1 };
    cf* to[2] = { out.data(), out.data() + 2 * f.samples() };
    std::vector<synced_frame> found(2);
    EXPECT_THROW(gpu->search(in, 0, max_input + 1, 1, 0, to, found.data()), std::invalid_argument);
    EXPECT_THROW(gpu->search(in, 0, max_input, 3, 0, to, found.data()), std::invalid_argument);
    EXPECT_THROW(gpu->search(in, 0, max_input, 1, -0.5, to, found.data()), std::invalid_argument);
    EXPECT_STREQ(gpu->backend(), "cuda"); // bad input is the caller's: the GPU stays
}
