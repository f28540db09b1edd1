/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The least-squares guard (apsm_guard.h): its decision user by user on trainers and
 * detectors whose held-out output the test sets, when it stays out, and the guarded
 * training of the CPU engine against apsm_train_guarded on fresh random channels.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

constexpr int M = 4, K = 2;

struct pilots_link {
    std::vector<cf> rx;   // n x M
    std::vector<cf> sent; // K x n, user-major
};

// y = H b + noise: K QPSK users, M antennas, Rayleigh H.
pilots_link random_link(std::mt19937_64& rng, std::size_t n, float noise_std)
{
    const constellation c(modulation::qpsk);
    std::normal_distribution<float> g(0.0f, std::sqrt(0.5f));
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    std::vector<cf> h(M * K);
    for (auto& v : h)
        v = { g(rng), g(rng) };
    pilots_link l;
    l.sent.resize(K * n);
    for (auto& s : l.sent)
        s = cf(c.point(pick(rng)));
    l.rx.resize(n * M);
    for (std::size_t t = 0; t < n; t++)
        for (int m = 0; m < M; m++) {
            cf acc = { noise_std * g(rng), noise_std * g(rng) };
            for (int k = 0; k < K; k++)
                acc += h[m * K + k] * l.sent[k * n + t];
            l.rx[t * M + m] = acc;
        }
    return l;
}

} // namespace

TEST(ApsmGuard, LeastSquaresReplacesAUserWhoseHeldOutSymbolsItMatchesBetter)
{
    // The trainer's filters are stand-ins; the detector gives user 0 the held-out
    // symbols exactly (APSM stays) and user 1 zeros (mean squared error 1: least
    // squares on a 4-antenna channel at 20 dB does far better and replaces it).
    auto rng = make_rng(910);
    const std::size_t n = 200;
    const pilots_link l = random_link(rng, n, 0.1f);
    const std::size_t held = n / 4, fit = n - held;
    // A stand-in APSM filter with a dictionary, an input scale and weights, which the
    // least-squares filter must take the shape of.
    apsm_filter stand_in;
    stand_in.antennas = M;
    stand_in.input_scale = 2.0;
    stand_in.linear_weight = 0.5;
    stand_in.gaussian_weight = 1.0;
    stand_in.variance = 0.1;
    stand_in.lin.assign(2 * M, 0.3);
    std::normal_distribution<float> g;
    for (int i = 0; i < 3 * 2 * M; i++)
        stand_in.dict.push_back(g(rng));
    stand_in.gauss = { 0.5, -0.2, 0.1 };
    stand_in.noise_variance = 0.5;
    std::vector<apsm_filter> filters(K, stand_in);
    std::size_t trained_on = 0;
    const apsm_trainer train = [&](const cf* r, std::size_t m, const cf* s) {
        trained_on = m;
        EXPECT_EQ(r, l.rx.data());
        for (int u = 0; u < K; u++) // the fitted pilots of each user, user-major
            for (std::size_t t = 0; t < m; t++)
                EXPECT_EQ(s[u * m + t], l.sent[u * n + t]);
        return std::vector<apsm_filter>(K, stand_in);
    };
    const apsm_detector_fn detect = [&](const std::vector<apsm_filter>& f, const cf* r,
                                        std::size_t m, cf* soft) {
        EXPECT_EQ(f.size(), std::size_t(K));
        EXPECT_EQ(r, l.rx.data() + fit * M);
        EXPECT_EQ(m, held);
        for (std::size_t t = 0; t < m; t++) {
            soft[t] = l.sent[0 * n + fit + t];
            soft[m + t] = 0;
        }
    };
    apsm_params p;
    const apsm_guard_report r =
        guard_with_least_squares(p, l.rx.data(), n, M, K, l.sent.data(), filters, train, detect);
    EXPECT_EQ(trained_on, fit);
    EXPECT_EQ(r.fitted, fit);
    EXPECT_EQ(r.held_out, held);
    ASSERT_EQ(r.least_squares.size(), std::size_t(K));
    EXPECT_FALSE(r.least_squares[0]);
    EXPECT_TRUE(r.least_squares[1]);
    EXPECT_EQ(r.apsm_mse[0], 0.0);
    EXPECT_NEAR(r.apsm_mse[1], 1.0, 1e-6); // unit-energy QPSK against zeros
    EXPECT_LT(r.ls_mse[1], 0.1);
    EXPECT_EQ(filters[0].gauss, stand_in.gauss); // untouched
    EXPECT_EQ(filters[0].noise_variance, 0.5);
    // User 1's filter is least squares of all n pilots in the stand-in's shape: its
    // dictionary, scale and weights kept (the GPU detector takes the users' filters
    // only from one training), the Gaussian part zero, the same soft symbols as
    // ls_train's filter.
    const apsm_filter want = ls_train(l.rx.data(), n, M, l.sent.data() + n);
    EXPECT_EQ(filters[1].dict, stand_in.dict);
    EXPECT_EQ(filters[1].input_scale, stand_in.input_scale);
    EXPECT_EQ(filters[1].linear_weight, stand_in.linear_weight);
    EXPECT_EQ(filters[1].gauss, std::vector<double>(3, 0.0));
    EXPECT_EQ(filters[1].noise_variance, want.noise_variance);
    std::vector<cf> got_soft(n), want_soft(n);
    apsm_detect(filters[1], l.rx.data(), n, got_soft.data());
    apsm_detect(want, l.rx.data(), n, want_soft.data());
    for (std::size_t t = 0; t < n; t++)
        EXPECT_NEAR(std::abs(got_soft[t] - want_soft[t]), 0.0, 1e-5) << "symbol " << t;
}

