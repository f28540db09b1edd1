/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Holding a fast OFDM FFT (CUDA, FFTW) to the CPU reference on fresh random input, as
 * VOLK holds its kernels to the generic one: the output is poisoned two ways and must
 * come out identical (every byte written), the gaps between channels untouched, and
 * the values within the error a float32 transform and the output format allow.
 */
#ifndef INCLUDED_GPUMIMO_TEST_OFDM_COMPARE_H
#define INCLUDED_GPUMIMO_TEST_OFDM_COMPARE_H

#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace gpumimo_test {

using namespace gr::gpumimo::core;
using ofdm_process = std::function<std::size_t(const ofdm_fft_io&)>;

// Random samples of `fmt`, complex Gaussian with `sigma` per part.
inline std::vector<unsigned char>
random_input(std::mt19937_64& rng, sample_format fmt, std::size_t samples, float sigma)
{
    std::normal_distribution<float> g(0.f, sigma);
    std::vector<unsigned char> raw(samples * bytes_per_sample(fmt));
    for (std::size_t i = 0; i < samples; i++)
        encode_sample(fmt, std::complex<float>(g(rng), g(rng)), raw.data(), i);
    return raw;
}

// An LTE-like configuration: long first prefix, shifted, DC and guard bands empty.
inline ofdm_fft_config lte_like(int n, fft_direction dir)
{
    ofdm_fft_config c;
    c.fft_len = n;
    c.direction = dir;
    c.cp_lengths = { n * 10 / 128, n * 9 / 128, n * 9 / 128, n * 9 / 128 };
    c.shift = true;
    for (int k = n / 10; k < n - n / 10; k++)
        if (k != n / 2)
            c.carriers.push_back(k);
    c.scale = float(1.0 / std::sqrt(double(n)));
    return c;
}

struct ofdm_run {
    std::vector<unsigned char> out; // channels at out_stride, gaps as poisoned
    std::size_t zeroed;
};

// Runs `process` on io0's input with the output poisoned; with separate_buffers, every
// channel's input and output in a buffer of its own (io.in_channels/out_channels).
inline ofdm_run run_poisoned(const ofdm_fft_config& c,
                             const ofdm_fft_io& io0,
                             std::size_t out_stride,
                             unsigned char poison,
                             bool separate_buffers,
                             const ofdm_process& process)
{
    const ofdm_fft_layout lay(c);
    const std::size_t ib = bytes_per_sample(c.input), ob = bytes_per_sample(c.output);
    const std::size_t in_len = lay.in_samples(io0.first_symbol, io0.nsym);
    const std::size_t per = lay.out_samples(io0.first_symbol, io0.nsym);
    ofdm_run r;
    r.out.assign(((c.channels - 1) * out_stride + per) * ob, poison);
    ofdm_fft_io io = io0;
    if (!separate_buffers) {
        io.out = r.out.data();
        io.out_stride = out_stride;
        r.zeroed = process(io);
        return r;
    }
    std::vector<std::vector<unsigned char>> ins(c.channels), outs(c.channels);
    std::vector<const void*> in_ptrs(c.channels);
    std::vector<void*> out_ptrs(c.channels);
    for (int ch = 0; ch < c.channels; ch++) {
        const unsigned char* src = channel_input(io0, ch, ib);
        ins[ch].assign(src, src + in_len * ib);
        outs[ch].assign(per * ob, poison);
        in_ptrs[ch] = ins[ch].data();
        out_ptrs[ch] = outs[ch].data();
    }
    io.in = nullptr;
    io.in_channels = in_ptrs.data();
    io.out_channels = out_ptrs.data();
    r.zeroed = process(io);
    for (int ch = 0; ch < c.channels; ch++)
        std::copy(outs[ch].begin(), outs[ch].end(), r.out.begin() + ch * out_stride * ob);
    return r;
}

