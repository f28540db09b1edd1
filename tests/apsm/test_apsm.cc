/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The APSM reference on small synthetic problems (closed forms and properties that fail
 * when an equation is wrong), least squares, soft-symbol LLRs and the recording reader's
 * refusal of corrupt files.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/apsm/apsm.h>
#include <gnuradio/gpumimo/core/apsm/apsm_recording.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

std::vector<cf> random_symbols(std::mt19937_64& rng, const constellation& c, std::size_t n)
{
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    std::vector<cf> s(n);
    for (auto& v : s)
        v = cf(c.point(pick(rng)));
    return s;
}

// rx[t] = H s[t] + noise: K users, M antennas, Rayleigh H.
std::vector<cf> mix(std::mt19937_64& rng,
                    const std::vector<std::vector<cf>>& users,
                    int antennas,
                    float noise_std)
{
    std::normal_distribution<float> g(0.0f, std::sqrt(0.5f));
    const std::size_t n = users[0].size();
    std::vector<cf> h(antennas * users.size());
    for (auto& v : h)
        v = { g(rng), g(rng) };
    std::vector<cf> rx(n * antennas);
    for (std::size_t t = 0; t < n; t++)
        for (int m = 0; m < antennas; m++) {
            cf acc = { noise_std * g(rng), noise_std * g(rng) };
            for (std::size_t k = 0; k < users.size(); k++)
                acc += h[m * users.size() + k] * users[k][t];
            rx[t * antennas + m] = acc;
        }
    return rx;
}

} // namespace

TEST(Apsm, FirstStepIsTheClosedFormOfEquationNine)
{
    // One symbol, W = 1: the only step projects r1 and r2 from f = 0 with weights 1/2.
    // r1 and r2 are orthogonal with equal norms, so after it
    //   f(r1) = (b1 - eps)/2 + beta2 wG exp(-||r||^2 / sigma^2),
    //   beta_j = (b_j -+ eps) / 2 / (wL ||r||^2 + wG),
    // for targets beyond eps (signs taken from them).
    auto rng = make_rng(701);
    std::normal_distribution<float> g(0.0f, 0.4f);
    const int M = 3;
    std::vector<cf> r(M);
    for (auto& v : r)
        v = { g(rng), g(rng) };
    const cf b(0.7f, -0.3f);
    apsm_params p = apsm_params::library_defaults();
    p.window = 1;
    p.dictionary_size = 1;
    p.gaussian_variance = 0.9f;
    p.scale_variance_by_antennas = false;
    p.linear_weight = 0.3f;
    p.gaussian_weight = 0.7f;
    p.epsilon = 0.05f;
    const apsm_filter f = apsm_train(p, r.data(), 1, M, &b);
    double r2 = 0;
    for (const cf& v : r)
        r2 += std::norm(std::complex<double>(v));
    const double kappa = p.linear_weight * r2 + p.gaussian_weight;
    const double eps = p.epsilon;
    const double beta1 = (double(b.real()) - eps) / 2 / kappa;
    const double beta2 = (double(b.imag()) + eps) / 2 / kappa;
    const double cross = p.gaussian_weight * std::exp(-r2 / p.gaussian_variance);
    cf soft;
    apsm_detect(f, r.data(), 1, &soft);
    EXPECT_NEAR(soft.real(), beta1 * kappa + beta2 * cross, 1e-5);
    EXPECT_NEAR(soft.imag(), beta2 * kappa + beta1 * cross, 1e-5);
    ASSERT_EQ(f.entries(), 2u);
    EXPECT_NEAR(f.gauss[0], beta1, 1e-9);
    EXPECT_NEAR(f.gauss[1], beta2, 1e-9);
}

