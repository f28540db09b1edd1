/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The engine layer (core/engine.h), once for every subsystem: the backend rule
 * (choose_backend), the fallback policy for a GPU failure mid-run (gpu_fallback), and
 * each factory's CPU engine against the reference it wraps, on fresh seeded inputs.
 * Runs on both machines: without a GPU "auto" falls back and "cuda" refuses; with one the
 * rule is exercised with makers that decline, fail and refuse.
 */
#include "common/test_util.h"
#include "detail/gpu_engines.h"

#include <gnuradio/gpumimo/core/apsm/apsm_engine.h>
#include <gnuradio/gpumimo/core/apsm/apsm_guard.h>
#include <gnuradio/gpumimo/core/detect/detector_engine.h>
#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc_engine.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft_engine.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;

TEST(GpuFallback, AGpuFailureIsRedoneOnTheCpuAndTheCpuStays)
{
    gpu_fallback f(true);
    std::vector<std::string> reports;
    f.set_reporter([&](const std::string& what) { reports.push_back(what); });
    int gpu_calls = 0, cpu_calls = 0;
    const auto gpu_ok = [&] { gpu_calls++; return 1; };
    const auto cpu = [&] { cpu_calls++; return 2; };
    EXPECT_EQ(f.run(gpu_ok, cpu), 1);
    // Bad input is the caller's: it passes through and the GPU stays.
    EXPECT_THROW(f.run([]() -> int { throw std::invalid_argument("bad y"); }, cpu),
                 std::invalid_argument);
    EXPECT_TRUE(f.on_gpu());
    EXPECT_TRUE(reports.empty());
    // A CUDA failure: the call's result comes from the CPU, reported once.
    EXPECT_EQ(f.run([]() -> int { throw std::runtime_error("cudaErrorLaunchFailure"); }, cpu),
              2);
    EXPECT_FALSE(f.on_gpu());
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_NE(reports[0].find("cudaErrorLaunchFailure"), std::string::npos);
    EXPECT_EQ(f.reason(), "cudaErrorLaunchFailure");
    // For good: the GPU is not tried again.
    const int before = gpu_calls;
    EXPECT_EQ(f.run(gpu_ok, cpu), 2);
    EXPECT_EQ(gpu_calls, before);
    EXPECT_EQ(cpu_calls, 2);
    EXPECT_EQ(reports.size(), 1u);
}

TEST(GpuFallback, AnInjectedFailureHitsTheGpuCallItNames)
{
    // GPUMIMO_INJECT_GPU_FAILURE=N: call N (from 0) fails as a CUDA failure would, the
    // calls before it run on the GPU; read when the engine is made.
    ASSERT_EQ(setenv("GPUMIMO_INJECT_GPU_FAILURE", "2", 1), 0);
    gpu_fallback f(true);
    ASSERT_EQ(unsetenv("GPUMIMO_INJECT_GPU_FAILURE"), 0);
    int gpu_calls = 0, cpu_calls = 0;
    const auto gpu = [&] { gpu_calls++; return 1; };
    const auto cpu = [&] { cpu_calls++; return 2; };
    EXPECT_EQ(f.run(gpu, cpu), 1);
    EXPECT_EQ(f.run(gpu, cpu), 1);
    EXPECT_EQ(f.run(gpu, cpu), 2);
    EXPECT_FALSE(f.on_gpu());
    EXPECT_NE(f.reason().find("GPUMIMO_INJECT_GPU_FAILURE=2"), std::string::npos) << f.reason();
    EXPECT_EQ(f.run(gpu, cpu), 2);
    EXPECT_EQ(gpu_calls, 2);
    EXPECT_EQ(cpu_calls, 2);
    // Unset, or not a count: never.
    gpu_fallback g(true);
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(g.run(gpu, cpu), 1);
    ASSERT_EQ(setenv("GPUMIMO_INJECT_GPU_FAILURE", "x1", 1), 0);
    EXPECT_EQ(injected_gpu_failure(), -1);
    ASSERT_EQ(setenv("GPUMIMO_INJECT_GPU_FAILURE", "-3", 1), 0);
    EXPECT_EQ(injected_gpu_failure(), -1);
    ASSERT_EQ(setenv("GPUMIMO_INJECT_GPU_FAILURE", "0", 1), 0);
    EXPECT_EQ(injected_gpu_failure(), 0);
    ASSERT_EQ(unsetenv("GPUMIMO_INJECT_GPU_FAILURE"), 0);
}

