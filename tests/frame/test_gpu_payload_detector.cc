/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GPU payload detector (mimo_detector's GPU engine) held to the host engine over the
 * CPU reference (test_payload_detector holds that one to each vector detected alone) on
 * fresh random runs: 1x1 to 4x4, runs of 1 symbol up to longer than one device chunk
 * (144 symbols), the output pageable and page-locked (copied by DMA in place, as into a
 * block's registered stream buffer); the same erasures; a vector beyond its model
 * refused as on the CPU; many runs in one call (detect_runs: one wait for up to 16
 * runs whose estimates lie in host memory, up to 144 with them on the device, their
 * channels selected in one launch; runs of equal length detected together in one
 * chunk) as each run alone on the CPU, carriers in device or page-locked memory, the
 * run the detector refuses told apart from the others, and a tracked frame's runs of one
 * symbol each. Float32 against float64: within
 * 1e-3 of the largest LLR of the vector, widened by the carrier's Gram condition number
 * (zf and mmse invert it in float32: a random channel now and then is near singular).
 * Outputs are poisoned before each call.
 */
#include "common/conditioning.h"
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "frame/payload_runs.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/device_bytes.h>
#include <gnuradio/gpumimo/core/frame/payload_detector.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

using namespace gr::gpumimo::core;
using gpumimo_test::make_random_run;
using gpumimo_test::make_rng;
using gpumimo_test::random_run;

namespace {

payload_detector_config config_for(const numerology& num, algorithm algo, modulation mod, int nt, int nr)
{
    payload_detector_config c;
    c.num = num;
    c.detector.spec = detector_spec(algo);
    c.detector.mod = mod;
    c.detector.nt = nt;
    c.detector.nr = nr;
    return c;
}

// The tolerance's relative part for the LLRs of used carrier u: 1e-3, plus the rounding
// of a float32 inverse of its Gram matrix (16 nt eps kappa).
double relative_tolerance(const random_run& r, std::size_t u)
{
    const double kappa = gpumimo_test::gram_condition(&r.h[u * std::size_t(r.nr * r.nt)], r.nt, r.nr);
    return 1e-3 + 16.0 * r.nt * FLT_EPSILON * kappa;
}

float vector_scale(const std::vector<float>& ref, std::size_t i, std::size_t bits)
{
    const std::size_t first = i / bits * bits;
    float scale = 1.0f;
    for (std::size_t b = first; b < first + bits; b++)
        scale = std::max(scale, std::abs(ref[b]));
    return scale;
}

} // namespace

class GpuPayloadDetector : public Gpu
{
};

TEST_F(GpuPayloadDetector, MatchesTheHostEngine)
{
    auto rng = make_rng(311);
    struct shape {
        const char* preset;
        algorithm algo;
        modulation mod;
        int nt, nr;
        std::size_t symbols;
        bool page_locked;
    };
    for (const shape& t : { shape{ "small", algorithm::mmse, modulation::qpsk, 1, 1, 1, false },
                            shape{ "small", algorithm::mmse, modulation::qam16, 2, 4, 9, true },
                            shape{ "lte20", algorithm::mmse, modulation::qam16, 4, 4, 9, true },
                            shape{ "lte20", algorithm::zf, modulation::qam64, 4, 4, 3, false },
                            shape{ "fft512", algorithm::mmse, modulation::qam16, 4, 4, 150, false },
                            shape{ "fft512", algorithm::mmse, modulation::qpsk, 3, 4, 65, true } }) {
        SCOPED_TRACE(std::string(t.preset) + " " + to_string(t.algo) + " " +
                     std::to_string(t.nt) + "x" + std::to_string(t.nr) + ", " +
                     std::to_string(t.symbols) + " symbols" + (t.page_locked ? ", page-locked" : ""));
        const numerology num = numerology_preset(t.preset);
        const payload_detector_config c = config_for(num, t.algo, t.mod, t.nt, t.nr);
        const auto cpu = make_payload_detector(c, "cpu");
        const auto gpu = make_payload_detector(c, "cuda");
        ASSERT_STREQ(gpu->backend(), "cuda");
        ASSERT_EQ(gpu->llrs_per_symbol(), cpu->llrs_per_symbol());
        random_run r = make_random_run(rng, num, t.mod, t.nt, t.nr, t.symbols, 18.0);
        // One symbol erased (a NaN on a data carrier), when the run has a second.
        if (t.symbols > 1)
            r.carriers[std::size_t(t.nr - 1)][1 * r.used + std::size_t(data_carriers(num).back())] =
                cf32(0, std::nanf(""));
        const std::size_t n = t.symbols * cpu->llrs_per_symbol();
        std::vector<float> ref(n, std::nanf("")), llr(n, std::nanf(""));
        std::vector<std::uint8_t> ref_erased(t.symbols, 7), erased(t.symbols, 7);
        std::vector<host_registration> locks;
        if (t.page_locked) {
            locks.emplace_back(llr.data(), llr.size() * sizeof(float));
            for (std::size_t a = 0; a < r.carriers.size(); a++)
                locks.emplace_back(r.carriers[a].data(), r.carriers[a].size() * sizeof(cf32));
            for (const host_registration& l : locks)
                ASSERT_TRUE(l.pinned());
        }
        const std::size_t want = cpu->detect(r.view(), ref.data(), ref_erased.data());
        EXPECT_EQ(want, t.symbols > 1 ? 1u : 0u);
        EXPECT_EQ(gpu->detect(r.view(), llr.data(), erased.data()), want);
        EXPECT_EQ(erased, ref_erased);
        const std::vector<int> carriers = data_carriers(num);
        const std::size_t per_vector = cpu->llrs_per_symbol() / carriers.size();
        double norm = 0;
        for (std::size_t i = 0; i < n; i++) {
            const std::size_t u = std::size_t(carriers[i / per_vector % carriers.size()]);
            ASSERT_NEAR(llr[i], ref[i], relative_tolerance(r, u) * vector_scale(ref, i, per_vector))
                << "LLR " << i << " (used carrier " << u << ")";
            norm += std::fabs(ref[i]);
        }
        EXPECT_GT(norm, 0);
        EXPECT_STREQ(gpu->backend(), "cuda"); // no fallback happened
    }
}

TEST_F(GpuPayloadDetector, RefusesAVectorBeyondItsModelAsTheCpuDoes)
{
    auto rng = make_rng(312);
    const numerology num = numerology_preset("small");
    const payload_detector_config c = config_for(num, algorithm::mmse, modulation::qpsk, 2, 2);
    const auto gpu = make_payload_detector(c, "cuda");
    random_run r = make_random_run(rng, num, modulation::qpsk, 2, 2, 3, 15.0);
    r.carriers[0][2 * r.used + std::size_t(data_carriers(num)[0])] = cf32(1e6f, 0);
    std::vector<float> llr(3 * gpu->llrs_per_symbol());
    std::vector<std::uint8_t> erased(3);
    EXPECT_THROW(gpu->detect(r.view(), llr.data(), erased.data()), std::invalid_argument);
    EXPECT_STREQ(gpu->backend(), "cuda"); // bad input is not a GPU failure
    // The engine goes on: the next clean run is detected.
    random_run clean = make_random_run(rng, num, modulation::qpsk, 2, 2, 3, 15.0);
    std::vector<float> ref(llr.size());
    make_payload_detector(c, "cpu")->detect(clean.view(), ref.data(), erased.data());
    std::fill(llr.begin(), llr.end(), std::nanf(""));
    gpu->detect(clean.view(), llr.data(), erased.data());
    for (std::size_t i = 0; i < llr.size(); i++)
        ASSERT_NEAR(llr[i], ref[i], 1e-3f * vector_scale(ref, i, gpu->llrs_per_symbol() / data_carriers(num).size()));
}

// mimo_detector's call: a run a frame, each with its own estimate, carriers where a
// device-resident stream buffer (or a page-locked one) holds them, LLRs into a
// page-locked output: 21 runs (two waits of at most 16), most of 9 symbols (detected
// several to a chunk), one of 150 symbols (two chunks of its own), one of 5 and one of
// none (each ends a chunk of 9-symbol runs), one with an erased symbol, one the
// detector refuses.
TEST_F(GpuPayloadDetector, RunsTogetherEqualRunsAloneOnTheCpu)
{
    auto rng = make_rng(313);
    const numerology num = numerology_preset("lte20");
    const payload_detector_config c = config_for(num, algorithm::mmse, modulation::qam16, 4, 4);
    const auto cpu = make_payload_detector(c, "cpu");
    const auto gpu = make_payload_detector(c, "cuda");
    const std::size_t per = cpu->llrs_per_symbol(), nruns = 21;
    std::vector<random_run> runs;
    std::size_t total = 0;
    for (std::size_t i = 0; i < nruns; i++) {
        const std::size_t symbols = i == 5 ? 150 : i == 9 ? 5 : i == 11 ? 0 : 9;
        runs.push_back(make_random_run(rng, num, modulation::qam16, 4, 4, symbols, 18.0));
        total += runs.back().symbols;
    }
    runs[2].carriers[1][4 * runs[2].used + std::size_t(data_carriers(num)[7])] = cf32(0, NAN);
    runs[17].carriers[3][1 * runs[17].used + std::size_t(data_carriers(num)[0])] = cf32(1e6f, 0);
    // The runs back to back per antenna, as in a stream buffer, but for 3 symbols of junk
    // before run 14 (a dropped frame's leftovers): runs 12 to 15 share a chunk whose
    // carriers then come in two copies per antenna.
    const std::size_t junk_before = 14, junk = 3;
    std::vector<std::vector<cf32>> stream(4);
    std::vector<std::size_t> pos(nruns); // run i's first symbol in the stream
    for (int a = 0; a < 4; a++)
        for (std::size_t i = 0; i < nruns; i++) {
            if (i == junk_before)
                stream[a].insert(stream[a].end(), junk * runs[i].used, cf32(7.0f, -7.0f));
            pos[i] = stream[a].size() / runs[i].used;
            stream[a].insert(stream[a].end(), runs[i].carriers[a].begin(), runs[i].carriers[a].end());
        }
    std::vector<float> want(total * per, NAN);
    std::vector<std::uint8_t> want_erased(total, 7), want_refused(nruns, 0);
    for (std::size_t i = 0, at = 0; i < nruns; at += runs[i].symbols, i++) {
        try {
            cpu->detect(runs[i].view(), want.data() + at * per, want_erased.data() + at);
        } catch (const std::invalid_argument&) {
            want_refused[i] = 1;
        }
    }
    ASSERT_EQ(std::count(want_refused.begin(), want_refused.end(), 1), 1);
    for (const bool on_device : { true, false }) {
        // On the device as in a chain of GPU blocks: the carriers, each run's H and
        // noise (mimo_chanest's estimate records) and the LLRs (for the LDPC decoder).
        SCOPED_TRACE(on_device ? "carriers, estimates and LLRs in device memory"
                               : "carriers and LLRs page-locked, estimates pageable");
        std::vector<device_bytes> dev;
        std::vector<host_registration> locks;
        std::vector<const cf32*> base(4);
        for (int a = 0; a < 4; a++) {
            const std::size_t bytes = stream[a].size() * sizeof(cf32);
            if (on_device) {
                dev.emplace_back(bytes, 0);
                copy_bytes(dev.back().get(), stream[a].data(), bytes);
                base[a] = reinterpret_cast<const cf32*>(dev.back().get());
            } else {
                locks.emplace_back(stream[a].data(), bytes);
                base[a] = stream[a].data();
            }
        }
        std::vector<float> llr(total * per, NAN); // poisoned
        device_bytes llr_dev;
        float* llr_out = llr.data();
        if (on_device) {
            llr_dev = device_bytes(llr.size() * sizeof(float), 0);
            copy_bytes(llr_dev.get(), llr.data(), llr.size() * sizeof(float)); // poisoned
            llr_out = reinterpret_cast<float*>(llr_dev.get());
        } else {
            locks.emplace_back(llr.data(), llr.size() * sizeof(float));
        }
        std::vector<std::uint8_t> erased(total, 7), refused(nruns, 7);
        std::vector<payload_run> views(nruns);
        std::vector<const cf32*> starts(nruns * 4);
        std::vector<float*> llr_at;
        std::vector<std::uint8_t*> erased_at;
        for (std::size_t i = 0, at = 0; i < nruns; at += runs[i].symbols, i++) {
            for (int a = 0; a < 4; a++)
                starts[i * 4 + a] = base[a] + pos[i] * runs[i].used;
            views[i] = runs[i].view();
            views[i].carriers = starts.data() + i * 4;
            if (on_device) {
                const std::size_t hb = runs[i].h.size() * sizeof(cf32),
                                  nb = runs[i].noise.size() * sizeof(float);
                dev.emplace_back(hb + nb, 0);
                copy_bytes(dev.back().get(), runs[i].h.data(), hb);
                copy_bytes(dev.back().get() + hb, runs[i].noise.data(), nb);
                views[i].h = reinterpret_cast<const cf32*>(dev.back().get());
                views[i].noise = reinterpret_cast<const float*>(dev.back().get() + hb);
            }
            llr_at.push_back(llr_out + at * per);
            erased_at.push_back(erased.data() + at);
        }
        std::string why;
        gpu->detect_runs(views.data(), nruns, llr_at.data(), erased_at.data(), refused.data(), &why);
        if (on_device)
            copy_bytes(llr.data(), llr_dev.get(), llr.size() * sizeof(float));
        EXPECT_EQ(refused, want_refused);
        EXPECT_FALSE(why.empty());
        for (std::size_t i = 0, at = 0; i < nruns; at += runs[i].symbols, i++) {
            if (want_refused[i])
                continue;
            SCOPED_TRACE("run " + std::to_string(i));
            for (std::size_t s = at; s < at + runs[i].symbols; s++)
                ASSERT_EQ(erased[s], want_erased[s]) << "symbol " << s;
            for (std::size_t k = at * per; k < (at + runs[i].symbols) * per; k++)
                ASSERT_NEAR(llr[k], want[k], 1e-3f * vector_scale(want, k, per / data_carriers(num).size()))
                    << "LLR " << k;
        }
        EXPECT_STREQ(gpu->backend(), "cuda"); // no fallback happened
    }
}

// Frames tracked in time (pilot blocks): mimo_detector's runs are a symbol each, every
// one with its own estimate record on the device. 200 one-symbol runs of 4x4 lte20
// (more than one wait holds: their channels selected in one launch a wait), carriers,
// records and LLRs in device memory, each run's LLRs as the CPU gives them alone.
TEST_F(GpuPayloadDetector, OneSymbolRunsOfTrackedFramesAsEachAloneOnTheCpu)
{
    auto rng = make_rng(317);
    const numerology num = numerology_preset("lte20");
    const payload_detector_config c = config_for(num, algorithm::mmse, modulation::qam16, 4, 4);
    const auto cpu = make_payload_detector(c, "cpu");
    const auto gpu = make_payload_detector(c, "cuda");
    const std::size_t per = cpu->llrs_per_symbol(), nruns = 200;
    std::vector<random_run> runs;
    for (std::size_t i = 0; i < nruns; i++)
        runs.push_back(make_random_run(rng, num, modulation::qam16, 4, 4, 1, 20.0));
    std::vector<float> want(nruns * per, NAN);
    std::vector<std::uint8_t> want_erased(nruns, 7);
    for (std::size_t i = 0; i < nruns; i++)
        cpu->detect(runs[i].view(), want.data() + i * per, want_erased.data() + i);
    // The carriers back to back per antenna (a stream buffer's), the records one after
    // another (the estimate stream's), all on the device.
    const std::size_t used = runs[0].used;
    std::vector<device_bytes> carriers;
    std::vector<const cf32*> base(4);
    for (int a = 0; a < 4; a++) {
        carriers.emplace_back(nruns * used * sizeof(cf32), 0);
        for (std::size_t i = 0; i < nruns; i++)
            copy_bytes(carriers.back().get() + i * used * sizeof(cf32), runs[i].carriers[a].data(),
                       used * sizeof(cf32));
        base[a] = reinterpret_cast<const cf32*>(carriers.back().get());
    }
    const std::size_t hb = runs[0].h.size() * sizeof(cf32), nb = runs[0].noise.size() * sizeof(float);
    device_bytes records(nruns * (hb + nb), 0);
    std::vector<float> llr(nruns * per, NAN); // poisoned, on the device too
    device_bytes llr_dev(llr.size() * sizeof(float), 0);
    copy_bytes(llr_dev.get(), llr.data(), llr.size() * sizeof(float));
    std::vector<payload_run> views(nruns);
    std::vector<const cf32*> starts(nruns * 4);
    std::vector<float*> llr_at(nruns);
    std::vector<std::uint8_t> erased(nruns, 7), refused(nruns, 7);
    std::vector<std::uint8_t*> erased_at(nruns);
    for (std::size_t i = 0; i < nruns; i++) {
        char* record = records.get() + i * (hb + nb);
        copy_bytes(record, runs[i].h.data(), hb);
        copy_bytes(record + hb, runs[i].noise.data(), nb);
        for (int a = 0; a < 4; a++)
            starts[i * 4 + a] = base[a] + i * used;
        views[i] = runs[i].view();
        views[i].carriers = starts.data() + i * 4;
        views[i].h = reinterpret_cast<const cf32*>(record);
        views[i].noise = reinterpret_cast<const float*>(record + hb);
        llr_at[i] = reinterpret_cast<float*>(llr_dev.get()) + i * per;
        erased_at[i] = erased.data() + i;
    }
    std::string why;
    gpu->detect_runs(views.data(), nruns, llr_at.data(), erased_at.data(), refused.data(), &why);
    copy_bytes(llr.data(), llr_dev.get(), llr.size() * sizeof(float));
    EXPECT_EQ(std::count(refused.begin(), refused.end(), 0), long(nruns)) << why;
    EXPECT_EQ(erased, want_erased);
    for (std::size_t k = 0; k < llr.size(); k++)
        ASSERT_NEAR(llr[k], want[k], 1e-3f * vector_scale(want, k, per / data_carriers(num).size()))
            << "LLR " << k << " (run " << k / per << ")";
    EXPECT_STREQ(gpu->backend(), "cuda");
}