TEST(Apsm, LearnsToSeparateUsersAndFitsTheTrainingSet)
{
    // 4 users on 8 antennas at 25 dB: the trained filter of user 0 decides its test
    // symbols as least squares does (both near error-free), and its training residual
    // shrinks below the untrained filter's.
    auto rng = make_rng(702);
    const constellation c(modulation::qam16);
    const int M = 8, K = 4;
    const std::size_t n_train = 400, n_test = 600;
    std::vector<std::vector<cf>> users;
    for (int k = 0; k < K; k++)
        users.push_back(random_symbols(rng, c, n_train + n_test));
    const std::vector<cf> rx = mix(rng, users, M, 0.056f);
    apsm_params p = apsm_params::library_defaults();
    const apsm_filter f = apsm_train(p, rx.data(), n_train, M, users[0].data());
    const apsm_filter ls = ls_train(rx.data(), n_train, M, users[0].data());
    EXPECT_LT(f.noise_variance, 0.05) << "training residual of APSM";
    std::vector<cf> soft(n_test);
    std::vector<int> got(n_test), want(n_test);
    for (const apsm_filter* filt : { &f, &ls }) {
        apsm_detect(*filt, rx.data() + n_train * M, n_test, soft.data());
        hard_symbols(c, soft.data(), n_test, got.data());
        hard_symbols(c, users[0].data() + n_train, n_test, want.data());
        int errors = 0;
        for (std::size_t t = 0; t < n_test; t++)
            errors += got[t] != want[t];
        EXPECT_LE(errors, 3) << (filt == &f ? "APSM" : "least squares");
    }
}

// Tracking on the data symbols (apsm_track): on a channel whose phase drifts after the
// training (a carrier offset left over), the tracked filter follows it and decides the
// later symbols where the trained one, left as it was, loses them; on a still channel
// tracking changes little; its first soft symbol is the trained filter's; bad calls are
// refused.
TEST(Apsm, TrackingFollowsADriftingChannel)
{
    auto rng = make_rng(705);
    const constellation c(modulation::qpsk);
    const int M = 4, K = 2;
    const std::size_t n_train = 200, n_data = 1500;
    std::vector<std::vector<cf>> users;
    for (int k = 0; k < K; k++)
        users.push_back(random_symbols(rng, c, n_train + n_data));
    for (double drift : { 0.0, 2e-3 }) { // radians per symbol after the training
        SCOPED_TRACE("drift " + std::to_string(drift));
        std::vector<cf> rx = mix(rng, users, M, 0.05f);
        for (std::size_t t = n_train; t < n_train + n_data; t++)
            for (int m = 0; m < M; m++)
                rx[t * M + std::size_t(m)] *= std::polar(1.0f, float(drift * double(t - n_train)));
        const apsm_params p;
        const apsm_filter trained = apsm_train(p, rx.data(), n_train, M, users[0].data());
        std::vector<cf> still(n_data), tracked(n_data);
        apsm_detect(trained, rx.data() + n_train * M, n_data, still.data());
        apsm_filter f = trained;
        apsm_track(p, c, f, rx.data() + n_train * M, n_data, tracked.data());
        EXPECT_EQ(tracked[0], still[0]);
        EXPECT_GT(f.entries(), trained.entries());
        const auto errors = [&](const std::vector<cf>& soft) {
            return count_symbol_errors(c, soft.data(), users[0].data() + n_train, n_data).symbols;
        };
        // In pieces (the block's calls): the same soft symbols and the same filter, the
        // dictionary bounded as in one call.
        apsm_filter g = trained;
        std::vector<cf> pieces(n_data);
        for (std::size_t t0 = 0, step = 1; t0 < n_data; t0 += step, step = step * 3 + 1)
            apsm_track(p, c, g, rx.data() + (n_train + t0) * M, std::min(step, n_data - t0),
                       pieces.data() + t0);
        EXPECT_EQ(pieces, tracked);
        EXPECT_EQ(g.gauss, f.gauss);
        EXPECT_EQ(g.lin, f.lin);
        EXPECT_LE(f.entries(), trained.entries() + 2 * std::size_t(p.dictionary_size));
        if (drift == 0) {
            EXPECT_EQ(errors(still), 0u);
            EXPECT_LE(errors(tracked), 2u);
        } else { // 1500 x 2e-3 = 3 rad: the trained filter loses the later half
            EXPECT_GT(errors(still), n_data / 4);
            EXPECT_LE(errors(tracked), n_data / 100);
        }
    }
    apsm_filter untrained;
    std::vector<cf> soft(1), one(static_cast<std::size_t>(M));
    EXPECT_THROW(apsm_track(apsm_params(), c, untrained, one.data(), 1, soft.data()), std::invalid_argument);
}