TEST(ChooseBackend, TheOneRule)
{
    int made = 0;
    const auto never = [&](std::string&) { made++; return true; };
    EXPECT_THROW(choose_backend("opencl", never), std::invalid_argument);
    EXPECT_FALSE(choose_backend("cpu", never));
    EXPECT_EQ(made, 0);
    std::string why;
    if (cuda_device_count() == 0) {
        EXPECT_FALSE(choose_backend("auto", never, &why));
        EXPECT_NE(why.find("no usable GPU"), std::string::npos) << why;
        EXPECT_THROW(choose_backend("cuda", never), std::runtime_error);
        EXPECT_EQ(made, 0);
        return;
    }
    EXPECT_TRUE(choose_backend("auto", never, &why));
    EXPECT_TRUE(why.empty());
    const auto declines = [](std::string& w) { w = "too many users"; return false; };
    EXPECT_FALSE(choose_backend("auto", declines, &why));
    EXPECT_EQ(why, "too many users");
    try {
        choose_backend("cuda", declines);
        ADD_FAILURE() << "cuda accepted a declined configuration";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not usable: too many users"), std::string::npos);
    }
    const auto fails = [](std::string&) -> bool { throw std::runtime_error("out of memory"); };
    EXPECT_FALSE(choose_backend("auto", fails, &why));
    EXPECT_EQ(why, "out of memory");
    EXPECT_THROW(choose_backend("cuda", fails), std::runtime_error);
    const auto refuses = [](std::string&) -> bool { throw std::invalid_argument("no such device"); };
    EXPECT_FALSE(choose_backend("auto", refuses, &why));
    EXPECT_THROW(choose_backend("cuda", refuses), std::invalid_argument);
}

TEST(Factories, CpuDetectorEngineIsTheReference)
{
    auto rng = make_rng(2601);
    for (const std::string name : algorithm_names()) {
        const constellation c(modulation::qam16);
        const gpumimo_test::problems p = gpumimo_test::make_problems(rng, c, 2, 3, 61, 15.0, 4);
        detector_config dc;
        dc.spec = detector_spec(name);
        dc.mod = modulation::qam16;
        dc.nt = 2;
        dc.nr = 3;
        const auto engine = make_detector_engine(dc, "cpu");
        EXPECT_STREQ(engine->backend(), "cpu");
        ASSERT_NE(engine->fallback(), nullptr);
        EXPECT_FALSE(engine->fallback()->on_gpu());
        const cpu_detector ref(dc.spec.algo(), dc.mod, 2, 3);
        const std::vector<float> want = gpumimo_test::run_detector(ref, p);
        const std::vector<float> got = gpumimo_test::run_poisoned(
            want.size(), [&](float* out) { engine->detect(p.view(), out); });
        EXPECT_EQ(got, want) << name;
    }
    detector_config bad;
    bad.spec = detector_spec("ml");
    bad.mod = modulation::qam256;
    bad.nt = bad.nr = 4; // 2^32 candidates
    EXPECT_THROW(make_detector_engine(bad, "auto"), std::invalid_argument);
}

// The GPU detectors' modulation limit, where the GPU makers ask it (gpu_supports): on a
// machine with a GPU, 1024-QAM on "auto" runs on the CPU with this reason, and on
// "cuda" is refused with it; here the check itself.
TEST(Factories, GpuDetectorsTakeQpskTo256QamOnly)
{
    for (modulation mod : { modulation::qpsk, modulation::qam16, modulation::qam64, modulation::qam256 })
        EXPECT_TRUE(detail::gpu_detectors_take(mod, nullptr)) << to_string(mod);
    std::string why;
    EXPECT_FALSE(detail::gpu_detectors_take(modulation::qam1024, &why));
    EXPECT_NE(why.find("1024qam"), std::string::npos) << why;
    EXPECT_NE(why.find("256-QAM"), std::string::npos) << why;
    // 1024-QAM on the CPU: the engine is made there.
    detector_config c;
    c.spec = detector_spec("mmse");
    c.mod = modulation::qam1024;
    c.nt = 2;
    c.nr = 2;
    EXPECT_STREQ(make_detector_engine(c, "cpu")->backend(), "cpu");
}

