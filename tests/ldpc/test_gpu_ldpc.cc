/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA LDPC decoder against the CPU reference on the same LLRs (fresh random
 * codewords through BPSK over AWGN, Eb/N0 spread so that some frames decode and some
 * do not): min-sum bit for bit (a-posteriori LLRs, decisions, iterations, syndrome
 * flags, the count) for several codes, configurations, batch sizes 1, 7 and 131, float
 * and int8 input, host and device memory, the host pipeline over several chunks, in
 * single (min_sum) and half precision (min_sum_half, with codewords at scales 2^-60 to
 * 2^60 and values that are subnormal halves), codewords of zeros and of NaN not
 * counted as decoded;
 * sum-product with CUDA's own log1pf/expm1f:
 * the same decisions where decoding converges. Outputs are poisoned first and checked
 * fully written. Refusals. Skipped, and reported as skipped, without a usable GPU.
 */
#include "common/gpu_test.h"
#include "common/test_util.h"
#include "ldpc/grid_code.h"

#include <gnuradio/gpumimo/core/ldpc/gpu_ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/ldpc.h>
#include <gnuradio/gpumimo/core/ldpc/nr_ldpc.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

using namespace gr::gpumimo::core;
using gpumimo_test::grid_code;
using gpumimo_test::make_rng;

namespace {

using GpuLdpc = Gpu;

// Frames of random codewords, BPSK over AWGN at Eb/N0 from lo to hi dB across the
// frames (rate 1/2 assumed for the noise); core-convention LLRs.
std::vector<float> noisy_codewords(const ldpc_code& code, std::size_t frames, double lo,
                                   double hi, std::mt19937_64& rng,
                                   std::vector<std::uint8_t>* sent = nullptr)
{
    const ldpc_encoder enc(code);
    const std::size_t n = std::size_t(code.n);
    std::vector<float> llr(frames * n);
    std::vector<std::uint8_t> info(std::size_t(enc.k())), c(n);
    std::bernoulli_distribution coin(0.5);
    if (sent)
        sent->resize(frames * n);
    for (std::size_t f = 0; f < frames; f++) {
        for (auto& b : info)
            b = coin(rng);
        enc.encode(info.data(), c.data());
        const double ebn0 = frames > 1 ? lo + (hi - lo) * double(f) / double(frames - 1) : hi;
        const double sigma2 = 1.0 / std::pow(10.0, ebn0 / 10.0); // 1 / (2 R Eb/N0), R = 1/2
        std::normal_distribution<double> noise(0.0, std::sqrt(sigma2));
        for (std::size_t v = 0; v < n; v++)
            llr[f * n + v] = float(-2.0 * (1.0 - 2.0 * c[v] + noise(rng)) / sigma2);
        if (sent)
            std::copy(c.begin(), c.end(), sent->begin() + std::ptrdiff_t(f * n));
    }
    return llr;
}

struct decoded {
    std::vector<float> app;
    std::vector<std::uint8_t> bits, satisfied;
    std::vector<int> iterations;
    std::size_t count = 0;

    explicit decoded(std::size_t frames, std::size_t n)
        : app(frames * n, NAN), bits(frames * n, 0xAA), satisfied(frames, 0xAA), iterations(frames, -1)
    {
    }
    ldpc_outputs outputs() { return { app.data(), bits.data(), iterations.data(), satisfied.data() }; }
};

// Bitwise equality of every output, with the first difference named.
void expect_identical(const decoded& gpu, const decoded& cpu, std::size_t n, const std::string& what)
{
    EXPECT_EQ(gpu.count, cpu.count) << what;
    for (std::size_t f = 0; f < cpu.iterations.size(); f++) {
        ASSERT_EQ(gpu.iterations[f], cpu.iterations[f]) << what << ", frame " << f;
        ASSERT_EQ(gpu.satisfied[f], cpu.satisfied[f]) << what << ", frame " << f;
        for (std::size_t v = 0; v < n; v++) {
            const std::size_t i = f * n + v;
            ASSERT_EQ(gpu.bits[i], cpu.bits[i]) << what << ", frame " << f << ", bit " << v;
            ASSERT_EQ(std::memcmp(&gpu.app[i], &cpu.app[i], sizeof(float)), 0)
                << what << ", frame " << f << ", bit " << v << ": " << gpu.app[i] << " vs "
                << cpu.app[i];
        }
    }
}

// A code with dependent checks and irregular degrees (as in test_ldpc.cc).
ldpc_code irregular_code()
{
    ldpc_code code;
    code.name = "irregular";
    code.n = 200;
    code.m = 100;
    code.checks.resize(100);
    for (int v = 0; v < code.n; v++)
        for (int c : { v % 100, (v * 7 + 3) % 100, (v * 13 + 11) % 100 })
            if (std::find(code.checks[std::size_t(c)].begin(), code.checks[std::size_t(c)].end(), v) ==
                code.checks[std::size_t(c)].end())
                code.checks[std::size_t(c)].push_back(v);
    code.checks[99] = code.checks[3];
    finish_ldpc_code(code);
    return code;
}

// A code of 2 x checks bits, check c holding bits 2c and 2c + 1: as long as wanted for
// the decoders' size limits.
ldpc_code pairs_code(const std::string& name, int checks)
{
    ldpc_code code;
    code.name = name;
    code.n = 2 * checks;
    code.m = checks;
    code.checks.resize(std::size_t(checks));
    for (int c = 0; c < checks; c++)
        code.checks[std::size_t(c)] = { 2 * c, 2 * c + 1 };
    finish_ldpc_code(code);
    return code;
}

} // namespace

