/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host payload detector (what mimo_detector runs on the CPU) held to an independent
 * reference on fresh random runs: each data carrier of each symbol detected alone by
 * the CPU detector (one vector, its carrier's H and N0), the LLRs expected at
 * [symbol][data carrier][bit]. Erasures: an unusable value on a data carrier erases its
 * symbol (zero LLRs, flagged), one on a tracking carrier does not; a vector beyond its
 * model is refused. Outputs are poisoned before each call.
 */
#include "common/test_util.h"
#include "frame/payload_runs.h"

#include <gnuradio/gpumimo/core/frame/payload_detector.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// Each (symbol, data carrier) detected alone: the reference the regrouping must equal.
std::vector<float> one_by_one(const numerology& num, const cpu_detector& det, const random_run& r)
{
    const std::vector<int> data = data_carriers(num);
    const std::size_t bits = std::size_t(det.bits_per_vector()), D = data.size();
    std::vector<float> llr(r.symbols * D * bits);
    const std::size_t m = std::size_t(r.nr) * r.nt;
    for (std::size_t s = 0; s < r.symbols; s++)
        for (std::size_t d = 0; d < D; d++) {
            const std::size_t c = std::size_t(data[d]);
            std::vector<cf32> y(std::size_t(r.nr));
            for (int a = 0; a < r.nr; a++)
                y[std::size_t(a)] = r.carriers[std::size_t(a)][s * r.used + c];
            mimo_batch b;
            b.y = y.data();
            b.h = r.h.data() + c * m;
            b.noise_var = &r.noise[c];
            b.batch = 1;
            b.nt = r.nt;
            b.nr = r.nr;
            det.detect(b, llr.data() + (s * D + d) * bits, 1);
        }
    return llr;
}

std::vector<float> poisoned(std::size_t n) { return std::vector<float>(n, std::nanf("")); }

} // namespace