TEST(ApsmGuard, StaysOutWhenOffWithoutALinearPartTooFewPilotsOrLeastSquaresIsSingular)
{
    auto rng = make_rng(911);
    int trainings = 0;
    const apsm_trainer train = [&](const cf*, std::size_t, const cf*) {
        trainings++;
        return std::vector<apsm_filter>(K);
    };
    const apsm_detector_fn zeros = [](const std::vector<apsm_filter>&, const cf*,
                                      std::size_t m, cf* soft) {
        std::fill(soft, soft + K * m, cf(0));
    };
    apsm_filter stand_in;
    stand_in.noise_variance = 0.25;
    for (const std::size_t n : { std::size_t(15), std::size_t(200) }) {
        const pilots_link l = random_link(rng, n, 0.1f);
        apsm_params off;
        off.ls_guard = false;
        std::vector<apsm_filter> filters(K, stand_in);
        const apsm_guard_report r = guard_with_least_squares(
            n < 16 ? apsm_params{} : off, l.rx.data(), n, M, K, l.sent.data(), filters, train, zeros);
        EXPECT_TRUE(r.least_squares.empty()) << n;
        EXPECT_EQ(r.held_out, 0u);
        EXPECT_EQ(filters[1].noise_variance, 0.25);
    }
    // No linear part to carry least squares (linear weight 0): the guard stays out.
    {
        const pilots_link l = random_link(rng, 200, 0.1f);
        apsm_params no_linear;
        no_linear.linear_weight = 0;
        std::vector<apsm_filter> filters(K, stand_in);
        const apsm_guard_report r = guard_with_least_squares(
            no_linear, l.rx.data(), 200, M, K, l.sent.data(), filters, train, zeros);
        EXPECT_TRUE(r.least_squares.empty());
    }
    EXPECT_EQ(trainings, 0);
    // 16 pilots on 16 antennas: the 12 fitted cannot give least squares (singular), so
    // APSM stays even though its held-out output is all zeros.
    const int wide = 16;
    std::vector<cf> rx(16 * wide), sent(K * 16, cf(1, 0));
    std::normal_distribution<float> g;
    for (auto& v : rx)
        v = { g(rng), g(rng) };
    std::vector<apsm_filter> filters(K, stand_in);
    const apsm_guard_report r = guard_with_least_squares(apsm_params{}, rx.data(), 16, wide, K,
                                                         sent.data(), filters, train, zeros);
    EXPECT_EQ(r.held_out, 0u); // fewer fitted pilots than antennas: not run at all
    EXPECT_EQ(filters[0].noise_variance, 0.25);
}

TEST(ApsmGuard, TheCpuEngineTrainsAsApsmTrainGuarded)
{
    // make_apsm_engine("cpu") applies the guard through its own training and detection:
    // the same filters as apsm_train_guarded, and detect() keeps the filters set before
    // the training (the guard's held-out detection does not leave its own behind).
    auto rng = make_rng(912);
    const std::size_t n = 240, n_data = 64;
    const pilots_link l = random_link(rng, n + n_data, 0.3f);
    std::vector<cf> sent(K * n);
    for (int u = 0; u < K; u++)
        std::copy(&l.sent[u * (n + n_data)], &l.sent[u * (n + n_data)] + n, &sent[u * n]);
    apsm_engine_config c;
    c.antennas = M;
    c.users = K;
    c.max_training = n;
    c.max_symbols = 16; // the held-out quarter (60) goes through detect() in pieces
    auto engine = make_apsm_engine(c, "cpu");
    apsm_guard_report report;
    const std::vector<apsm_filter> want =
        apsm_train_guarded(c.params, l.rx.data(), n, M, K, sent.data(), &report);
    EXPECT_EQ(report.held_out, n / 4);
    std::vector<apsm_filter> got;
    engine->train(l.rx.data(), n, sent.data(), got);
    ASSERT_EQ(got.size(), want.size());
    for (int u = 0; u < K; u++) {
        EXPECT_EQ(got[u].lin, want[u].lin) << "user " << u;
        EXPECT_EQ(got[u].gauss, want[u].gauss) << "user " << u;
    }
    // Detection with filters set before a later training: unchanged by that training.
    engine->set_filters(got);
    std::vector<cf> before(K * n_data), after(K * n_data);
    const cf* data = l.rx.data() + n * M;
    engine->detect(data, 16, before.data());
    std::vector<apsm_filter> again;
    engine->train(l.rx.data() + 8 * M, n - 8, sent.data(), again); // other pilots
    engine->detect(data, 16, after.data());
    EXPECT_EQ(before, after);
}