TEST(Apsm, NormBoundHoldsTheGaussianPartsNorm)
{
    // Sparsification by a norm bound: trained with a bound below the unbounded filter's
    // RKHS norm of its Gaussian part, the filter ends at the bound (scaled down after
    // every step) and not below half of it, computed here as
    // wG sum_i g_i sum_k g_k kG(r_i, r_k).
    auto rng = make_rng(705);
    const constellation c(modulation::qpsk);
    const int M = 4;
    std::vector<std::vector<cf>> users = { random_symbols(rng, c, 80),
                                           random_symbols(rng, c, 80) };
    const std::vector<cf> rx = mix(rng, users, M, 0.3f);
    auto gaussian_norm = [&](const apsm_filter& f) {
        double norm2 = 0;
        for (std::size_t i = 0; i < f.entries(); i++)
            norm2 += f.gauss[i] * f.gaussian_sum(&f.dict[i * 2 * M]);
        return std::sqrt(f.gaussian_weight * norm2);
    };
    apsm_params p = apsm_params::library_defaults();
    p.scale_variance_by_antennas = false;
    p.gaussian_variance = 0.5f;
    const double free_norm = gaussian_norm(apsm_train(p, rx.data(), 80, M, users[0].data()));
    p.norm_bound = float(0.3 * free_norm);
    const double bounded = gaussian_norm(apsm_train(p, rx.data(), 80, M, users[0].data()));
    EXPECT_GT(free_norm, 0.0);
    EXPECT_LE(bounded, p.norm_bound * (1 + 1e-6)) << "unbounded " << free_norm;
    EXPECT_GT(bounded, 0.5 * p.norm_bound) << "the bound scales, it does not erase";
}

TEST(Apsm, LeastSquaresIsExactOnNoiselessMixtures)
{
    // As many users as antennas, so that the noiseless training vectors span them.
    auto rng = make_rng(703);
    const constellation c(modulation::qpsk);
    const int M = 4, K = 4;
    std::vector<std::vector<cf>> users;
    for (int k = 0; k < K; k++)
        users.push_back(random_symbols(rng, c, 50));
    const std::vector<cf> rx = mix(rng, users, M, 0.0f);
    for (int k = 0; k < K; k++) {
        const apsm_filter ls = ls_train(rx.data(), 50, M, users[k].data());
        std::vector<cf> soft(50);
        apsm_detect(ls, rx.data(), 50, soft.data());
        for (int t = 0; t < 50; t++)
            ASSERT_LT(std::abs(soft[t] - users[k][t]), 1e-4f) << "user " << k << " t " << t;
        EXPECT_LT(ls.noise_variance, 1e-5);
    }
}

TEST(Apsm, BadInputIsRefused)
{
    std::vector<cf> rx(4 * 2, cf(1, 0)), sent(4, cf(1, 1));
    apsm_params p = apsm_params::library_defaults();
    rx[5] = cf(std::numeric_limits<float>::quiet_NaN(), 0);
    EXPECT_THROW(apsm_train(p, rx.data(), 4, 2, sent.data()), std::invalid_argument);
    rx[5] = cf(1, 0);
    EXPECT_THROW(apsm_train(p, rx.data(), 0, 2, sent.data()), std::invalid_argument);
    p.window = 0;
    EXPECT_THROW(apsm_train(p, rx.data(), 4, 2, sent.data()), std::invalid_argument);
    p = apsm_params::library_defaults();
    p.dictionary_size = 2;
    p.passes = 2;
    EXPECT_THROW(apsm_train(p, rx.data(), 4, 2, sent.data()), std::invalid_argument);
    // Every training vector the same: rank one, no least-squares filter for 2 antennas.
    EXPECT_THROW(ls_train(rx.data(), 4, 2, sent.data()), std::invalid_argument);
}

// Parameters that are not finite, or counts no one could mean (2e9 passes), are refused
// before any work.
TEST(Apsm, ParametersOutOfRangeAreRefused)
{
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto refused = [](auto edit) {
        apsm_params p = apsm_params::library_defaults();
        edit(p);
        EXPECT_THROW(validate(p), std::invalid_argument);
    };
    refused([&](apsm_params& p) { p.linear_weight = inf; });
    refused([&](apsm_params& p) { p.gaussian_weight = inf; });
    refused([&](apsm_params& p) { p.gaussian_weight = nan; });
    refused([&](apsm_params& p) { p.gaussian_variance = inf; });
    refused([&](apsm_params& p) { p.epsilon = inf; });
    refused([&](apsm_params& p) { p.norm_bound = nan; });
    refused([&](apsm_params& p) { p.passes = 2000000000; });
    refused([&](apsm_params& p) { p.dictionary_size = max_apsm_dictionary + 1; });
    refused([&](apsm_params& p) { p.sample_step = 1 << 30; });
    EXPECT_NO_THROW(validate(apsm_params::library_defaults()));
}

