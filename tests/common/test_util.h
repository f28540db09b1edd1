/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the core tests: fresh random problems every run from a printed seed
 * (GPUMIMO_TEST_SEED=<n> repeats a run).
 */
#ifndef INCLUDED_GPUMIMO_TEST_UTIL_H
#define INCLUDED_GPUMIMO_TEST_UTIL_H

#include <gnuradio/gpumimo/core/detect/detector.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

namespace gpumimo_test {

using namespace gr::gpumimo::core;

inline std::uint64_t test_seed()
{
    static const std::uint64_t seed = [] {
        const char* env = std::getenv("GPUMIMO_TEST_SEED");
        const std::uint64_t s =
            env ? std::strtoull(env, nullptr, 10)
                : (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
        std::cout << "[ seed     ] GPUMIMO_TEST_SEED=" << s << std::endl;
        return s;
    }();
    return seed;
}

/*! An rng per test case: seed mixed with a case-specific salt. */
inline std::mt19937_64 make_rng(std::uint64_t salt)
{
    return std::mt19937_64(test_seed() ^ (salt * 0x9E3779B97F4A7C15ull));
}

/*! n fair random bits (0 or 1). */
inline std::vector<std::uint8_t> random_bits(std::mt19937_64& rng, std::size_t n)
{
    std::bernoulli_distribution coin(0.5);
    std::vector<std::uint8_t> b(n);
    for (auto& x : b)
        x = coin(rng);
    return b;
}

/*! Problems y = H s + n with i.i.d. CN(0,1) H, uniformly random points and AWGN at a
 *  per-receive-antenna SNR: E||Hs||^2 / E||n||^2 = nt / N0. */
struct problems {
    int nt = 0, nr = 0;
    std::size_t batch = 0, group = 1;
    std::vector<cf32> y, h;
    std::vector<float> noise; // one per channel
    std::vector<int> sent;    // point index per stream
    std::vector<std::uint8_t> bits;

    mimo_batch view() const
    {
        mimo_batch b;
        b.y = y.data();
        b.h = h.data();
        b.noise_var = noise.data();
        b.batch = batch;
        b.nt = nt;
        b.nr = nr;
        b.group = group;
        b.scalar_noise = false;
        return b;
    }
};

inline problems make_problems(std::mt19937_64& rng,
                              const constellation& c,
                              int nt,
                              int nr,
                              std::size_t batch,
                              double snr_db,
                              std::size_t group = 1)
{
    problems p;
    p.nt = nt;
    p.nr = nr;
    p.batch = batch;
    p.group = group;
    const std::size_t nch = (batch + group - 1) / group;
    std::normal_distribution<double> gauss(0.0, std::sqrt(0.5));
    std::uniform_int_distribution<int> pick(0, c.size() - 1);
    const double n0 = nt * std::pow(10.0, -snr_db / 10.0);
    p.h.resize(nch * nr * nt);
    for (auto& v : p.h)
        v = cf32(float(gauss(rng)), float(gauss(rng)));
    p.noise.assign(nch, float(n0));
    p.y.resize(batch * nr);
    p.sent.resize(batch * nt);
    const int m = c.bits_per_symbol();
    p.bits.resize(batch * nt * m);
    for (std::size_t b = 0; b < batch; b++) {
        for (int t = 0; t < nt; t++) {
            const int q = pick(rng);
            p.sent[b * nt + t] = q;
            for (int k = 0; k < m; k++)
                p.bits[(b * nt + t) * m + k] = std::uint8_t(c.bit(q, k));
        }
        const cf32* h = &p.h[(b / group) * nr * nt];
        for (int r = 0; r < nr; r++) {
            std::complex<double> acc(0.0);
            for (int t = 0; t < nt; t++) // vector b: symbol index b (pi/2-BPSK's turn)
                acc += std::complex<double>(h[r * nt + t]) * c.point(p.sent[b * nt + t]) *
                       c.rotation(b);
            acc += std::sqrt(n0) * std::complex<double>(gauss(rng), gauss(rng));
            p.y[b * nr + r] = cf32(acc);
        }
    }
    return p;
}

/*! Calls detect(out) on an output of n floats poisoned with NaN first, and checks every
 *  element was written with a finite value. */
template <typename Detect>
inline std::vector<float> run_poisoned(std::size_t n, Detect&& detect)
{
    std::vector<float> llr(n, std::nanf(""));
    detect(llr.data());
    for (std::size_t i = 0; i < llr.size(); i++)
        if (!std::isfinite(llr[i])) {
            ADD_FAILURE() << "LLR " << i << " not written or not finite: " << llr[i];
            break;
        }
    return llr;
}

inline std::vector<float>
run_detector(const cpu_detector& det, const problems& p, unsigned threads = 0)
{
    return run_poisoned(p.batch * det.bits_per_vector(),
                        [&](float* out) { det.detect(p.view(), out, threads); });
}

inline std::size_t bit_errors(const std::vector<float>& llr,
                              const std::vector<std::uint8_t>& bits)
{
    std::size_t errors = 0;
    for (std::size_t i = 0; i < bits.size(); i++)
        errors += (llr[i] > 0.0f) != (bits[i] != 0);
    return errors;
}

} // namespace gpumimo_test

#endif