// `process` against the CPU reference: nsym symbols from `first` of random input.
inline void compare_with_reference(const ofdm_fft_config& c,
                                   std::size_t first,
                                   std::size_t nsym,
                                   std::mt19937_64& rng,
                                   const ofdm_process& process,
                                   bool separate_buffers = false)
{
    const ofdm_fft_layout lay(c);
    const std::size_t in_len = lay.in_samples(first, nsym);
    const std::size_t in_stride = in_len + 5,
                      out_stride = lay.out_samples(first, nsym) + 3;
    const std::vector<unsigned char> in =
        random_input(rng, c.input, c.channels * in_stride, 0.5f);
    ofdm_fft_io io;
    io.in = in.data();
    io.in_stride = in_stride;
    io.first_symbol = first;
    io.nsym = nsym;
    cpu_ofdm_fft ref(c);
    const ofdm_process reference = [&](const ofdm_fft_io& x) { return ref.process(x); };
    const ofdm_run want = run_poisoned(c, io, out_stride, 0, false, reference);
    const ofdm_run a = run_poisoned(c, io, out_stride, 0x00, separate_buffers, process);
    const ofdm_run b = run_poisoned(c, io, out_stride, 0xff, separate_buffers, process);
    const std::string what =
        "fft_len " + std::to_string(c.fft_len) + " channels " +
        std::to_string(c.channels) + " " + to_string(c.input) + "->" +
        to_string(c.output) +
        (c.direction == fft_direction::forward ? " forward" : " inverse") +
        (separate_buffers ? " separate buffers" : "");
    // Every sample of every channel written: identical under two poisons. The gaps
    // between channels (out_stride > a channel) untouched: still their poison.
    const std::size_t per = lay.out_samples(first, nsym), ob = bytes_per_sample(c.output);
    for (int ch = 0; ch < c.channels; ch++) {
        const std::size_t at = ch * out_stride * ob;
        ASSERT_EQ(std::memcmp(a.out.data() + at, b.out.data() + at, per * ob), 0)
            << what << ": channel " << ch << " not fully written";
        if (ch + 1 < c.channels)
            for (std::size_t k = at + per * ob; k < (ch + 1) * out_stride * ob; k++)
                ASSERT_TRUE(a.out[k] == 0x00 && b.out[k] == 0xff)
                    << what << ": gap written";
    }
    EXPECT_EQ(a.zeroed, 0u);
    double err = 0, pow = 0;
    std::size_t steps_off = 0, worst_steps = 0;
    const double step = c.output == sample_format::sc8    ? 1.0 / 128
                        : c.output == sample_format::sc16 ? 1.0 / 32768
                                                          : 0;
    for (int ch = 0; ch < c.channels; ch++)
        for (std::size_t i = 0; i < per; i++) {
            const std::size_t k = ch * out_stride + i;
            const std::complex<float> g = decode_sample(c.output, a.out.data(), k);
            const std::complex<float> w = decode_sample(c.output, want.out.data(), k);
            err += std::norm(g - w);
            pow += std::norm(w);
            if (step > 0) {
                const std::size_t d =
                    std::size_t(std::lround(std::max(std::abs(g.real() - w.real()),
                                                     std::abs(g.imag() - w.imag())) /
                                            step));
                worst_steps = std::max(worst_steps, d);
                steps_off += d > 0;
            }
        }
    const double rel = std::sqrt(err / pow);
    std::printf("[ ofdm     ] %s: relative error %.2e\n", what.c_str(), rel);
    if (c.output == sample_format::fc32) {
        EXPECT_LT(rel, 1e-5) << what;
    } else if (c.output == sample_format::fc16) {
        // Each side rounds to 11 bits; the float sums before that differ by ~1e-6.
        EXPECT_LT(rel, 2 * std::ldexp(1.0, -11)) << what;
    } else {
        // Both round the same value to a step; float sums that differ by ~1e-6 of the
        // value can land on either side of a rounding boundary: one step, rarely.
        EXPECT_LE(worst_steps, 1u) << what;
        EXPECT_LE(steps_off, c.channels * per / 50 + 1) << what;
    }
}

// Every input/output format pair in both directions: 256 points, LTE-like, 2 channels,
// the inverse scaled so that nothing clips.
inline void for_every_format_pair(const std::function<void(const ofdm_fft_config&)>& run)
{
    const sample_format all[] = {
        sample_format::fc32, sample_format::fc16, sample_format::sc16, sample_format::sc8
    };
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse })
        for (sample_format in : all)
            for (sample_format out : all) {
                ofdm_fft_config c = lte_like(256, dir);
                c.channels = 2;
                c.input = in;
                c.output = out;
                if (dir == fft_direction::inverse)
                    c.scale = 0.25f / std::sqrt(float(c.carriers.size())); // no clipping
                run(c);
            }
}