TEST(SoftSymbols, LlrSignsAgreeWithNearestPointAndNaNIsErased)
{
    auto rng = make_rng(704);
    std::normal_distribution<float> g(0.0f, 0.8f);
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64 }) {
        const constellation c(mod);
        const int m = c.bits_per_symbol();
        std::vector<cf> soft(300);
        for (auto& v : soft)
            v = { g(rng), g(rng) };
        soft[17] = cf(std::numeric_limits<float>::infinity(), 0);
        std::vector<float> llr(soft.size() * m);
        std::vector<int> idx(soft.size());
        EXPECT_EQ(soft_to_llr(c, soft.data(), soft.size(), 0.1, llr.data()), 1u);
        hard_symbols(c, soft.data(), soft.size(), idx.data());
        for (std::size_t t = 0; t < soft.size(); t++)
            for (int k = 0; k < m; k++) {
                if (t == 17) {
                    EXPECT_EQ(llr[t * m + k], 0.0f);
                    continue;
                }
                ASSERT_NE(llr[t * m + k], 0.0f);
                EXPECT_EQ(llr[t * m + k] > 0, c.bit(idx[t], k) == 1)
                    << to_string(mod) << " symbol " << t << " bit " << k;
            }
    }
}

namespace {

void write_bytes(const std::string& path, const std::vector<char>& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

template <typename T>
void put(std::vector<char>& b, T v)
{
    const char* p = reinterpret_cast<const char*>(&v);
    b.insert(b.end(), p, p + sizeof v);
}

// A container with one array "a" of the given dimensions (count floats of data).
std::vector<char> container(const std::vector<std::int32_t>& dims, std::size_t count)
{
    std::vector<char> b;
    put<std::int32_t>(b, 1);
    put<std::int32_t>(b, 1);
    b.push_back('a');
    put<std::int32_t>(b, std::int32_t(dims.size()));
    for (auto d : dims)
        put(b, d);
    for (std::size_t i = 0; i < count; i++)
        put(b, float(i));
    return b;
}

} // namespace

// The blocks' fast LLRs (one dimension at a time) against the exhaustive search, for
// every modulation, on soft symbols near and far from the points, NaN among them.
TEST(SoftSymbols, TheMapperEqualsTheExhaustiveSearch)
{
    auto rng = make_rng(131);
    for (modulation mod : { modulation::bpsk, modulation::pi2_bpsk, modulation::qpsk, modulation::qam16,
                            modulation::qam64, modulation::qam256, modulation::qam1024 }) {
        SCOPED_TRACE(to_string(mod));
        const constellation c(mod);
        const soft_llr_mapper mapper(mod);
        std::uniform_int_distribution<int> pick(0, c.size() - 1);
        std::normal_distribution<double> g(0.0, 1.0);
        const std::size_t n = 3000;
        std::vector<cf> soft(n);
        for (std::size_t t = 0; t < n; t++) {
            const double spread = t % 3 == 0 ? 0.02 : (t % 3 == 1 ? 0.3 : 3.0);
            soft[t] = cf(c.point(pick(rng)) + spread * std::complex<double>(g(rng), g(rng)));
        }
        soft[17] = cf(std::nanf(""), 0.0f);
        soft[18] = cf(0.0f, std::numeric_limits<float>::infinity());
        for (double noise : { 1e-3, 0.1, 2.0 }) {
            const int m = c.bits_per_symbol();
            std::vector<float> want(n * m, 7.0f), got(n * m, -7.0f);
            const std::size_t erased_want = soft_to_llr(c, soft.data(), n, noise, want.data());
            EXPECT_EQ(mapper.map(soft.data(), n, noise, got.data()), erased_want);
            EXPECT_EQ(erased_want, 2u);
            for (std::size_t i = 0; i < want.size(); i++)
                ASSERT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::abs(want[i])))
                    << "LLR " << i << " (symbol " << i / m << ", bit " << i % m << "), N0 " << noise;
        }
    }
}

