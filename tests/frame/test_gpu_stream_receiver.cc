/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream receiver on the GPU (frames kept on the device between the synchroniser
 * and the fused receiver) against the CPU engine on fresh random streams, call by call:
 * the same samples consumed and frames found, LLRs within the fused receiver's GPU
 * bound (1e-3 of their vector's size), a damaged frame's LLRs zero on both; with the
 * input stream and the LLR buffer page-locked (copied by DMA in place, as from a block's
 * registered stream buffers) the same results bit for bit as through staging.
 */
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "frame/fused_frames.h"
#include "frame/sync_streams.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/frame/stream_receiver_engine.h>

#include <cmath>
#include <iostream>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

struct stream_out {
    std::vector<std::size_t> consumed;
    std::vector<std::uint64_t> starts;
    std::vector<bool> usable;
    std::vector<float> llr;
};

stream_out run(stream_receiver_engine& e,
               const gpumimo_test::sync_stream& s,
               std::size_t max_input,
               std::size_t max_frames,
               std::uint64_t arrivals,
               bool page_locked = false)
{
    stream_out o;
    std::mt19937_64 rng(arrivals);
    std::uniform_int_distribution<std::size_t> arrive(1, 3 * s.f.samples());
    std::uniform_int_distribution<std::size_t> room(1, max_frames);
    const std::size_t bits = s.f.payload_bits();
    std::vector<float> llr(max_frames * bits), noise(max_frames);
    std::vector<host_registration> locks; // as a block registers its stream buffers
    if (page_locked) {
        locks.emplace_back(s.samples.data(), s.samples.size() * sizeof(cf));
        locks.emplace_back(llr.data(), llr.size() * sizeof(float));
        for (const host_registration& r : locks)
            EXPECT_TRUE(r.pinned());
    }
    std::vector<synced_frame> found(max_frames);
    std::vector<const cf*> in(std::size_t(s.rx));
    std::size_t available = 0, at = 0;
    while (at < s.len) {
        available = std::min(s.len, available + arrive(rng));
        for (int a = 0; a < s.rx; a++)
            in[a] = &s.samples[a * s.len + at];
        std::fill(llr.begin(), llr.end(), NAN); // poisoned: every LLR written is checked
        const sync_call_result r = e.process(in.data(), at, std::min(available - at, max_input),
                                             room(rng), automatic_threshold, llr.data(),
                                             noise.data(), found.data(), nullptr);
        o.consumed.push_back(r.consumed);
        for (std::size_t k = 0; k < r.frames; k++) {
            o.starts.push_back(at + found[k].start);
            o.usable.push_back(found[k].usable);
        }
        o.llr.insert(o.llr.end(), llr.begin(), llr.begin() + long(r.frames * bits));
        at += r.consumed;
        if (available == s.len && r.consumed == 0)
            break;
    }
    return o;
}

void expect_same_as_cpu(const char* preset, int streams, modulation mod, int rx, int frames, std::uint64_t salt)
{
    auto rng = make_rng(salt);
    fused_receiver_config c;
    c.frame.num = numerology_preset(preset);
    c.frame.streams = streams;
    c.frame.mod = mod;
    c.frame.payload_symbols = 4;
    c.rx = rx;
    c.algo = algorithm::mmse;
    std::uniform_real_distribution<double> bins(-0.4, 0.4);
    gpumimo_test::sync_stream s = gpumimo_test::make_sync_stream(rng, c.frame, rx, frames, 22, bins(rng));
    std::uniform_int_distribution<std::size_t> where(0, s.samples.size() - 1);
    s.samples[where(rng)] = cf(NAN, 0);
    const std::size_t max_input = search_window(c.frame) + 5 * c.frame.samples(), max_frames = 6;
    const auto gpu = make_stream_receiver_engine(c, max_input, max_frames, "cuda");
    ASSERT_STREQ(gpu->backend(), "cuda");
    const auto cpu = make_cpu_stream_receiver_engine(c, max_input, max_frames);
    const std::uint64_t arrivals = rng();
    const stream_out want = run(*cpu, s, max_input, max_frames, arrivals);
    const stream_out got = run(*gpu, s, max_input, max_frames, arrivals);
    ASSERT_EQ(got.consumed, want.consumed) << preset;
    ASSERT_EQ(got.starts, want.starts) << preset;
    ASSERT_EQ(got.usable, want.usable) << preset;
    ASSERT_EQ(got.llr.size(), want.llr.size());
    EXPECT_GE(want.starts.size(), std::size_t(frames - 1));
    const std::size_t per_vector = std::size_t(streams) * constellation(mod).bits_per_symbol();
    std::size_t far = 0;
    float worst = 0;
    for (std::size_t i = 0; i < want.llr.size(); i++) {
        ASSERT_TRUE(std::isfinite(got.llr[i])) << i;
        const float e = std::abs(got.llr[i] - want.llr[i]) / gpumimo_test::vector_scale(want.llr, i, per_vector);
        far += e > 1e-3f;
        worst = std::max(worst, e);
    }
    std::cout << preset << ": " << want.starts.size() << " frames in " << want.consumed.size()
              << " calls, worst LLR difference " << worst << " of its vector's size\n";
    EXPECT_EQ(far, 0u);

    // Page-locked input and output: copied in place instead of staged, the same results
    // (to the last bits that the smoother's shared-memory double sums, whose order
    // varies from run to run, may round differently).
    const auto gpu_locked = make_stream_receiver_engine(c, max_input, max_frames, "cuda");
    const stream_out locked = run(*gpu_locked, s, max_input, max_frames, arrivals, true);
    ASSERT_EQ(locked.consumed, got.consumed) << preset;
    ASSERT_EQ(locked.starts, got.starts) << preset;
    ASSERT_EQ(locked.llr.size(), got.llr.size());
    for (std::size_t i = 0; i < got.llr.size(); i++)
        ASSERT_LE(std::abs(locked.llr[i] - got.llr[i]), 1e-5f * gpumimo_test::vector_scale(got.llr, i, per_vector))
            << preset << " LLR " << i << ": " << locked.llr[i] << " against " << got.llr[i];
}

} // namespace

TEST_F(Gpu, StreamReceiverEqualsTheCpuEngineSmall)
{
    expect_same_as_cpu("small", 2, modulation::qpsk, 4, 10, 2401);
}

TEST_F(Gpu, StreamReceiverEqualsTheCpuEngineLte20)
{
    expect_same_as_cpu("lte20", 4, modulation::qam16, 4, 5, 2402);
}