// The reference and make(c) on `in` (nsym symbols from 0, the channels back to back):
// both count two zeroed symbols; outputs where zeroed_at(i) holds are zeros, the others
// the reference's within 1e-5 relative. `rel`: the relative error over all outputs.
inline void
expect_two_symbols_zeroed(const ofdm_fft_config& c,
                          const std::vector<unsigned char>& in,
                          std::size_t nsym,
                          const std::function<ofdm_process(const ofdm_fft_config&)>& make,
                          const std::function<bool(std::size_t)>& zeroed_at,
                          double& rel)
{
    using cf = std::complex<float>;
    const ofdm_fft_layout lay(c);
    const std::size_t len = lay.in_samples(0, nsym), out_len = lay.out_samples(0, nsym);
    std::vector<cf> want(c.channels * out_len), got(want.size(), cf(NAN, NAN));
    EXPECT_EQ(cpu_ofdm_fft(c).process({ in.data(), len, want.data(), out_len, 0, nsym }),
              2u);
    const ofdm_process process = make(c);
    EXPECT_EQ(process({ in.data(), len, got.data(), out_len, 0, nsym }), 2u);
    double err = 0, pow = 0;
    for (std::size_t i = 0; i < got.size(); i++) {
        if (zeroed_at(i))
            ASSERT_EQ(got[i], cf(0.f, 0.f)) << i;
        else
            ASSERT_LT(std::abs(got[i] - want[i]), 1e-5f * (1 + std::abs(want[i]))) << i;
        err += std::norm(got[i] - want[i]);
        pow += std::norm(want[i]);
    }
    rel = std::sqrt(err / pow);
}

// NaN and a finite sample beyond the input range (3e38: its transform overflowed to
// NaN carriers) in two symbols' bodies, and an Inf in a prefix, which is dropped: those
// two symbols come out as zeros and are counted, the others as the reference's.
// `make` builds the implementation under test for the configuration it is given.
inline void
check_non_finite_symbols(std::mt19937_64& rng,
                         const std::function<ofdm_process(const ofdm_fft_config&)>& make)
{
    using cf = std::complex<float>;
    ofdm_fft_config c = lte_like(128, fft_direction::forward);
    c.channels = 2;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 9, len = lay.in_samples(0, nsym);
    std::vector<unsigned char> in = random_input(rng, c.input, 2 * len, 0.5f);
    cf* x = reinterpret_cast<cf*>(in.data());
    x[len + lay.time_offset(0, 6) + lay.cp_of(6) + 3] = cf(NAN, 0.f);   // ch 1, symbol 6
    x[lay.time_offset(0, 2) + lay.cp_of(2) + 100] = cf(0.f, -3e38f); // ch 0, symbol 2
    x[lay.time_offset(0, 4) + 1] = cf(INFINITY, 0.f); // ch 0, symbol 4's prefix: ignored
    const std::size_t out_len = lay.out_samples(0, nsym), ncar = lay.carriers();
    double rel = 1;
    expect_two_symbols_zeroed(
        c,
        in,
        nsym,
        make,
        [&](std::size_t i) {
            return (i >= out_len + 6 * ncar && i < out_len + 7 * ncar) ||
                   (i >= 2 * ncar && i < 3 * ncar);
        },
        rel);
    EXPECT_LT(rel, 1e-5);
}

// The inverse's counterpart: a value just beyond the input range (2e15) in one
// carrier of one symbol, Inf in another's: those two symbols come out as zeros over
// their prefix and body and are counted, the others as the reference's.
inline void
check_non_finite_carriers(std::mt19937_64& rng,
                          const std::function<ofdm_process(const ofdm_fft_config&)>& make)
{
    using cf = std::complex<float>;
    ofdm_fft_config c = lte_like(128, fft_direction::inverse);
    c.channels = 2;
    c.scale = 0.25f / std::sqrt(float(c.carriers.size()));
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 9, len = lay.in_samples(0, nsym), ncar = lay.carriers();
    std::vector<unsigned char> in = random_input(rng, c.input, 2 * len, 0.5f);
    cf* x = reinterpret_cast<cf*>(in.data());
    x[len + 3 * ncar + 5] = cf(2e15f, 1.f);     // ch 1, symbol 3
    x[7 * ncar + ncar - 1] = cf(0.f, INFINITY); // ch 0, symbol 7, last carrier
    const std::size_t out_len = lay.out_samples(0, nsym);
    auto inside = [&](std::size_t i, std::size_t ch, std::size_t s) {
        const std::size_t from = ch * out_len + lay.time_offset(0, s);
        return i >= from && i < from + lay.cp_of(s) + std::size_t(c.fft_len);
    };
    double rel = 1;
    expect_two_symbols_zeroed(
        c, in, nsym, make, [&](std::size_t i) { return inside(i, 1, 3) || inside(i, 0, 7); }, rel);
}

} // namespace gpumimo_test

#endif