TEST(Factories, CpuOfdmFftEngineMatchesTheReference)
{
    auto rng = make_rng(2602);
    ofdm_fft_config c;
    c.fft_len = 64;
    c.cp_lengths = { 16 };
    for (int k = 8; k < 56; k++) // 48 carriers
        c.carriers.push_back(k);
    c.channels = 2;
    const auto engine = make_ofdm_fft_engine(c, "cpu");
    EXPECT_STREQ(engine->backend(), "cpu");
    const cpu_ofdm_fft ref(c);
    const ofdm_fft_layout layout(c);
    const std::size_t nsym = 7;
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<std::complex<float>> in(c.channels * layout.in_samples(0, nsym));
    for (auto& v : in)
        v = { g(rng), g(rng) };
    const std::size_t out_n = layout.out_samples(0, nsym);
    std::vector<std::complex<float>> got(c.channels * out_n, NAN), want(got.size(), NAN);
    ofdm_fft_io io;
    io.in = in.data();
    io.in_stride = layout.in_samples(0, nsym);
    io.nsym = nsym;
    io.out_stride = out_n;
    io.out = got.data();
    EXPECT_EQ(engine->process(io), 0u);
    io.out = want.data();
    EXPECT_EQ(ref.process(io), 0u);
    for (std::size_t i = 0; i < got.size(); i++)
        EXPECT_LT(std::abs(got[i] - want[i]), 1e-4f * std::max(1.0f, std::abs(want[i])))
            << "sample " << i;
}

TEST(Factories, CpuApsmEngineIsTheReference)
{
    auto rng = make_rng(2603);
    const int antennas = 4, users = 2;
    const std::size_t n = 200;
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::uniform_int_distribution<int> bit(0, 1);
    std::vector<std::complex<float>> rx(n * antennas), sent(users * n);
    for (auto& s : sent)
        s = { bit(rng) ? 0.7071f : -0.7071f, bit(rng) ? 0.7071f : -0.7071f };
    for (auto& v : rx)
        v = { g(rng), g(rng) };
    apsm_engine_config c;
    c.antennas = antennas;
    c.users = users;
    c.max_training = n;
    c.max_symbols = n;
    c.params.dictionary_size = 50;
    const auto engine = make_apsm_engine(c, "cpu");
    EXPECT_STREQ(engine->backend(), "cpu");
    std::vector<apsm_filter> filters;
    engine->train(rx.data(), n, sent.data(), filters);
    ASSERT_EQ(filters.size(), std::size_t(users));
    engine->set_filters(filters);
    std::vector<std::complex<float>> got(users * n), want(users * n);
    engine->detect(rx.data(), n, got.data());
    // The reference's guarded training (the least-squares guard is on by default).
    const std::vector<apsm_filter> ref =
        apsm_train_guarded(c.params, rx.data(), n, antennas, users, sent.data());
    for (int u = 0; u < users; u++)
        apsm_detect(ref[u], rx.data(), n, &want[u * n]);
    EXPECT_EQ(got, want);
}

TEST(Factories, CpuLdpcEngineIsTheReferenceWithOneFrameLimit)
{
    auto rng = make_rng(2604);
    const ldpc_code code = wimax_rate_half_code(576);
    ldpc_engine_config c;
    c.max_frames = 3;
    const auto engine = make_ldpc_decoder_engine(code, c, "cpu");
    EXPECT_STREQ(engine->backend(), "cpu");
    EXPECT_EQ(engine->codeword_bits(), code.n);
    // Three random codewords through BPSK at about 1.5 dB: some need iterations.
    const ldpc_encoder enc(code);
    std::uniform_int_distribution<int> bit(0, 1);
    std::normal_distribution<float> noise(0.0f, 0.85f);
    std::vector<std::uint8_t> info(enc.k()), word(code.n);
    std::vector<float> llr(3 * code.n);
    for (int f = 0; f < 3; f++) {
        for (auto& b : info)
            b = std::uint8_t(bit(rng));
        enc.encode(info.data(), word.data());
        for (int i = 0; i < code.n; i++) // LLR > 0 means 1
            llr[f * code.n + i] = 2.0f * ((word[i] ? 1.0f : -1.0f) + noise(rng)) / 0.72f;
    }
    std::vector<std::uint8_t> got(llr.size(), 2), want(llr.size(), 3);
    std::vector<int> it_got(3), it_want(3);
    ldpc_outputs o;
    o.bits = got.data();
    o.iterations = it_got.data();
    const std::size_t ok = engine->decode(llr.data(), 3, o);
    cpu_ldpc_decoder ref(code, c.decoder);
    o.bits = want.data();
    o.iterations = it_want.data();
    EXPECT_EQ(ok, ref.decode(llr.data(), 3, o));
    EXPECT_EQ(got, want);
    EXPECT_EQ(it_got, it_want);
    EXPECT_GT(it_want[0] + it_want[1] + it_want[2], 3); // the decoder had work to do
    EXPECT_THROW(engine->decode(llr.data(), 4, o), std::invalid_argument); // > max_frames
}
