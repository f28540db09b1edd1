/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA OFDM FFT against the CPU reference on fresh random symbols: sizes 64 .. 4096
 * (powers of two, 1536, 3072), 1 .. 16 channels, every input and output format, both
 * directions, prefix patterns, carriers, shift and window; chunks over streams and over
 * a device list (the same device twice takes the multi-GPU path on one GPU); outputs
 * poisoned two ways and required identical (so every byte was written); bad input.
 * Skipped, and reported as skipped, where no CUDA device is usable.
 */
#include "gpu_test.h"
#include "test_util.h"

#include <gnuradio/gpumimo/core/gpu_ofdm_fft.h>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;

namespace {

using GpuOfdm = Gpu;

// Random input of `fmt` for the whole call (all channels, at their stride).
std::vector<unsigned char>
random_input(std::mt19937_64& rng, sample_format fmt, std::size_t samples, float sigma)
{
    std::normal_distribution<float> g(0.f, sigma);
    std::vector<unsigned char> raw(samples * bytes_per_sample(fmt));
    for (std::size_t i = 0; i < samples; i++)
        encode_sample(fmt, cf(g(rng), g(rng)), raw.data(), i);
    return raw;
}

struct run_result {
    std::vector<unsigned char> out;
    std::size_t zeroed;
};

template <typename F>
run_result run(const ofdm_fft_layout& lay, const ofdm_fft_config& c, const ofdm_fft_io& io0,
               std::size_t out_stride, unsigned char poison, F&& process)
{
    run_result r;
    const std::size_t per = lay.out_samples(io0.first_symbol, io0.nsym);
    r.out.assign((c.channels - 1) * out_stride * bytes_per_sample(c.output) +
                     per * bytes_per_sample(c.output),
                 poison);
    ofdm_fft_io io = io0;
    io.out = r.out.data();
    io.out_stride = out_stride;
    r.zeroed = process(io);
    return r;
}

// GPU (twice, different poison) against the CPU reference.
void compare(const ofdm_fft_config& c, std::size_t first, std::size_t nsym, std::size_t chunk,
             const std::vector<int>& devices, std::mt19937_64& rng)
{
    const ofdm_fft_layout lay(c);
    const std::size_t in_len = lay.in_samples(first, nsym);
    const std::size_t in_stride = in_len + 5, out_stride = lay.out_samples(first, nsym) + 3;
    const std::vector<unsigned char> in =
        random_input(rng, c.input, c.channels * in_stride, 0.5f);
    ofdm_fft_io io;
    io.in = in.data();
    io.in_stride = in_stride;
    io.first_symbol = first;
    io.nsym = nsym;
    cpu_ofdm_fft ref(c);
    gpu_ofdm_fft gpu(c, devices, chunk, 3);
    const run_result want =
        run(lay, c, io, out_stride, 0, [&](const ofdm_fft_io& x) { return ref.process(x); });
    const run_result a =
        run(lay, c, io, out_stride, 0x00, [&](const ofdm_fft_io& x) { return gpu.process(x); });
    const run_result b =
        run(lay, c, io, out_stride, 0xff, [&](const ofdm_fft_io& x) { return gpu.process(x); });
    const std::string what = "fft_len " + std::to_string(c.fft_len) + " channels " +
                             std::to_string(c.channels) + " " + to_string(c.input) + "->" +
                             to_string(c.output) +
                             (c.direction == fft_direction::forward ? " forward" : " inverse");
    // Every sample of every channel written: identical under two poisons. The gaps
    // between channels (out_stride > a channel) untouched: still their poison.
    const std::size_t per = lay.out_samples(first, nsym), ob = bytes_per_sample(c.output);
    for (int ch = 0; ch < c.channels; ch++) {
        const std::size_t at = ch * out_stride * ob;
        ASSERT_EQ(std::memcmp(a.out.data() + at, b.out.data() + at, per * ob), 0)
            << what << ": channel " << ch << " not fully written";
        if (ch + 1 < c.channels)
            for (std::size_t k = at + per * ob; k < (ch + 1) * out_stride * ob; k++)
                ASSERT_TRUE(a.out[k] == 0x00 && b.out[k] == 0xff) << what << ": gap written";
    }
    EXPECT_EQ(a.zeroed, 0u);
    double err = 0, pow = 0;
    std::size_t steps_off = 0, worst_steps = 0;
    const double step = c.output == sample_format::sc8 ? 1.0 / 128
                        : c.output == sample_format::sc16 ? 1.0 / 32768
                                                           : 0;
    for (int ch = 0; ch < c.channels; ch++)
        for (std::size_t i = 0; i < per; i++) {
            const std::size_t k = ch * out_stride + i;
            const cf g = decode_sample(c.output, a.out.data(), k);
            const cf w = decode_sample(c.output, want.out.data(), k);
            err += std::norm(g - w);
            pow += std::norm(w);
            if (step > 0) {
                const std::size_t d = std::size_t(std::lround(
                    std::max(std::abs(g.real() - w.real()), std::abs(g.imag() - w.imag())) / step));
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

ofdm_fft_config lte_like(int n, fft_direction dir)
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

} // namespace

TEST_F(GpuOfdm, ForwardEqualsReferenceAcrossSizesAndChannels)
{
    auto rng = make_rng(500);
    for (int n : { 64, 128, 512, 1536, 2048, 3072, 4096 })
        for (int channels : { 1, 3, 16 }) {
            ofdm_fft_config c = lte_like(n, fft_direction::forward);
            c.channels = channels;
            c.input = sample_format::sc16;
            compare(c, 1, channels == 16 ? 5 : 9, 4, { 0 }, rng);
        }
}

TEST_F(GpuOfdm, EveryFormatBothDirections)
{
    auto rng = make_rng(501);
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
                compare(c, 3, 7, 3, { 0 }, rng);
            }
}

TEST_F(GpuOfdm, WindowNoShiftAllCarriersNoPrefix)
{
    auto rng = make_rng(502);
    for (fft_direction dir : { fft_direction::forward, fft_direction::inverse }) {
        ofdm_fft_config c;
        c.fft_len = 1024;
        c.direction = dir;
        c.channels = 4;
        for (int t = 0; t < 1024; t++)
            c.window.push_back(float(0.54 - 0.46 * std::cos(2 * M_PI * t / 1023)));
        compare(c, 0, 6, 4, { 0 }, rng);
        c.cp_lengths = { 0, 72 };
        compare(c, 5, 6, 5, { 0 }, rng);
    }
}

TEST_F(GpuOfdm, ChunksOverStreamsAndDevices)
{
    // 37 symbols in chunks of 1, 2, 5 and 64 (binary batch splits of every size), over
    // one device and over the device list {0, 0}: chunks alternate between the two
    // device contexts, as with two GPUs.
    auto rng = make_rng(503);
    for (std::size_t chunk : { 1, 2, 5, 64 })
        for (const std::vector<int>& devs : { std::vector<int>{ 0 }, std::vector<int>{ 0, 0 } }) {
            ofdm_fft_config c = lte_like(128, fft_direction::forward);
            c.channels = 3;
            c.input = sample_format::sc8;
            compare(c, 2, 37, chunk, devs, rng);
        }
}

TEST_F(GpuOfdm, PinnedBuffersEqualPageable)
{
    auto rng = make_rng(504);
    ofdm_fft_config c = lte_like(512, fft_direction::forward);
    c.channels = 2;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 40, in_len = lay.in_samples(0, nsym), out_len = lay.out_samples(0, nsym);
    const std::vector<unsigned char> in = random_input(rng, c.input, 2 * in_len, 0.5f);
    gpu_ofdm_fft gpu(c, { 0 }, 7, 3);
    std::vector<cf> pageable(2 * out_len);
    gpu.process({ in.data(), in_len, pageable.data(), out_len, 0, nsym });
    void *pin_in, *pin_out;
    ASSERT_EQ(cudaMallocHost(&pin_in, in.size()), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pin_out, pageable.size() * sizeof(cf)), cudaSuccess);
    std::memcpy(pin_in, in.data(), in.size());
    std::memset(pin_out, 0xff, pageable.size() * sizeof(cf));
    gpu.process({ pin_in, in_len, pin_out, out_len, 0, nsym });
    EXPECT_EQ(std::memcmp(pin_out, pageable.data(), pageable.size() * sizeof(cf)), 0);
    cudaFreeHost(pin_in);
    cudaFreeHost(pin_out);
}

TEST_F(GpuOfdm, NonFiniteSymbolsComeOutZeroAndAreCounted)
{
    auto rng = make_rng(505);
    ofdm_fft_config c = lte_like(128, fft_direction::forward);
    c.channels = 2;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 9, len = lay.in_samples(0, nsym);
    std::vector<unsigned char> in = random_input(rng, c.input, 2 * len, 0.5f);
    cf* x = reinterpret_cast<cf*>(in.data());
    x[len + lay.time_offset(0, 6) + lay.cp_of(6) + 3] = cf(NAN, 0.f); // ch 1, symbol 6
    x[lay.time_offset(0, 2) + lay.cp_of(2) + 100] = cf(0.f, -INFINITY); // ch 0, symbol 2
    x[lay.time_offset(0, 4) + 1] = cf(INFINITY, 0.f); // ch 0, symbol 4's prefix: ignored
    cpu_ofdm_fft ref(c);
    gpu_ofdm_fft gpu(c, { 0 }, 4, 2);
    const std::size_t out_len = lay.out_samples(0, nsym);
    std::vector<cf> want(2 * out_len), got(2 * out_len, cf(NAN, NAN));
    EXPECT_EQ(ref.process({ in.data(), len, want.data(), out_len, 0, nsym }), 2u);
    EXPECT_EQ(gpu.process({ in.data(), len, got.data(), out_len, 0, nsym }), 2u);
    const std::size_t ncar = lay.carriers();
    for (std::size_t j = 0; j < ncar; j++) {
        EXPECT_EQ(got[out_len + 6 * ncar + j], cf(0.f, 0.f));
        EXPECT_EQ(got[2 * ncar + j], cf(0.f, 0.f));
    }
    double err = 0, pow = 0;
    for (std::size_t i = 0; i < got.size(); i++) {
        err += std::norm(got[i] - want[i]);
        pow += std::norm(want[i]);
    }
    EXPECT_LT(std::sqrt(err / pow), 1e-5);
}

TEST_F(GpuOfdm, BadArgumentsAreRefused)
{
    ofdm_fft_config c;
    EXPECT_THROW(gpu_ofdm_fft(c, {}), std::invalid_argument);
    EXPECT_THROW(gpu_ofdm_fft(c, { 99 }), std::invalid_argument);
    c.fft_len = 7;
    EXPECT_THROW(gpu_ofdm_fft(c, { 0 }), std::invalid_argument);
    c.fft_len = 64;
    c.channels = 2;
    gpu_ofdm_fft gpu(c, { 0 });
    std::vector<cf> in(128), out(128);
    EXPECT_THROW(gpu.process({ in.data(), 10, out.data(), 64, 0, 1 }), std::invalid_argument);
    EXPECT_EQ(gpu.process({ in.data(), 64, out.data(), 64, 0, 1 }), 0u);
}