TEST(ApsmRecording, CorruptContainersAreRefusedWithTheFileName)
{
    const std::string path = ::testing::TempDir() + "gpumimo_container_test.bin";
    write_bytes(path, container({ 3, 2, 2 }, 12));
    const auto ok = read_array_container(path);
    ASSERT_EQ(ok.at("a").data.size(), 12u);
    EXPECT_EQ(ok.at("a").data[11], 11.0f);
    const std::vector<char> good = container({ 3, 2, 2 }, 12);
    const std::vector<std::vector<char>> bad = {
        container({ 3, 2, 2 }, 11),                     // truncated data
        container({ 3, 2, 2 }, 13),                     // bytes left over
        container({ 1 << 20, 1 << 10, 2 }, 4),          // claims far more than it holds
        container({ -3, 2, 2 }, 0),                     // negative dimension
        std::vector<char>(good.begin(), good.begin() + 6), // cut inside the name
        {},                                             // empty file
    };
    for (std::size_t i = 0; i < bad.size(); i++) {
        write_bytes(path, bad[i]);
        try {
            read_array_container(path);
            ADD_FAILURE() << "corrupt container " << i << " was accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(read_array_container(path + ".missing"), std::runtime_error);
    std::remove(path.c_str());
}

namespace {

// A container of several named arrays, each filled with `value`.
std::vector<char>
named_containers(const std::vector<std::pair<std::string, std::vector<std::int32_t>>>& arrays,
                 float value)
{
    std::vector<char> b;
    put<std::int32_t>(b, std::int32_t(arrays.size()));
    for (const auto& [name, dims] : arrays) {
        put<std::int32_t>(b, std::int32_t(name.size()));
        b.insert(b.end(), name.begin(), name.end());
    }
    for (const auto& [name, dims] : arrays) {
        put<std::int32_t>(b, std::int32_t(dims.size()));
        std::size_t count = 1;
        for (auto d : dims) {
            put(b, d);
            count *= std::size_t(d);
        }
        for (std::size_t i = 0; i < count; i++)
            put(b, value);
    }
    return b;
}

} // namespace

// A recording without data symbols cannot be scored: an error naming the files, not
// error rates of 0 / 0 (gpumimo_apsm_ota printed -nan and exited 0).
TEST(ApsmRecording, NoDataSymbolsIsAnError)
{
    const std::string rx = ::testing::TempDir() + "gpumimo_rx_nodata.bin";
    const std::string tx = ::testing::TempDir() + "gpumimo_tx_nodata.bin";
    write_bytes(rx, named_containers({ { "rxSigTraining", { 4, 2, 2 } },
                                       { "rxSigData", { 0, 2, 2 } } }, 0.5f));
    write_bytes(tx, named_containers({ { "mod_training", { 4, 1, 2 } },
                                       { "mod_data", { 0, 1, 2 } } }, 1.0f));
    try {
        load_apsm_recording(rx, tx);
        ADD_FAILURE() << "a recording without data symbols was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("no data symbols"), std::string::npos) << e.what();
    }
    // The same with one data symbol loads.
    write_bytes(rx, named_containers({ { "rxSigTraining", { 4, 2, 2 } },
                                       { "rxSigData", { 1, 2, 2 } } }, 0.5f));
    write_bytes(tx, named_containers({ { "mod_training", { 4, 1, 2 } },
                                       { "mod_data", { 1, 1, 2 } } }, 1.0f));
    EXPECT_EQ(load_apsm_recording(rx, tx).data_symbols, 1u);
    std::remove(rx.c_str());
    std::remove(tx.c_str());
}

// The order comes from the largest odd coordinate sent (1 QPSK ... 31 1024-QAM), the
// sent symbols scaled onto that constellation's points; any other largest coordinate is
// no square QAM and an error.
TEST(ApsmRecording, OrderFromTheLargestCoordinateQpskTo1024Qam)
{
    auto rng = make_rng(2802);
    const int train = 8, data = 6, antennas = 2;
    for (const auto& [largest, mod] : { std::pair<int, modulation>(1, modulation::qpsk),
                                        { 3, modulation::qam16 }, { 7, modulation::qam64 },
                                        { 15, modulation::qam256 }, { 31, modulation::qam1024 },
                                        { 5, modulation::qpsk }, { 33, modulation::qpsk } }) {
        SCOPED_TRACE("largest coordinate " + std::to_string(largest));
        std::uniform_int_distribution<int> level(0, largest); // odd values -largest..largest
        std::map<std::string, named_array> rx, tx;
        rx["rxSigTraining"] = { { train, antennas, 2 }, std::vector<float>(train * antennas * 2, 0.5f) };
        rx["rxSigData"] = { { data, antennas, 2 }, std::vector<float>(data * antennas * 2, 0.5f) };
        for (const auto& [key, rows] : { std::pair<const char*, int>("mod_training", train), { "mod_data", data } }) {
            named_array a{ { rows, 1, 2 }, {} };
            for (int i = 0; i < 2 * rows; i++)
                a.data.push_back(float(2 * (level(rng) % ((largest + 1) / 2)) + 1) * (level(rng) % 2 ? 1.0f : -1.0f));
            tx[key] = a;
        }
        tx["mod_data"].data[0] = float(largest); // the largest, once at least
        const bool square = largest != 5 && largest != 33;
        if (!square) {
            EXPECT_THROW(apsm_recording_from(rx, tx, "rx.bin", "tx.bin"), std::runtime_error);
            continue;
        }
        const apsm_recording r = apsm_recording_from(rx, tx, "rx.bin", "tx.bin");
        EXPECT_EQ(r.mod, mod);
        const constellation c(mod);
        ASSERT_EQ(r.sent_data.size(), 1u);
        EXPECT_FLOAT_EQ(r.sent_data[0][0].real(), float(largest * c.scale())); // a corner
        for (const auto* symbols : { &r.sent_training[0], &r.sent_data[0] })
            for (const std::complex<float>& s : *symbols) {
                double nearest = 1e9;
                for (const auto& p : c.points())
                    nearest = std::min(nearest, std::abs(std::complex<double>(s) - p));
                EXPECT_LT(nearest, 1e-6) << s; // on the constellation
            }
    }
}

// A BPSK recording (real +-1 symbols) had passed as QPSK (largest coordinate 1) and
// scored about half its symbols wrong: it loads as BPSK, its symbols turned onto TS
// 38.211's (1+j)/sqrt(2) diagonal; a QPSK user with one symbol on an axis, or a BPSK
// one with a zero symbol, is an error; the same QPSK recording without that symbol loads
// as QPSK.
TEST(ApsmRecording, RealOnlySymbolsAreBpskNotQpsk)
{
    auto rng = make_rng(2801);
    std::uniform_int_distribution<int> coin(0, 1);
    const int train = 8, data = 6, slots = 2, antennas = 2;
    auto arrays = [&](bool real_only) {
        std::map<std::string, named_array> rx, tx;
        rx["rxSigTraining"] = { { train, antennas, 2 }, std::vector<float>(train * antennas * 2, 0.5f) };
        rx["rxSigData"] = { { data, antennas, 2 }, std::vector<float>(data * antennas * 2, 0.5f) };
        for (const auto& [key, rows] : { std::pair<const char*, int>("mod_training", train), { "mod_data", data } }) {
            named_array a{ { rows, slots, 2 }, {} };
            for (int i = 0; i < rows * slots; i++) {
                a.data.push_back(coin(rng) ? 1.0f : -1.0f);
                a.data.push_back(real_only ? 0.0f : (coin(rng) ? 1.0f : -1.0f));
            }
            tx[key] = a;
        }
        return std::pair{ rx, tx };
    };
    auto [rx, tx] = arrays(true);
    const apsm_recording bpsk = apsm_recording_from(rx, tx, "rx.bin", "tx.bin");
    EXPECT_EQ(bpsk.mod, modulation::bpsk);
    const constellation c(modulation::bpsk);
    for (std::size_t u = 0; u < 2; u++)
        for (int t = 0; t < data; t++) {
            const float sent = tx["mod_data"].data[std::size_t(2 * (t * slots + int(u)))];
            const std::complex<double> want = c.point(sent > 0 ? 0 : 1);
            EXPECT_NEAR(bpsk.sent_data[u][std::size_t(t)].real(), want.real(), 1e-6);
            EXPECT_NEAR(bpsk.sent_data[u][std::size_t(t)].imag(), want.imag(), 1e-6);
        }
    tx["mod_data"].data[2 * 3] = 0; // user 1's second data symbol: no BPSK point
    try {
        apsm_recording_from(rx, tx, "rx.bin", "tx.bin");
        ADD_FAILURE() << "a BPSK symbol 0 was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("zero coordinate"), std::string::npos) << e.what();
    }
    auto [qrx, qtx] = arrays(false);
    EXPECT_EQ(apsm_recording_from(qrx, qtx, "rx.bin", "tx.bin").mod, modulation::qpsk);
    qtx["mod_data"].data[2 * 3 + 1] = 0; // user 1's second data symbol onto the real axis
    try {
        apsm_recording_from(qrx, qtx, "rx.bin", "tx.bin");
        ADD_FAILURE() << "a QPSK symbol with a zero coordinate was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("zero coordinate"), std::string::npos) << e.what();
    }
}

namespace {

// A container of the named arrays (the recordings' format: apsm_recording.h).
std::vector<char> container_of(const std::map<std::string, named_array>& arrays)
{
    std::vector<char> b;
    put<std::int32_t>(b, std::int32_t(arrays.size()));
    for (const auto& [name, a] : arrays) {
        put<std::int32_t>(b, std::int32_t(name.size()));
        b.insert(b.end(), name.begin(), name.end());
    }
    for (const auto& [name, a] : arrays) {
        put<std::int32_t>(b, std::int32_t(a.dims.size()));
        for (auto d : a.dims)
            put<std::int32_t>(b, d);
        for (float v : a.data)
            put(b, v);
    }
    return b;
}

} // namespace

// Synthetic recordings in the recordings' file format, BPSK and 64-QAM (orders the
// shipped recordings lack): 3 users sending odd-integer symbols as the recordings do, 8
// antennas at 30 dB through a random channel. Loaded from the files, every user trained
// (APSM, the library's parameters) and detected: no symbol wrong, by gr-gpumimo's count
// and by the library's.
TEST(ApsmRecording, SyntheticBpskAnd64QamRecordingsAreDetected)
{
    auto rng = make_rng(2803);
    const int users = 3, antennas = 8, train = 300, data = 400;
    for (modulation mod : { modulation::bpsk, modulation::qam64 }) {
        SCOPED_TRACE(to_string(mod));
        const int largest = mod == modulation::bpsk ? 1 : 7;
        std::uniform_int_distribution<int> level(0, largest);
        std::vector<std::vector<cf>> sent(users); // the odd integers, as recorded
        for (auto& u : sent)
            for (int t = 0; t < train + data; t++) {
                const float re = float(2 * (level(rng) / 2) + 1) * (level(rng) % 2 ? 1.0f : -1.0f);
                const float im = mod == modulation::bpsk
                                     ? 0.0f
                                     : float(2 * (level(rng) / 2) + 1) * (level(rng) % 2 ? 1.0f : -1.0f);
                u.push_back({ re, im });
            }
        const float energy = mod == modulation::bpsk ? 1.0f : 42.0f; // mean |s|^2
        const std::vector<cf> rx = mix(rng, sent, antennas, 0.0316f * std::sqrt(energy));
        std::map<std::string, named_array> rx_arrays, tx_arrays;
        auto rows = [&](const std::vector<cf>& v, int first, int n, int width) {
            named_array a{ { n, width, 2 }, {} };
            for (int t = first; t < first + n; t++)
                for (int w = 0; w < width; w++) {
                    a.data.push_back(v[std::size_t(t * width + w)].real());
                    a.data.push_back(v[std::size_t(t * width + w)].imag());
                }
            return a;
        };
        rx_arrays["rxSigTraining"] = rows(rx, 0, train, antennas);
        rx_arrays["rxSigData"] = rows(rx, train, data, antennas);
        std::vector<cf> tx_rows; // [symbol][user]
        for (int t = 0; t < train + data; t++)
            for (int u = 0; u < users; u++)
                tx_rows.push_back(sent[std::size_t(u)][std::size_t(t)]);
        tx_arrays["mod_training"] = rows(tx_rows, 0, train, users);
        tx_arrays["mod_data"] = rows(tx_rows, train, data, users);
        const std::string rx_path = ::testing::TempDir() + "gpumimo_synthetic_rx.bin";
        const std::string tx_path = ::testing::TempDir() + "gpumimo_synthetic_tx.bin";
        write_bytes(rx_path, container_of(rx_arrays));
        write_bytes(tx_path, container_of(tx_arrays));
        const apsm_recording r = load_apsm_recording(rx_path, tx_path);
        std::remove(rx_path.c_str());
        std::remove(tx_path.c_str());
        ASSERT_EQ(r.mod, mod);
        ASSERT_EQ(r.user_slots.size(), std::size_t(users));
        const constellation c(mod);
        const apsm_params p = apsm_params::library_defaults();
        std::vector<cf> soft(static_cast<std::size_t>(data));
        for (int u = 0; u < users; u++) {
            const apsm_filter f = apsm_train(p, r.rx_training.data(), r.training_symbols, antennas,
                                             r.sent_training[std::size_t(u)].data());
            apsm_detect(f, r.rx_data.data(), r.data_symbols, soft.data());
            const symbol_errors e =
                count_symbol_errors(c, soft.data(), r.sent_data[std::size_t(u)].data(), r.data_symbols);
            EXPECT_EQ(e.symbols, 0u) << "user " << u;
            EXPECT_EQ(e.libapsm_symbols, 0u) << "user " << u;
            EXPECT_EQ(e.bits, 0u) << "user " << u;
        }
    }
}

// Antenna subsets (gpumimo_apsm_ota --antennas, --sweep-antennas): the patterns' ports,
// and a recording cut down to them keeps exactly those columns of the received samples.
TEST(ApsmRecording, AntennaSubsetsKeepTheirColumns)
{
    EXPECT_EQ(antenna_subset("first", 3, 16), (std::vector<int>{ 0, 1, 2 }));
    EXPECT_EQ(antenna_subset("equidistant", 4, 16), (std::vector<int>{ 0, 4, 8, 12 }));
    EXPECT_EQ(antenna_subset("equidistant", 6, 16), (std::vector<int>{ 0, 2, 5, 8, 10, 13 }));
    EXPECT_EQ(antenna_subset("equidistant", 16, 16).back(), 15);
    for (const auto& [kind, n] : { std::pair<const char*, int>("first", 0), { "first", 17 }, { "random", 4 } })
        EXPECT_THROW(antenna_subset(kind, n, 16), std::invalid_argument) << kind << " " << n;
    auto rng = make_rng(2804);
    std::normal_distribution<float> g;
    apsm_recording r;
    r.antennas = 5;
    r.training_symbols = 7;
    r.data_symbols = 9;
    for (auto* v : { &r.rx_training, &r.rx_data })
        for (std::size_t i = 0; i < (v == &r.rx_training ? 7u : 9u) * 5; i++)
            v->push_back({ g(rng), g(rng) });
    const std::vector<int> keep{ 4, 1, 3 };
    const apsm_recording s = select_antennas(r, keep);
    ASSERT_EQ(s.antennas, 3);
    for (std::size_t t = 0; t < 9; t++)
        for (std::size_t k = 0; k < 3; k++)
            EXPECT_EQ(s.rx_data[t * 3 + k], r.rx_data[t * 5 + std::size_t(keep[k])]);
    for (std::size_t t = 0; t < 7; t++)
        for (std::size_t k = 0; k < 3; k++)
            EXPECT_EQ(s.rx_training[t * 3 + k], r.rx_training[t * 5 + std::size_t(keep[k])]);
    for (const std::vector<int>& bad : { std::vector<int>{}, { 5 }, { -1 }, { 2, 2 } })
        EXPECT_THROW(select_antennas(r, bad), std::invalid_argument);
}

// The pilots a training on at most m of n takes: all where m is 0 or >= n; else m of
// them, ascending, the first pilot first, spread evenly (every gap floor(n/m) or
// ceil(n/m)), on fresh random sizes and on lte20's 6-user frame (7200 into 4096).
TEST(Apsm, TrainingSubsetSpreadsEvenlyOverThePilots)
{
    auto rng = gpumimo_test::make_rng(911);
    std::uniform_int_distribution<std::size_t> size(1, 20000);
    std::vector<std::pair<std::size_t, std::size_t>> cases{ { 7200, 4096 }, { 7200, 685 },
                                                            { 5, 0 }, { 5, 5 }, { 5, 9 } };
    for (int k = 0; k < 200; k++)
        cases.emplace_back(size(rng), size(rng));
    for (const auto& [n, m] : cases) {
        SCOPED_TRACE(std::to_string(n) + " pilots, at most " + std::to_string(m));
        const std::vector<std::size_t> idx = training_subset(n, m);
        if (m == 0 || m >= n) {
            ASSERT_EQ(idx.size(), n);
            for (std::size_t i = 0; i < n; i++)
                ASSERT_EQ(idx[i], i);
            continue;
        }
        ASSERT_EQ(idx.size(), m);
        ASSERT_EQ(idx.front(), 0u);
        ASSERT_LT(idx.back(), n);
        for (std::size_t i = 1; i < m; i++) {
            const std::size_t gap = idx[i] - idx[i - 1];
            ASSERT_GE(gap, n / m) << "at " << i;
            ASSERT_LE(gap, (n + m - 1) / m) << "at " << i;
        }
        ASSERT_LE(n - idx.back(), (n + m - 1) / m); // the last pilots are not left out
    }
}