// Codes of several degree profiles: 802.16e (checks of degree 6 and 7), 5G NR (BG2 at
// Z = 64, every row; BG1 at rate 1/2, Z = 52; BG1 at Z = 128, every row, layers of
// 256 checks and 197 KB of shared memory in float), the irregular code, and the
// 10 x 12 and 3 x 40 grids (checks of degree up to 12 and 40).
TEST_F(GpuLdpc, MinSumIsBitIdenticalToTheCpuReference)
{
    auto rng = make_rng(2801);
    struct setting {
        const char* name;
        float normalisation, offset;
        bool early;
        int iterations;
    };
    const setting settings[] = { { "normalised 0.75", 0.75f, 0.0f, true, 20 },
                                 { "offset 0.25", 1.0f, 0.25f, true, 15 },
                                 { "plain, all iterations", 1.0f, 0.0f, false, 8 } };
    const std::vector<ldpc_code> codes = { wimax_rate_half_code(576), wimax_rate_half_code(2304),
                                           irregular_code(), grid_code(10, 12), grid_code(3, 40),
                                           nr_ldpc_code(2, 64), nr_ldpc_code(1, 52, 22),
                                           nr_ldpc_code(1, 128) };
    ASSERT_EQ(codes[3].max_check_degree(), 12);
    ASSERT_EQ(codes[4].max_check_degree(), 40);
    for (const ldpc_code& code : codes) {
        for (const setting& s : settings) {
          for (const ldpc_algorithm algorithm : { ldpc_algorithm::min_sum, ldpc_algorithm::min_sum_half }) {
            for (std::size_t frames : { std::size_t(1), std::size_t(7), std::size_t(131) }) {
                ldpc_decoder_config cfg;
                cfg.algorithm = algorithm;
                cfg.normalisation = s.normalisation;
                cfg.offset = s.offset;
                cfg.early_termination = s.early;
                cfg.max_iterations = s.iterations;
                const std::size_t n = std::size_t(code.n);
                auto llr = noisy_codewords(code, frames, 0.5, 3.0, rng);
                for (std::size_t i = 0; i < llr.size(); i += 17) // values that are subnormal halves
                    llr[i] *= 1e-5f;
                if (frames == 7) // the codewords at scales far apart
                    for (std::size_t i = 0; i < llr.size(); i++)
                        llr[i] = std::ldexp(llr[i], int(i / std::size_t(code.n)) * 20 - 60);
                if (frames == 131) { // codewords of no information: zeros, not finite
                    std::fill(llr.begin() + std::ptrdiff_t(5 * n), llr.begin() + std::ptrdiff_t(6 * n), 0.0f);
                    std::fill(llr.begin() + std::ptrdiff_t(6 * n), llr.begin() + std::ptrdiff_t(7 * n), NAN);
                }
                const std::string what = code.name + ", " + to_string(algorithm) + ", " + s.name + ", " +
                                         std::to_string(frames) + " frames";
                cpu_ldpc_decoder cpu(code, cfg);
                gpu_ldpc_decoder gpu(code, cfg, 131);
                decoded want(frames, n), got(frames, n);
                want.count = cpu.decode(llr.data(), frames, want.outputs());
                got.count = gpu.decode(llr.data(), frames, got.outputs());
                expect_identical(got, want, n, what + ", float");
                if (frames == 131) // not decoded, though their zero decisions hold every check
                    ASSERT_EQ(want.satisfied[5] + want.satisfied[6], 0) << what;
                if (frames == 131)
                    std::cout << "[ ldpc     ] " << what << ": " << want.count
                              << " decoded, kernel " << gpu.last_kernel_ms() << " ms\n";

                // int8 LLRs (scale 4, saturated) through both.
                std::vector<std::int8_t> q(llr.size());
                for (std::size_t i = 0; i < q.size(); i++)
                    q[i] = std::int8_t(std::lround(std::fmax(-127.0f, std::fmin(127.0f, 4.0f * llr[i]))));
                decoded want_q(frames, n), got_q(frames, n);
                want_q.count = cpu.decode(q.data(), 4.0f, frames, want_q.outputs());
                got_q.count = gpu.decode(q.data(), 4.0f, frames, got_q.outputs());
                expect_identical(got_q, want_q, n, what + ", int8");
            }
          }
        }
    }
}

