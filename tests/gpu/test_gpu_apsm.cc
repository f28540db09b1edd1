/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA APSM detection of all users at once against the CPU reference (apsm_detect
 * per user), on filters trained by the reference from fresh random mixtures and on the
 * over-the-air recordings.
 */
#include "gpu_test.h"
#include "test_util.h"

#include <gnuradio/gpumimo/core/apsm.h>
#include <gnuradio/gpumimo/core/apsm_recording.h>
#include <gnuradio/gpumimo/core/gpu_apsm.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

using GpuApsm = Gpu;

// The float error bound of one filter value: the reference sums in double, the GPU in
// float over up to ~2000 terms (the dictionary and the linear part) with a float exp;
// n * eps_float * (sum of |terms|) with n = 2000 is below 1.2e-4 of that sum.
double value_bound(const apsm_filter& f, const float* x)
{
    const int dim = 2 * f.antennas;
    double s = 0;
    for (int d = 0; d < dim; d++)
        s += std::abs(f.linear_weight * f.lin[d] * x[d]);
    for (double g : f.gauss)
        s += std::abs(f.gaussian_weight * g);
    return 1e-6 + 1.2e-4 * s;
}

// Compares the GPU's soft symbols with the reference's for every user and vector.
void compare(const std::vector<apsm_filter>& filters,
             const std::vector<cf>& rx,
             std::size_t n,
             const std::string& what)
{
    const int M = filters[0].antennas, K = int(filters.size());
    gpu_apsm_detector gpu(filters, n + 7);
    std::vector<cf> got(K * n, cf(std::numeric_limits<float>::quiet_NaN(), 12345.0f));
    gpu.detect(rx.data(), n, got.data());
    std::vector<cf> want(n);
    std::vector<float> x1(2 * M), x2(2 * M);
    for (int u = 0; u < K; u++) {
        apsm_detect(filters[u], rx.data(), n, want.data());
        for (std::size_t t = 0; t < n; t++) {
            apsm_real_pair(&rx[t * M], M, filters[u].input_scale, x1.data(), x2.data());
            const cf g = got[u * n + t];
            ASSERT_TRUE(std::isfinite(g.real()) && std::isfinite(g.imag()))
                << what << ": user " << u << " vector " << t << " not written";
            ASSERT_NEAR(g.real(), want[t].real(), value_bound(filters[u], x1.data()))
                << what << ": user " << u << " vector " << t;
            ASSERT_NEAR(g.imag(), want[t].imag(), value_bound(filters[u], x2.data()))
                << what << ": user " << u << " vector " << t;
        }
    }
}

} // namespace

TEST_F(GpuApsm, AllUsersEqualTheReferenceOnRandomMixtures)
{
    auto rng = make_rng(801);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const constellation c(modulation::qam16);
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    for (const auto& [M, K, n_train] : { std::tuple<int, int, int>(16, 6, 211),
                                         { 4, 2, 57 }, { 7, 8, 120 }, { 1, 1, 30 } }) {
        const std::size_t n = 1009; // prime, not a multiple of the block
        std::vector<cf> rx((n_train + n) * M);
        for (auto& v : rx)
            v = { g(rng), g(rng) };
        for (const apsm_params& p : { apsm_params::library_defaults(), apsm_params() }) {
            std::vector<apsm_filter> filters;
            for (int u = 0; u < K; u++) {
                std::vector<cf> sent(n_train);
                for (auto& s : sent)
                    s = cf(c.point(pick(rng)));
                filters.push_back(apsm_train(p, rx.data(), n_train, M, sent.data()));
            }
            const std::vector<cf> data(rx.begin() + n_train * M, rx.end());
            const std::string what = std::to_string(M) + " antennas, " + std::to_string(K) +
                                     " users, " + (p.ls_init ? "defaults" : "library defaults");
            compare(filters, data, n, what);
            compare(filters, data, 1, what + ", one vector");
        }
    }
}

TEST_F(GpuApsm, NonFiniteVectorsGiveNaNAndOthersStayExact)
{
    auto rng = make_rng(802);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const int M = 8, n_train = 60;
    std::vector<cf> rx(n_train * M), sent(n_train);
    for (auto& v : rx)
        v = { g(rng), g(rng) };
    for (auto& s : sent)
        s = { g(rng) > 0 ? 0.7071f : -0.7071f, g(rng) > 0 ? 0.7071f : -0.7071f };
    const std::vector<apsm_filter> f = { apsm_train(apsm_params::library_defaults(),
                                                    rx.data(), n_train, M, sent.data()) };
    std::vector<cf> data(rx.begin(), rx.begin() + 10 * M);
    data[3 * M + 5] = cf(std::numeric_limits<float>::infinity(), 0);
    gpu_apsm_detector gpu(f, 10);
    std::vector<cf> got(10);
    gpu.detect(data.data(), 10, got.data());
    for (int t = 0; t < 10; t++)
        EXPECT_EQ(std::isfinite(got[t].real()), t != 3) << "vector " << t;
}

TEST_F(GpuApsm, FiltersFromDifferentTrainingSetsAreRefused)
{
    auto rng = make_rng(803);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const int M = 4, n_train = 40;
    std::vector<cf> rx(2 * n_train * M), sent(n_train, cf(0.7071f, 0.7071f));
    for (auto& v : rx)
        v = { g(rng), g(rng) };
    const apsm_params p = apsm_params::library_defaults();
    const std::vector<apsm_filter> mixed = {
        apsm_train(p, rx.data(), n_train, M, sent.data()),
        apsm_train(p, rx.data() + n_train * M, n_train, M, sent.data()),
    };
    EXPECT_THROW(gpu_apsm_detector(mixed, 10), std::invalid_argument);
    std::vector<apsm_filter> nine(9, mixed[0]);
    EXPECT_THROW(gpu_apsm_detector(nine, 10), std::invalid_argument);
    gpu_apsm_detector ok({ mixed[0] }, 10);
    std::vector<cf> out(11);
    EXPECT_THROW(ok.detect(rx.data(), 11, out.data()), std::invalid_argument);
}

TEST_F(GpuApsm, OverTheAirRecordingGivesTheReferenceDecisions)
{
    const char* dir = std::getenv("GPUMIMO_APSM_OTA_DIR");
    if (!dir)
        GTEST_SKIP() << "GPUMIMO_APSM_OTA_DIR not set";
    const apsm_ota_file f = apsm_ota_files(dir).back(); // QAM16 time
    if (!std::ifstream(f.rx_path))
        GTEST_SKIP() << "no recordings under " << dir;
    const apsm_recording rec = load_apsm_recording(f.rx_path, f.tx_path);
    for (const apsm_params& p : { apsm_params::library_defaults(), apsm_params() }) {
        std::vector<apsm_filter> filters;
        for (int u = 0; u < rec.users(); u++)
            filters.push_back(apsm_train(p, rec.rx_training.data(), rec.training_symbols,
                                         rec.antennas, rec.sent_training[u].data()));
        compare(filters, rec.rx_data, rec.data_symbols, "16-QAM time recording");
    }
}
