/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * psd promises exact ML: its hard decisions must equal exhaustive ml's on every problem,
 * with the paper's parameter sets, the default rule and any valid set.
 */
#include "detect/reference.h"
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/cancel.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace gpumimo_test;
namespace ref = gr::gpumimo::core::ref;

namespace {

// Problems at SNRs spread evenly over 0..30 dB, in chunks of one SNR each.
void expect_psd_equals_ml(std::mt19937_64& rng,
                          modulation mod,
                          int nt,
                          int nr,
                          std::size_t count,
                          const detector_params& params = detector_params())
{
    const constellation c(mod);
    const cpu_detector ml(algorithm::ml, mod, nt, nr);
    const cpu_detector psd(algorithm::psd, mod, nt, nr, params);
    const int nsnr = 7;
    std::size_t checked = 0, differ = 0;
    // A vector whose search ran out of its budget (max_nodes; rare at the default) may
    // differ from ML: the differences may not outnumber them.
    for (int s = 0; s < nsnr; s++) {
        const double snr = 30.0 * s / (nsnr - 1);
        const std::size_t n = count * (s + 1) / nsnr - count * s / nsnr;
        const problems p = make_problems(rng, c, nt, nr, n, snr, 1);
        const std::vector<float> a = run_detector(psd, p);
        const std::vector<float> b = run_detector(ml, p);
        const std::size_t bits = psd.bits_per_vector();
        for (std::size_t v = 0; v < n; v++) {
            bool same = true;
            for (std::size_t k = 0; k < bits; k++)
                same &= (a[v * bits + k] > 0) == (b[v * bits + k] > 0);
            if (!same && differ++ < 3)
                std::cout << "psd differs from ml: " << nt << "x" << nr << " "
                              << to_string(mod) << " at " << snr << " dB, vector " << v << "\n";
            checked++;
        }
    }
    EXPECT_LE(differ, psd.search_budget_hits());
    if (psd.search_budget_hits())
        std::cout << psd.search_budget_hits() << " of " << count << " vectors ran out of the budget, "
                  << differ << " differ from ML\n";
    EXPECT_EQ(checked, count);
}

} // namespace

TEST(Psd, EqualsMlOn2000ProblemsPerSmallConfiguration)
{
    auto rng = make_rng(41);
    for (int nt : { 2, 4 })
        for (modulation mod : { modulation::qpsk, modulation::qam16 })
            expect_psd_equals_ml(rng, mod, nt, nt, 2000);
}

TEST(Psd, EqualsMlOn4x4Qam64)
{
    auto rng = make_rng(42);
    expect_psd_equals_ml(rng, modulation::qam64, 4, 4, 21);
}

TEST(Psd, EqualsMlWithDefaultRuleOutsideThePapersTable)
{
    auto rng = make_rng(43);
    expect_psd_equals_ml(rng, modulation::qam16, 3, 3, 300);
    expect_psd_equals_ml(rng, modulation::qam256, 2, 2, 30);
    expect_psd_equals_ml(rng, modulation::qam1024, 2, 2, 8);
    expect_psd_equals_ml(rng, modulation::qpsk, 6, 6, 100);
    expect_psd_equals_ml(rng, modulation::qam16, 2, 5, 300);
    expect_psd_equals_ml(rng, modulation::qpsk, 1, 1, 100);
}