TEST_F(GpuLdpc, DeviceResidentDecodeWritesWhatTheHostPathWrites)
{
  auto rng = make_rng(2802);
  for (const ldpc_algorithm algorithm : { ldpc_algorithm::min_sum, ldpc_algorithm::min_sum_half }) {
    SCOPED_TRACE(to_string(algorithm));
    const ldpc_code code = wimax_rate_half_code(2304);
    ldpc_decoder_config cfg;
    cfg.algorithm = algorithm;
    const std::size_t frames = 37, n = std::size_t(code.n);
    auto llr = noisy_codewords(code, frames, 1.0, 2.5, rng);
    llr[3] = NAN; // erasures
    llr[n + 7] = INFINITY;
    gpu_ldpc_decoder gpu(code, cfg, frames);
    decoded host(frames, n);
    host.count = gpu.decode(llr.data(), frames, host.outputs());
    cpu_ldpc_decoder cpu(code, cfg);
    decoded ref(frames, n);
    ref.count = cpu.decode(llr.data(), frames, ref.outputs());
    expect_identical(host, ref, n, "host path with erasures");

    float *d_llr = nullptr, *d_app = nullptr;
    std::uint8_t *d_bits = nullptr, *d_ok = nullptr;
    int* d_its = nullptr;
    ASSERT_EQ(cudaMalloc(&d_llr, llr.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_app, llr.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_bits, llr.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_ok, frames), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_its, frames * 4), cudaSuccess);
    cudaMemcpy(d_llr, llr.data(), llr.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(d_app, 0xff, llr.size() * 4); // NaN poison
    cudaMemset(d_bits, 0xAA, llr.size());
    cudaMemset(d_ok, 0xAA, frames);
    cudaMemset(d_its, 0xff, frames * 4);
    gpu.decode_device(d_llr, frames, { d_app, d_bits, d_its, d_ok });
    gpu.synchronize();
    decoded dev(frames, n);
    cudaMemcpy(dev.app.data(), d_app, llr.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(dev.bits.data(), d_bits, llr.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(dev.satisfied.data(), d_ok, frames, cudaMemcpyDeviceToHost);
    cudaMemcpy(dev.iterations.data(), d_its, frames * 4, cudaMemcpyDeviceToHost);
    dev.count = ref.count;
    expect_identical(dev, ref, n, "device path");
    for (void* p : { (void*)d_llr, (void*)d_app, (void*)d_bits, (void*)d_ok, (void*)d_its })
        cudaFree(p);
    EXPECT_GT(gpu.last_kernel_ms(), 0.0f);
  }
}

// LLRs near FLT_MAX (ldpc_llr_saturation): 40 codewords at +-3e38 with 3 confident
// errors, a codeword of all +3e38, one at +-10 decoded for 3,000 iterations without
// early termination (plain min-sum: values grow until the messages saturate) and int8
// LLRs at a scale of 1e-38 (q / scale overflows). min_sum and min_sum_half: every output
// bit for bit the CPU reference's; every algorithm: decoded only as the codeword sent,
// every a-posteriori LLR finite and within llr_limit, the +-10 and int8 codewords
// decoded (but by min_sum_half over 3,000 iterations of plain min-sum, below).
TEST_F(GpuLdpc, SaturatedLlrsDecodeAsTheCpu)
{
    auto rng = make_rng(2805);
    const ldpc_code code = wimax_rate_half_code(576);
    const ldpc_encoder enc(code);
    const std::size_t n = std::size_t(code.n), frames = 42;
    std::vector<std::uint8_t> sent(frames * n);
    std::vector<float> llr(frames * n);
    std::uniform_int_distribution<std::size_t> where(0, n - 1);
    for (std::size_t f = 0; f < frames; f++) {
        std::vector<std::uint8_t> info(std::size_t(enc.k()));
        for (auto& b : info)
            b = std::uint8_t(rng() & 1);
        enc.encode(info.data(), &sent[f * n]);
        const float big = f < 40 ? 3e38f : 10.0f;
        for (std::size_t v = 0; v < n; v++)
            llr[f * n + v] = f == 40 ? 3e38f : sent[f * n + v] ? big : -big;
        if (f < 40)
            for (int e = 0; e < 3; e++) {
                const std::size_t v = where(rng);
                llr[f * n + v] = -llr[f * n + v];
            }
    }
    std::vector<std::int8_t> q(n);
    for (std::size_t v = 0; v < n; v++)
        q[v] = sent[v] ? 100 : -100;
    for (auto algo : { ldpc_algorithm::min_sum, ldpc_algorithm::min_sum_half, ldpc_algorithm::sum_product })
        for (const bool long_run : { false, true }) {
            ldpc_decoder_config cfg;
            cfg.algorithm = algo;
            if (long_run) {
                cfg.early_termination = false;
                cfg.max_iterations = 3000;
                cfg.normalisation = 1.0f;
            }
            const std::string what = std::string(to_string(algo)) + (long_run ? ", 3000 iterations" : "");
            gpu_ldpc_decoder gpu(code, cfg, frames);
            cpu_ldpc_decoder cpu(code, cfg);
            decoded got(frames, n), ref(frames, n);
            got.count = gpu.decode(llr.data(), frames, got.outputs());
            ref.count = cpu.decode(llr.data(), frames, ref.outputs());
            decoded got_q(1, n), ref_q(1, n);
            got_q.count = gpu.decode(q.data(), 1e-38f, 1, got_q.outputs());
            ref_q.count = cpu.decode(q.data(), 1e-38f, 1, ref_q.outputs());
            if (algo != ldpc_algorithm::sum_product) {
                expect_identical(got, ref, n, what);
                expect_identical(got_q, ref_q, n, what + ", int8");
            }
            // min_sum_half saturates t = app - R (ldpc_half_saturation), which drops other
            // checks' messages from app: plain min-sum run on after it converged comes
            // apart there (docs/ldpc.md), on the CPU alike; not decoded, never wrongly.
            const bool comes_apart = long_run && algo == ldpc_algorithm::min_sum_half;
            if (!comes_apart)
                EXPECT_EQ(got_q.satisfied[0], 1) << what << ", int8";
            for (std::size_t f = 0; f < frames; f++) {
                for (std::size_t v = 0; v < n; v++)
                    ASSERT_TRUE(std::isfinite(got.app[f * n + v]) && std::fabs(got.app[f * n + v]) <= llr_limit)
                        << what << ", frame " << f << ", bit " << v << ": " << got.app[f * n + v];
                if (got.satisfied[f] && f != 40)
                    EXPECT_TRUE(std::equal(sent.begin() + std::ptrdiff_t(f * n),
                                           sent.begin() + std::ptrdiff_t((f + 1) * n),
                                           got.bits.begin() + std::ptrdiff_t(f * n)))
                        << what << ": frame " << f << " decoded as another codeword";
            }
            if (got.satisfied[40]) // all +3e38: only as the all-ones word
                EXPECT_EQ(std::count(got.bits.begin() + std::ptrdiff_t(40 * n),
                                     got.bits.begin() + std::ptrdiff_t(41 * n), 1),
                          std::ptrdiff_t(n))
                    << what;
            if (!comes_apart)
                EXPECT_EQ(got.satisfied[41], 1) << what << ", +-10";
        }
}

TEST_F(GpuLdpc, HostPipelineOverSeveralChunksMatchesTheCpu)
{
    // 1,100 codewords: chunks of 512, 512 and 76 over two streams, from pinned memory
    // (copies overlap kernels) and from pageable memory.
  auto rng = make_rng(2804);
  for (const ldpc_algorithm algorithm : { ldpc_algorithm::min_sum, ldpc_algorithm::min_sum_half }) {
    SCOPED_TRACE(to_string(algorithm));
    const ldpc_code code = wimax_rate_half_code(576);
    ldpc_decoder_config cfg;
    cfg.algorithm = algorithm;
    const std::size_t frames = 1100, n = std::size_t(code.n);
    const auto llr = noisy_codewords(code, frames, 0.5, 3.0, rng);
    cpu_ldpc_decoder cpu(code, cfg);
    decoded want(frames, n);
    want.count = cpu.decode(llr.data(), frames, want.outputs());
    gpu_ldpc_decoder gpu(code, cfg, frames);
    decoded pageable(frames, n);
    pageable.count = gpu.decode(llr.data(), frames, pageable.outputs());
    expect_identical(pageable, want, n, "pageable host memory");
    float* pinned = nullptr;
    ASSERT_EQ(cudaMallocHost(&pinned, llr.size() * sizeof(float)), cudaSuccess);
    std::copy(llr.begin(), llr.end(), pinned);
    decoded from_pinned(frames, n);
    from_pinned.count = gpu.decode(pinned, frames, from_pinned.outputs());
    cudaFreeHost(pinned);
    expect_identical(from_pinned, want, n, "pinned host memory");
  }
}

TEST_F(GpuLdpc, SumProductDecidesAsTheCpuReferenceWhereItConverges)
{
    auto rng = make_rng(2803);
    const ldpc_code code = wimax_rate_half_code(2304);
    ldpc_decoder_config cfg;
    cfg.algorithm = ldpc_algorithm::sum_product;
    cfg.max_iterations = 30;
    const std::size_t frames = 64, n = std::size_t(code.n);
    std::vector<std::uint8_t> sent;
    auto llr = noisy_codewords(code, frames, 1.8, 3.0, rng, &sent);
    std::fill(llr.begin(), llr.begin() + std::ptrdiff_t(n), 0.0f); // frame 0: no information
    cpu_ldpc_decoder cpu(code, cfg);
    gpu_ldpc_decoder gpu(code, cfg, frames);
    decoded want(frames, n), got(frames, n);
    want.count = cpu.decode(llr.data(), frames, want.outputs());
    got.count = gpu.decode(llr.data(), frames, got.outputs());
    std::size_t same_iterations = 0;
    double worst = 0; // largest LLR difference over the frame's largest |LLR|
    for (std::size_t f = 0; f < frames; f++) {
        for (std::size_t v = 0; v < n; v++)
            ASSERT_TRUE(std::isfinite(got.app[f * n + v])) << "frame " << f;
        ASSERT_NE(got.satisfied[f], 0xAA);
        ASSERT_GE(got.iterations[f], 1);
        if (f == 0) { // zeros in, zeros out, not decoded
            ASSERT_EQ(got.satisfied[0] + want.satisfied[0], 0);
            for (std::size_t v = 0; v < n; v++)
                ASSERT_EQ(got.app[v], 0.0f) << "bit " << v;
        }
        if (!want.satisfied[f])
            continue;
        // Both converge to the codeword sent (1.8 dB and above: every frame decodes).
        EXPECT_TRUE(got.satisfied[f]) << "frame " << f;
        EXPECT_TRUE(std::equal(got.bits.begin() + std::ptrdiff_t(f * n),
                               got.bits.begin() + std::ptrdiff_t((f + 1) * n),
                               sent.begin() + std::ptrdiff_t(f * n)))
            << "frame " << f;
        if (got.iterations[f] == want.iterations[f]) {
            same_iterations++;
            float scale = 0;
            double diff = 0;
            for (std::size_t v = 0; v < n; v++) {
                scale = std::fmax(scale, std::fabs(want.app[f * n + v]));
                diff = std::fmax(diff, std::fabs(double(got.app[f * n + v]) - want.app[f * n + v]));
            }
            worst = std::fmax(worst, diff / scale);
        }
    }
    std::cout << "[ float    ] ldpc sum-product: " << want.count << " of " << frames
              << " decoded, " << same_iterations << " with the same iteration count, largest "
              << "LLR difference " << worst << " of the frame's largest |LLR|\n";
    EXPECT_GE(want.count, frames - 2); // frame 0 not, and one more may fail

    // Zeros through checks of degree 3 (the grid's columns; its rows of 30 within the
    // GPU sum-product's 32): messages phi(phi(0) + phi(0)) exactly 0, as on the CPU, so
    // every LLR stays 0 and nothing is decoded.
    const ldpc_code grid = grid_code(3, 30);
    gpu_ldpc_decoder grid_gpu(grid, cfg, 1);
    const std::vector<float> zeros(std::size_t(grid.n), 0.0f);
    decoded grid_out(1, std::size_t(grid.n));
    EXPECT_EQ(grid_gpu.decode(zeros.data(), 1, grid_out.outputs()), 0u);
    EXPECT_EQ(grid_out.satisfied[0], 0);
    for (std::size_t v = 0; v < std::size_t(grid.n); v++)
        ASSERT_EQ(grid_out.app[v], 0.0f) << "grid, bit " << v;
    EXPECT_GE(same_iterations, want.count * 9 / 10);
    EXPECT_LT(worst, 1e-3); // a few float ulps per phi, over a few iterations
}

TEST_F(GpuLdpc, RefusesWhatItCannotDecode)
{
    ldpc_decoder_config cfg;
    const ldpc_code code = wimax_rate_half_code(576);
    EXPECT_THROW(gpu_ldpc_decoder(code, cfg, 0), std::invalid_argument);
    gpu_ldpc_decoder gpu(code, cfg, 4);
    std::vector<float> llr(5 * 576, 1.0f);
    decoded out(5, 576);
    EXPECT_THROW(gpu.decode(llr.data(), 5, out.outputs()), std::invalid_argument);
    std::vector<std::int8_t> q(576, 3);
    EXPECT_THROW(gpu.decode(q.data(), 0.0f, 1, out.outputs()), std::invalid_argument);
    // Zero frames: nothing written, nothing decoded.
    EXPECT_EQ(gpu.decode(llr.data(), 0, out.outputs()), 0u);
    EXPECT_EQ(out.iterations[0], -1);
    // A code too large for a block's shared memory: 60,000 bits in 30,000 checks of 2
    // plus a chain: (60,000 + edges) floats, far over 227 KB.
    EXPECT_THROW(gpu_ldpc_decoder(pairs_code("big", 30000), cfg, 1), std::invalid_argument);
    // 5G NR BG1 with every row: (68 + 316) Z floats of LLRs and messages; accepted
    // exactly when they fit the device's shared memory per block (on Hopper, 227 KB: up
    // to Z = 144), else refused with the reason (the engine factory then decodes on the
    // CPU). Z = 384 is the largest NR code: 590 KB.
    int optin = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
    for (const int z : { 128, 144, 160, 384 }) {
        const bool fits = std::size_t(68 + 316) * std::size_t(z) * sizeof(float) <= std::size_t(optin);
        try {
            gpu_ldpc_decoder nr(nr_ldpc_code(1, z), cfg, 1);
            EXPECT_TRUE(fits) << "BG1 at Z = " << z << " accepted beyond " << optin << " bytes";
        } catch (const std::invalid_argument& e) {
            EXPECT_FALSE(fits) << "BG1 at Z = " << z << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find("shared memory"), std::string::npos) << e.what();
        }
    }
    // min_sum_half unrolls checks up to degree 64: a 2 x 65 grid's rows are refused.
    const ldpc_code wide = grid_code(2, 65);
    ldpc_decoder_config half_cfg;
    half_cfg.algorithm = ldpc_algorithm::min_sum_half;
    try {
        gpu_ldpc_decoder refused(wide, half_cfg, 1);
        ADD_FAILURE() << "a check of degree 65 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("degree up to 64"), std::string::npos) << e.what();
    }
    // min_sum_half's structure holds 16-bit byte offsets: n = 16386 is refused (its
    // shared memory, 164 KB, would fit).
    try {
        gpu_ldpc_decoder refused(pairs_code("long", 8193), half_cfg, 1);
        ADD_FAILURE() << "a code of 16386 bits accepted by min_sum_half";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("up to 16384 bits"), std::string::npos) << e.what();
    }
    // Still usable after the refusals: the all-zero codeword, confidently received.
    std::fill(llr.begin(), llr.end(), -1.0f);
    EXPECT_EQ(gpu.decode(llr.data(), 4, out.outputs()), 4u);
    EXPECT_EQ(out.iterations[3], 1);
}
