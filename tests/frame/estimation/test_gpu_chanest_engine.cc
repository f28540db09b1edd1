/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_chanest's GPU engine held to the host engine (test_chanest_engine holds that one
 * to the references frame by frame) on fresh random frames: 1x1 to 4x4, the chain's
 * lte20 4x4 among them, every estimator, noise between some frames and an all-zero
 * frame and a frame with NaN, Inf and out-of-range values (marked on the device, as the
 * host engine marks it), inputs and payload pageable, page-locked (copied by DMA in
 * place, as a block's registered stream buffers are) and in device memory (a stream
 * buffer between two GPU blocks), batches after one another on the same engine; frames
 * with pilot blocks on a fading channel (each payload symbol's record interpolated on
 * the device, against the host engine's).
 * The smoother's float against the reference's double: the tolerances are
 * test_gpu_channel_smoother's. Outputs are poisoned before each call.
 */
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "frame/estimation/chanest_batches.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/frame/estimation/chanest_engine.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::chanest_format;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

using gpumimo_test::buffers;
using gpumimo_test::engine_outputs;

class GpuChanestEngine : public Gpu
{
};

TEST_F(GpuChanestEngine, MatchesTheHostEngine)
{
    auto rng = make_rng(4201);
    struct shape {
        const char* preset;
        int streams, rx, payload;
        channel_estimator method;
        std::size_t frames;
        bool gaps;
        buffers where;
        std::size_t damaged; // a frame with unusable values, or -1
        double phase_noise = 0; // per antenna: the tracker turns each antenna back by its own phase
        int interval = 0;       // pilot blocks: each payload symbol's estimate interpolated
        double doppler = 0;     // cycles per sample
    };
    const std::size_t none = std::size_t(-1);
    for (const shape& t : { shape{ "small", 1, 1, 1, channel_estimator::ls, 1, false, buffers::pageable, none },
                            shape{ "small", 2, 4, 3, channel_estimator::lmmse, 5, true, buffers::page_locked, 3 },
                            shape{ "small", 4, 4, 6, channel_estimator::dft, 4, true, buffers::device, 0 },
                            shape{ "fft512", 2, 2, 4, channel_estimator::lmmse, 16, true, buffers::pageable, 15 },
                            shape{ "lte20", 4, 4, 9, channel_estimator::lmmse, 6, false, buffers::page_locked, none },
                            shape{ "lte20", 4, 4, 9, channel_estimator::lmmse, 16, false, buffers::device, 7 },
                            shape{ "lte20", 4, 4, 9, channel_estimator::lmmse, 3, true, buffers::pageable, none },
                            shape{ "small", 2, 4, 10, channel_estimator::lmmse, 6, true, buffers::page_locked, none, 1e-4 },
                            shape{ "small", 2, 4, 10, channel_estimator::lmmse, 5, true, buffers::pageable, 1, 0, 4, 2e-4 },
                            shape{ "small", 1, 2, 3, channel_estimator::ls, 3, false, buffers::page_locked, none, 0, 1, 2e-4 },
                            shape{ "fft512", 4, 4, 9, channel_estimator::dft, 4, true, buffers::device, 3, 1e-5, 3, 2e-5 },
                            shape{ "lte20", 4, 4, 9, channel_estimator::lmmse, 16, false, buffers::device, 5, 0, 4, 1e-6 } }) {
        const char* where[] = { "pageable", "page-locked", "device" };
        SCOPED_TRACE(std::string(t.preset) + " " + std::to_string(t.streams) + "x" +
                     std::to_string(t.rx) + " " + to_string(t.method) + ", " +
                     std::to_string(t.frames) + " frames" + (t.gaps ? ", gaps, " : ", ") +
                     where[int(t.where)] + ", damaged frame " + std::to_string(int(t.damaged)) +
                     (t.phase_noise > 0 ? ", phase noise per antenna" : "") +
                     (t.interval > 0 ? ", a pilot block every " + std::to_string(t.interval) : ""));
        const frame_format f = chanest_format(t.preset, t.streams, t.payload, t.interval);
        const estimate_items items = estimate_items_of(f, t.rx);
        const std::size_t U = std::size_t(f.num.used_carriers), P = std::size_t(t.payload);
        auto in = gpumimo_test::make_chanest_input(rng, f, t.rx, t.frames, 25.0, t.gaps,
                                                   t.frames > 2 ? 2 : none, t.damaged, t.phase_noise, t.doppler);
        auto gpu = make_chanest_engine(f, t.method, t.rx, "cuda", 0, nullptr, t.frames);
        auto cpu = make_chanest_engine(f, t.method, t.rx, "cpu", 0, nullptr, t.frames);
        ASSERT_STREQ(gpu->backend(), "cuda");
        engine_outputs g, c;
        run_chanest_engine(*cpu, in, f, t.rx, buffers::pageable, c, items.per_symbol);
        // Twice on the GPU: the second batch must not lean on the first's leftovers. The
        // first writes the estimates as records too (where the payload lies).
        for (int pass = 0; pass < 2; pass++) {
            SCOPED_TRACE("GPU pass " + std::to_string(pass));
            run_chanest_engine(*gpu, in, f, t.rx, t.where, g, pass == 0);
            ASSERT_STREQ(gpu->backend(), "cuda"); // no fallback to the CPU happened
            for (std::size_t fr = 0; fr < t.frames; fr++) {
                SCOPED_TRACE("frame " + std::to_string(fr));
                ASSERT_EQ(c.usable[fr], fr == t.damaged ? 0 : 1);
                ASSERT_EQ(g.usable[fr], c.usable[fr]);
                if (fr == t.damaged)
                    continue;
                const channel_estimate &e = g.estimates[fr], &want = c.estimates[fr];
                ASSERT_EQ(e.h.size(), want.h.size());
                EXPECT_EQ(e.method, t.method);
                EXPECT_NEAR(e.noise_var, want.noise_var, 1e-5 * want.noise_var + 1e-30);
                const double n0 = want.noise_var;
                for (std::size_t i = 0; i < want.h.size(); i++)
                    ASSERT_LT(std::abs(e.h[i] - want.h[i]), 1e-2 * std::sqrt(n0) + 3e-4) << "h " << i;
                for (std::size_t k = 0; k < U; k++)
                    ASSERT_NEAR(e.noise_eff[k], want.noise_eff[k], 5e-3 * want.noise_eff[k] + 1e-30) << k;
                if (pass == 0 && !items.per_symbol) // the records straight from the device, the estimates through the host
                    ASSERT_TRUE(gpumimo_test::record_matches_estimate(g, items, fr));
                // Pilot blocks: each payload symbol's record, interpolated on the device,
                // against the host engine's.
                for (std::size_t s = 0; pass == 0 && items.per_symbol && s < P; s++) {
                    channel_estimate gs, cs;
                    ASSERT_TRUE(gpumimo_test::read_symbol_record(g, items, fr, s, float(n0), gs)) << s;
                    ASSERT_TRUE(gpumimo_test::read_symbol_record(c, items, fr, s, float(n0), cs)) << s;
                    for (std::size_t i = 0; i < cs.h.size(); i++)
                        ASSERT_LT(std::abs(gs.h[i] - cs.h[i]), 1e-2 * std::sqrt(n0) + 3e-4) << "symbol " << s << " h " << i;
                    for (std::size_t k = 0; k < U; k++)
                        ASSERT_NEAR(gs.noise_eff[k], cs.noise_eff[k], 5e-3 * cs.noise_eff[k] + 1e-30)
                            << "symbol " << s << " carrier " << k;
                }
                // The payload turned back by the phase of the smoothed estimates: float
                // rounding in h moves the phase by about |dh| / |h|.
                for (int r = 0; r < t.rx; r++)
                    for (std::size_t i = 0; i < P * U; i++) {
                        const cf a = g.payload[std::size_t(r)][fr * P * U + i];
                        const cf b = c.payload[std::size_t(r)][fr * P * U + i];
                        ASSERT_TRUE(std::isfinite(a.real()) && std::isfinite(a.imag())) << r << " " << i;
                        ASSERT_LE(std::abs(a - b), 1e-3 * std::abs(b) + 1e-6) << "antenna " << r << " value " << i;
                    }
            }
        }
    }
}

// A failure on the GPU is not expected here; what a bad batch gets is the same as on the
// CPU: std::invalid_argument before anything is copied.
TEST_F(GpuChanestEngine, RefusesBatchesOfTheWrongForm)
{
    auto rng = make_rng(4202);
    const frame_format f = chanest_format("small", 2, 2);
    auto in = gpumimo_test::make_chanest_input(rng, f, 2, 2, 20.0, false);
    auto gpu = make_chanest_engine(f, channel_estimator::lmmse, 2, "cuda", 0, nullptr, 2);
    const auto pointers = in.pointers();
    std::vector<cf> p0(2 * 2 * std::size_t(f.num.used_carriers)), p1(p0.size());
    cf* out[2] = { p0.data(), p1.data() };
    std::vector<channel_estimate> estimates;
    unsigned char usable[2];
    chanest_batch b;
    b.in = pointers.data();
    b.payload = out;
    b.usable = usable;
    const std::size_t overlapping[2] = { 0, 1 };
    b.frame_at = overlapping;
    b.frames = 2;
    EXPECT_THROW(gpu->estimate(b, estimates), std::invalid_argument);
    b.frame_at = in.frame_at.data();
    b.frames = 3;
    EXPECT_THROW(gpu->estimate(b, estimates), std::invalid_argument);
    b.frames = 2;
    gpumimo_test::expect_record_spacing_checked(*gpu, b, f, 2);
    EXPECT_NO_THROW(gpu->estimate(b, estimates));
    EXPECT_STREQ(gpu->backend(), "cuda");
}