TEST(Psd, EqualsMlWithRandomValidLevelSets)
{
    auto rng = make_rng(44);
    for (int trial = 0; trial < 30; trial++) {
        const int nt = 2 + trial % 3;
        const modulation mod = trial % 2 ? modulation::qpsk : modulation::qam16;
        const int npam = constellation(mod).pam_size();
        const int n = 2 * nt;
        // Random strictly decreasing levels from n+1 to 1, steps of 1..3.
        detector_params params;
        params.psd.lvl = { n + 1 };
        while (params.psd.lvl.back() > 1) {
            const int step = 1 + int(rng() % 3);
            params.psd.lvl.push_back(std::max(1, params.psd.lvl.back() - step));
        }
        params.psd.exp = { 1 };
        for (std::size_t x = 1; x + 1 < params.psd.lvl.size(); x++) {
            const double eval =
                params.psd.exp[x - 1] *
                std::pow(double(npam), params.psd.lvl[x - 1] - params.psd.lvl[x]);
            params.psd.exp.push_back(
                1 + int(rng() % std::min<std::uint64_t>(8, std::uint64_t(eval))));
        }
        SCOPED_TRACE("trial " + std::to_string(trial));
        expect_psd_equals_ml(rng, mod, nt, nt, 70, params);
    }
}

TEST(Psd, DefaultLevelsAreValidEverywhere)
{
    for (int nt = 1; nt <= max_nt; nt++)
        for (modulation mod : { modulation::qpsk,
                                modulation::qam16,
                                modulation::qam64,
                                modulation::qam256,
                                modulation::qam1024 }) {
            std::vector<int> lvl, exp;
            psd_default_levels(nt, mod, lvl, exp);
            EXPECT_NO_THROW(ref::psd_check_levels(nt, mod, lvl, exp))
                << nt << " " << to_string(mod);
        }
    // The paper's Table 5, configuration 4x4 |Omega| = 4.
    std::vector<int> lvl, exp;
    psd_default_levels(4, modulation::qam16, lvl, exp);
    EXPECT_EQ(lvl, (std::vector<int>{ 9, 6, 4, 1 }));
    EXPECT_EQ(exp, (std::vector<int>{ 1, 4, 1 }));
}

TEST(Psd, RejectsInvalidLevelSets)
{
    auto make = [](std::vector<int> lvl, std::vector<int> exp) {
        detector_params p;
        p.psd.lvl = std::move(lvl);
        p.psd.exp = std::move(exp);
        return cpu_detector(algorithm::psd, modulation::qam16, 2, 2, p);
    };
    EXPECT_NO_THROW(make({ 5, 3, 1 }, { 1, 2 }));
    EXPECT_THROW(make({ 4, 3, 1 }, { 1, 2 }), std::invalid_argument); // lvl_0 != 2nt+1
    EXPECT_THROW(make({ 5, 3, 2 }, { 1, 2 }), std::invalid_argument); // does not end at 1
    EXPECT_THROW(make({ 5, 3, 3, 1 }, { 1, 2, 2 }),
                 std::invalid_argument);                              // not decreasing
    EXPECT_THROW(make({ 5, 3, 1 }, { 1 }), std::invalid_argument);    // exp count
    EXPECT_THROW(make({ 5, 3, 1 }, { 2, 2 }), std::invalid_argument); // exp_0 != 1
    EXPECT_THROW(make({ 5, 3, 1 }, { 1, 17 }),
                 std::invalid_argument); // exp_1 > eval_1 = 16
    EXPECT_THROW(make({ 5, 3, 1 }, { 1, 0 }), std::invalid_argument);
    EXPECT_THROW(make({ 5, 1 }, {}), std::invalid_argument);
}