TEST(PayloadDetector, EqualsEachVectorDetectedAlone)
{
    auto rng = make_rng(301);
    struct shape {
        const char* preset;
        algorithm algo;
        modulation mod;
        int nt, nr;
        std::size_t symbols;
    };
    for (const shape& t : { shape{ "small", algorithm::mmse, modulation::qam16, 2, 2, 5 },
                            shape{ "small", algorithm::mmse, modulation::qpsk, 2, 4, 1 },
                            shape{ "small", algorithm::ml, modulation::qpsk, 3, 3, 7 },
                            shape{ "fft512", algorithm::mtt, modulation::qam16, 4, 4, 3 } }) {
        SCOPED_TRACE(std::string(t.preset) + " " + to_string(t.algo));
        const numerology num = numerology_preset(t.preset);
        const auto engine =
            make_payload_detector(config_for(num, t.algo, t.mod, t.nt, t.nr), "cpu");
        EXPECT_STREQ(engine->backend(), "cpu");
        random_run r = make_random_run(rng, num, t.mod, t.nt, t.nr, t.symbols, 12.0);
        const cpu_detector det(t.algo, t.mod, t.nt, t.nr);
        ASSERT_EQ(engine->llrs_per_symbol(),
                  data_carriers(num).size() * std::size_t(det.bits_per_vector()));
        std::vector<float> llr = poisoned(t.symbols * engine->llrs_per_symbol());
        std::vector<std::uint8_t> erased(t.symbols, 7);
        EXPECT_EQ(engine->detect(r.view(), llr.data(), erased.data()), 0u);
        const std::vector<float> want = one_by_one(num, det, r);
        double norm = 0;
        for (std::size_t i = 0; i < want.size(); i++) {
            ASSERT_NEAR(llr[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << "LLR " << i;
            norm += std::fabs(want[i]);
        }
        EXPECT_GT(norm, 0); // not a run of zeros passing
        for (std::uint8_t e : erased)
            EXPECT_EQ(e, 0);
    }
}

TEST(PayloadDetector, ErasesSymbolsWithUnusableDataCarriers)
{
    auto rng = make_rng(302);
    const numerology num = numerology_preset("small");
    const int nt = 2, nr = 2;
    const auto engine =
        make_payload_detector(config_for(num, algorithm::mmse, modulation::qpsk, nt, nr), "cpu");
    random_run r = make_random_run(rng, num, modulation::qpsk, nt, nr, 6, 15.0);
    const std::size_t per = engine->llrs_per_symbol();
    std::vector<float> clean = poisoned(6 * per);
    std::vector<std::uint8_t> erased(6);
    engine->detect(r.view(), clean.data(), erased.data());
    // Symbol 1: NaN on a data carrier of antenna 1; symbol 3: Inf on a tracking carrier
    // (not detected, so not erased); symbol 4: a value beyond max_sample_magnitude.
    const std::vector<int> data = data_carriers(num), track = tracking_carriers(num);
    ASSERT_FALSE(track.empty());
    r.carriers[1][1 * r.used + std::size_t(data[data.size() / 2])] = cf32(std::nanf(""), 0);
    r.carriers[0][3 * r.used + std::size_t(track[0])] =
        cf32(std::numeric_limits<float>::infinity(), 0);
    r.carriers[0][4 * r.used + std::size_t(data[0])] = cf32(0, 2 * max_sample_magnitude);
    std::vector<float> llr = poisoned(6 * per);
    EXPECT_EQ(engine->detect(r.view(), llr.data(), erased.data()), 2u);
    for (std::size_t s = 0; s < 6; s++) {
        const bool gone = s == 1 || s == 4;
        EXPECT_EQ(erased[s], gone ? 1 : 0) << "symbol " << s;
        for (std::size_t i = 0; i < per; i++)
            ASSERT_EQ(llr[s * per + i], gone ? 0.0f : clean[s * per + i])
                << "symbol " << s << " LLR " << i;
    }
}

TEST(PayloadDetector, RefusesAVectorBeyondItsModel)
{
    auto rng = make_rng(303);
    const numerology num = numerology_preset("small");
    const auto engine =
        make_payload_detector(config_for(num, algorithm::mmse, modulation::qpsk, 2, 2), "cpu");
    random_run r = make_random_run(rng, num, modulation::qpsk, 2, 2, 3, 15.0);
    // Usable as a sample, but 1e10 times the power H and N0 allow (core/limits.h).
    r.carriers[0][2 * r.used + std::size_t(data_carriers(num)[0])] = cf32(1e6f, 0);
    std::vector<float> llr(3 * engine->llrs_per_symbol());
    std::vector<std::uint8_t> erased(3);
    EXPECT_THROW(engine->detect(r.view(), llr.data(), erased.data()), std::invalid_argument);
}

// Several runs in one call, each with its own channel: the LLRs and erasures of each
// run alone; the one run holding a vector beyond the model refused by itself, the others
// detected.
TEST(PayloadDetector, RunsTogetherEqualRunsAlone)
{
    auto rng = make_rng(304);
    const numerology num = numerology_preset("small");
    const auto engine =
        make_payload_detector(config_for(num, algorithm::mmse, modulation::qam16, 2, 3), "cpu");
    const std::size_t per = engine->llrs_per_symbol(), nruns = 5;
    std::vector<random_run> runs;
    for (std::size_t i = 0; i < nruns; i++)
        runs.push_back(make_random_run(rng, num, modulation::qam16, 2, 3, 2 + i, 20.0));
    runs[1].carriers[2][1 * runs[1].used + std::size_t(data_carriers(num)[3])] = cf32(NAN, 0);
    runs[3].carriers[0][0 * runs[3].used + std::size_t(data_carriers(num)[0])] = cf32(1e6f, 0);
    std::vector<payload_run> views;
    std::vector<std::vector<float>> llr, alone;
    std::vector<std::vector<std::uint8_t>> erased, alone_erased;
    std::vector<float*> llr_at;
    std::vector<std::uint8_t*> erased_at;
    for (random_run& r : runs) {
        views.push_back(r.view());
        llr.emplace_back(r.symbols * per, NAN);
        erased.emplace_back(r.symbols, 7);
        alone.emplace_back(r.symbols * per, NAN);
        alone_erased.emplace_back(r.symbols, 7);
    }
    for (std::size_t i = 0; i < nruns; i++) {
        llr_at.push_back(llr[i].data());
        erased_at.push_back(erased[i].data());
    }
    std::vector<std::uint8_t> refused(nruns, 7);
    std::string why;
    EXPECT_EQ(engine->detect_runs(views.data(), nruns, llr_at.data(), erased_at.data(), refused.data(), &why),
              1u); // run 1's NaN symbol
    EXPECT_FALSE(why.empty());
    for (std::size_t i = 0; i < nruns; i++) {
        SCOPED_TRACE("run " + std::to_string(i));
        EXPECT_EQ(refused[i], i == 3 ? 1 : 0);
        if (i == 3) {
            EXPECT_THROW(engine->detect(runs[i].view(), alone[i].data(), alone_erased[i].data()),
                         std::invalid_argument);
            continue;
        }
        engine->detect(runs[i].view(), alone[i].data(), alone_erased[i].data());
        EXPECT_EQ(erased[i], alone_erased[i]);
        for (std::size_t k = 0; k < llr[i].size(); k++)
            ASSERT_EQ(llr[i][k], alone[i][k]) << "LLR " << k;
    }
}

TEST(PayloadDetector, RefusesWrongShapes)
{
    const numerology num = numerology_preset("small");
    EXPECT_THROW(make_payload_detector(config_for(num, algorithm::mmse, modulation::qpsk, 3, 2), "cpu"),
                 std::invalid_argument);
    EXPECT_THROW(make_payload_detector(config_for(num, algorithm::mmse, modulation::qpsk, 2, 2), "gpu"),
                 std::invalid_argument);
}