// The search budget (psd_params::max_nodes). Vector by vector (a call each, so that the
// counter tells which ran out): where the search kept within its budget the decision is
// ML's; where it ran out, the count says so; LLRs are +-list_llr_clip either way. 4x4
// 16-QAM at 0 dB
// with 300 nodes runs out on some vectors and not on others; with the default budget on
// none. 8x8 1024-QAM at 0 dB (minutes for 4 vectors without a budget) returns, most of
// its vectors counted.
TEST(Psd, ASearchKeepsToItsBudget)
{
    auto rng = make_rng(48);
    const constellation c(modulation::qam16);
    const cpu_detector ml(algorithm::ml, modulation::qam16, 4, 4);
    for (const std::int64_t budget : { std::int64_t(300), detector_params().psd.max_nodes }) {
        detector_params params;
        params.psd.max_nodes = budget;
        const cpu_detector psd(algorithm::psd, modulation::qam16, 4, 4, params);
        std::size_t ran_out = 0, kept = 0;
        for (int v = 0; v < 200; v++) {
            const problems p = make_problems(rng, c, 4, 4, 1, 0.0, 1);
            const std::uint64_t before = psd.search_budget_hits();
            const std::vector<float> a = run_detector(psd, p), b = run_detector(ml, p);
            const bool hit = psd.search_budget_hits() - before == 1;
            ASSERT_LE(psd.search_budget_hits() - before, 1u);
            bool same = true;
            for (std::size_t k = 0; k < a.size(); k++) {
                ASSERT_EQ(std::fabs(a[k]), params.list_llr_clip) << "vector " << v;
                same &= (a[k] > 0) == (b[k] > 0);
            }
            if (hit)
                ran_out++;
            else {
                kept++;
                EXPECT_TRUE(same) << "budget " << budget << ", vector " << v << ": kept to it, not ML";
            }
        }
        std::cout << "budget " << budget << ": " << ran_out << " of 200 vectors ran out\n";
        if (budget == 300)
            EXPECT_GT(ran_out, 0u);
        else
            EXPECT_EQ(ran_out, 0u);
        EXPECT_GT(kept, 0u);
    }
    const constellation big(modulation::qam1024);
    const cpu_detector psd(algorithm::psd, modulation::qam1024, 8, 8);
    const problems p = make_problems(rng, big, 8, 8, 16, 0.0, 1);
    const std::vector<float> llr = run_detector(psd, p);
    // Most reach the budget (3 or 4 of every 4 seen); a few finish below it.
    std::cout << "8x8 1024-QAM at 0 dB: " << psd.search_budget_hits() << " of 16 vectors ran out\n";
    EXPECT_GE(psd.search_budget_hits(), 4u);
    EXPECT_LE(psd.search_budget_hits(), 16u);
    for (const float x : llr)
        ASSERT_EQ(std::fabs(x), detector_params().list_llr_clip);
    // Out of range: refused, naming the parameter.
    detector_params none;
    none.psd.max_nodes = 0;
    EXPECT_THROW(check_detector(algorithm::psd, c, 4, 4, none), std::invalid_argument);
}

namespace {
std::atomic<bool> g_stop_asked{ false };
bool stop_asked() { return g_stop_asked.load(); }
} // namespace

// A caller's cancel check (core/cancel.h, what the blocks set in work() for GNU Radio's
// stop()): 8x8 1024-QAM at 0 dB, 64 vectors with a budget of 2^36 nodes each (hours),
// asked to stop 200 ms in: detect() returns at once, every LLR finite, the vectors not
// reached erased (0), and without the request nothing is cancelled (the first call).
TEST(Psd, ACancelledSearchReturnsAtOnce)
{
    auto rng = make_rng(49);
    const constellation big(modulation::qam1024);
    detector_params params;
    params.psd.max_nodes = std::int64_t(1) << 36;
    const cpu_detector psd(algorithm::psd, modulation::qam1024, 8, 8, params);
    const problems p = make_problems(rng, big, 8, 8, 64, 0.0, 1);
    const cancel_scope scope(&stop_asked);
    g_stop_asked = false;
    std::thread asker([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        g_stop_asked = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<float> llr(p.batch * std::size_t(psd.bits_per_vector()), NAN);
    psd.detect(p.view(), llr.data(), 2);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    asker.join();
    std::size_t zeros = 0;
    for (const float x : llr) {
        ASSERT_TRUE(std::isfinite(x));
        zeros += x == 0.0f;
    }
    std::cout << "returned " << took << " s after the call, " << zeros / std::size_t(psd.bits_per_vector())
              << " of 64 vectors erased\n";
    EXPECT_LT(took, 5.0); // the request came at 0.2 s; hours otherwise
    EXPECT_GT(zeros, 0u);
    EXPECT_EQ(psd.search_budget_hits(), 0u); // a stop is not a budget reached
}
