/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT's CPU reference against an independent direct DFT on fresh random
 * symbols: prefix removal and insertion, carrier selection and shift, window, scale,
 * channels, the sample formats (with their quantisation bounds) and bad input.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/backend.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

using namespace gr::gpumimo::core;
using gpumimo_test::make_rng;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

// The definition, term by term: X[k] = sum_t x[t] e^{sign 2 pi i k t / N}.
std::vector<cd> direct_dft(const std::vector<cd>& x, int sign)
{
    const std::size_t n = x.size();
    std::vector<cd> out(n);
    for (std::size_t k = 0; k < n; k++) {
        cd acc = 0;
        for (std::size_t t = 0; t < n; t++)
            acc += x[t] * std::polar(1.0, sign * 2.0 * M_PI * double((k * t) % n) / n);
        out[k] = acc;
    }
    return out;
}

// numpy.fft.fftshift: the upper half (from N/2) first, then the lower half.
std::vector<cd> fftshift(const std::vector<cd>& x)
{
    std::vector<cd> out(x.begin() + x.size() / 2, x.end());
    out.insert(out.end(), x.begin(), x.begin() + x.size() / 2);
    return out;
}

std::vector<cf> random_samples(std::mt19937_64& rng, std::size_t n, float sigma)
{
    std::normal_distribution<float> g(0.f, sigma);
    std::vector<cf> v(n);
    for (cf& x : v)
        x = { g(rng), g(rng) };
    return v;
}

double rel_error(const std::vector<cd>& got, const std::vector<cd>& want)
{
    double e = 0, w = 0;
    for (std::size_t i = 0; i < want.size(); i++) {
        e += std::norm(got[i] - want[i]);
        w += std::norm(want[i]);
    }
    return std::sqrt(e / w);
}

// One channel of fc32 symbols through the reference, in c's direction.
std::vector<cf> reference(const ofdm_fft_config& c,
                          const std::vector<cf>& in,
                          std::size_t first,
                          std::size_t nsym)
{
    cpu_ofdm_fft f(c);
    std::vector<cf> out(f.layout().out_samples(first, nsym));
    ofdm_fft_io io;
    io.in = in.data();
    io.out = out.data();
    io.first_symbol = first;
    io.nsym = nsym;
    EXPECT_EQ(f.process(io), 0u);
    return out;
}

} // namespace

TEST(OfdmFft, ReferenceDftEqualsDirectSum)
{
    auto rng = make_rng(400);
    for (int n : { 16, 17, 64, 97, 100, 1536, 3072, 4096 }) {
        const std::vector<cf> r = random_samples(rng, n, 1.f);
        const std::vector<cd> x(r.begin(), r.end());
        for (int sign : { -1, +1 })
            EXPECT_LT(rel_error(reference_dft(x, sign), direct_dft(x, sign)), 1e-12)
                << n << " sign " << sign;
    }
}

TEST(OfdmFft, ForwardRemovesThePrefixShiftsSelectsAndScales)
{
    auto rng = make_rng(401);
    for (int n : { 64, 128, 1536 }) {
        ofdm_fft_config c;
        c.fft_len = n;
        c.cp_lengths = { n / 8 + 3, n / 16, n / 16 }; // a long first prefix, LTE-like
        c.shift = true;
        c.scale = 0.37f;
        std::vector<float> w(n);
        for (int t = 0; t < n; t++)
            w[t] = float(0.5 - 0.5 * std::cos(2 * M_PI * (t + 0.5) / n));
        c.window = w;
        for (int k = 2; k < n - 2; k += 3)
            c.carriers.push_back(k);
        const ofdm_fft_layout lay(c);
        const std::size_t first = 2, nsym = 5;
        const std::vector<cf> in = random_samples(rng, lay.time_samples(first, nsym), 1.f);
        const std::vector<cf> out = reference(c, in, first, nsym);
        ASSERT_EQ(out.size(), nsym * c.carriers.size());
        std::size_t t0 = 0;
        for (std::size_t s = 0; s < nsym; s++) {
            const int cp = c.cp_lengths[(first + s) % 3];
            std::vector<cd> body(n);
            for (int t = 0; t < n; t++)
                body[t] = cd(in[t0 + cp + t]) * double(w[t]);
            const std::vector<cd> spec = fftshift(direct_dft(body, -1));
            std::vector<cd> want, got;
            for (std::size_t j = 0; j < c.carriers.size(); j++) {
                want.push_back(spec[c.carriers[j]] * double(c.scale));
                got.push_back(cd(out[s * c.carriers.size() + j]));
            }
            EXPECT_LT(rel_error(got, want), 1e-6) << n << " symbol " << s;
            t0 += cp + n;
        }
        EXPECT_EQ(t0, in.size());
    }
}

TEST(OfdmFft, ThePrefixContentDoesNotMatter)
{
    auto rng = make_rng(402);
    ofdm_fft_config c;
    c.fft_len = 256;
    c.cp_lengths = { 40, 18 };
    const ofdm_fft_layout lay(c);
    std::vector<cf> a = random_samples(rng, lay.time_samples(1, 4), 1.f), b = a;
    std::size_t t0 = 0;
    for (std::size_t s = 0; s < 4; s++) {
        const int cp = lay.cp_of(1 + s);
        for (int t = 0; t < cp; t++)
            b[t0 + t] = cf(1e6f, -3e5f); // anything, even huge
        t0 += cp + 256;
    }
    EXPECT_EQ(reference(c, a, 1, 4), reference(c, b, 1, 4));
}

TEST(OfdmFft, InverseInsertsThePrefixAndForwardUndoesIt)
{
    auto rng = make_rng(403);
    for (int n : { 64, 2048, 3072 }) {
        ofdm_fft_config inv;
        inv.fft_len = n;
        inv.direction = fft_direction::inverse;
        inv.cp_lengths = { n * 10 / 128, n * 9 / 128, n * 9 / 128 };
        inv.shift = true;
        for (int k = n / 8; k < n - n / 8; k++)
            if (k != n / 2) // no DC
                inv.carriers.push_back(k);
        inv.scale = float(1.0 / std::sqrt(double(n)));
        const std::size_t first = 1, nsym = 4, ncar = inv.carriers.size();
        const std::vector<cf> carriers = random_samples(rng, nsym * ncar, 0.7f);
        const std::vector<cf> time = reference(inv, carriers, first, nsym);
        std::size_t t0 = 0;
        for (std::size_t s = 0; s < nsym; s++) {
            const int cp = inv.cp_lengths[(first + s) % 3];
            for (int t = 0; t < cp; t++)
                ASSERT_EQ(time[t0 + t], time[t0 + n + t]) << "prefix sample " << t;
            // The body is the inverse DFT of the spectrum with the carriers in place.
            std::vector<cd> spec(n, 0);
            for (std::size_t j = 0; j < ncar; j++)
                spec[inv.carriers[j]] = cd(carriers[s * ncar + j]);
            std::vector<cd> unshifted(n);
            for (int i = 0; i < n; i++) // undo fftshift: bin (i + N/2) % N holds index i
                unshifted[(i + n - n / 2) % n] = spec[i];
            const std::vector<cd> body = direct_dft(unshifted, +1);
            std::vector<cd> got(n), want(n);
            for (int t = 0; t < n; t++) {
                got[t] = cd(time[t0 + cp + t]);
                want[t] = body[t] * double(inv.scale);
            }
            EXPECT_LT(rel_error(got, want), 1e-6) << n << " symbol " << s;
            t0 += cp + n;
        }
        ofdm_fft_config fwd = inv;
        fwd.direction = fft_direction::forward;
        fwd.scale = float(1.0 / std::sqrt(double(n)));
        const std::vector<cf> back = reference(fwd, time, first, nsym);
        std::vector<cd> got(back.begin(), back.end()), want(carriers.begin(), carriers.end());
        EXPECT_LT(rel_error(got, want), 1e-5) << n;
    }
}

TEST(OfdmFft, ChannelsAreIndependentAtTheirStrides)
{
    auto rng = make_rng(404);
    ofdm_fft_config c;
    c.fft_len = 128;
    c.cp_lengths = { 9 };
    c.channels = 5;
    const ofdm_fft_layout lay(c);
    const std::size_t nsym = 3, in_len = lay.time_samples(0, nsym), out_len = nsym * 128;
    const std::size_t in_stride = in_len + 7, out_stride = out_len + 11;
    const std::vector<cf> in = random_samples(rng, 5 * in_stride, 1.f);
    std::vector<cf> out(5 * out_stride, cf(-7.f, -7.f));
    cpu_ofdm_fft f(c);
    ofdm_fft_io io{ in.data(), in_stride, out.data(), out_stride, 0, nsym };
    EXPECT_EQ(f.process(io), 0u);
    ofdm_fft_config one = c;
    one.channels = 1;
    for (int ch = 0; ch < 5; ch++) {
        const std::vector<cf> mine(in.begin() + ch * in_stride,
                                   in.begin() + ch * in_stride + in_len);
        const std::vector<cf> want = reference(one, mine, 0, nsym);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin() + ch * out_stride));
        for (std::size_t i = out_len; i < out_stride; i++) // the gap is not written
            EXPECT_EQ(out[ch * out_stride + i], cf(-7.f, -7.f));
    }
    // The same channels in buffers of their own (as a GNU Radio block has them).
    std::vector<std::vector<cf>> ins(5), outs(5, std::vector<cf>(out_len, cf(-7.f, -7.f)));
    std::vector<const void*> in_ptrs;
    std::vector<void*> out_ptrs;
    for (int ch = 0; ch < 5; ch++) {
        ins[ch].assign(in.begin() + ch * in_stride, in.begin() + ch * in_stride + in_len);
        in_ptrs.push_back(ins[ch].data());
        out_ptrs.push_back(outs[ch].data());
    }
    ofdm_fft_io sep;
    sep.in_channels = in_ptrs.data();
    sep.out_channels = out_ptrs.data();
    sep.nsym = nsym;
    EXPECT_EQ(f.process(sep), 0u);
    for (int ch = 0; ch < 5; ch++)
        EXPECT_TRUE(std::equal(outs[ch].begin(), outs[ch].end(), out.begin() + ch * out_stride))
            << "channel " << ch;
}

TEST(OfdmFft, HalfConversionRoundsToNearestEvenAndSaturates)
{
    for (std::uint32_t h = 0; h < 0x10000u; h++) {
        const float f = half_to_float(std::uint16_t(h));
        if (std::isfinite(f))
            ASSERT_EQ(float_to_half(f), h) << std::hex << h;
    }
    EXPECT_EQ(half_to_float(float_to_half(1.0f + std::ldexp(1.f, -11))), 1.0f); // tie: even
    EXPECT_EQ(half_to_float(float_to_half(1.0f + 3 * std::ldexp(1.f, -11))),
              1.0f + std::ldexp(1.f, -9));
    EXPECT_EQ(half_to_float(float_to_half(1e6f)), 65504.f);
    EXPECT_EQ(half_to_float(float_to_half(-INFINITY)), -65504.f);
    EXPECT_EQ(half_to_float(float_to_half(std::ldexp(1.f, -24))), std::ldexp(1.f, -24));
    EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
}

// Reduced-precision I/O. fc16 keeps 11 significant bits, so every component's error is
// at most 2^-11 of its magnitude: SQNR >= 20 log10(2^11) = 66.2 dB whatever the signal
// (output rounding, or input rounding carried through the linear, power-scaling DFT).
// sc8 rounds to steps of D = 1/128: an error within D/2 per component, uniform, so of
// power D^2/12 per component, and SQNR = P / (2 D^2 / 12) for output power P per sample;
// asserted 1 dB below that (the estimate over thousands of samples is far tighter).
TEST(OfdmFft, ReducedPrecisionFormatsMeetTheirQuantisationBounds)
{
    auto rng = make_rng(405);
    const int n = 512;
    ofdm_fft_config base;
    base.fft_len = n;
    base.cp_lengths = { 32 };
    base.scale = float(0.25 / std::sqrt(double(n))); // outputs of rms ~0.25: no clipping
    const std::size_t nsym = 16;
    const ofdm_fft_layout lay(base);
    const std::vector<cf> in = random_samples(rng, lay.time_samples(0, nsym), 0.7f);
    const std::vector<cf> exact = reference(base, in, 0, nsym);
    double p = 0;
    for (cf v : exact)
        p += std::norm(v);
    p /= exact.size();

    const auto sqnr_db = [&](const std::vector<cf>& got) {
        double e = 0;
        for (std::size_t i = 0; i < got.size(); i++)
            e += std::norm(got[i] - exact[i]);
        return 10 * std::log10(p * got.size() / e);
    };
    for (sample_format f : { sample_format::fc16, sample_format::sc8, sample_format::sc16 }) {
        ofdm_fft_config c = base;
        c.output = f;
        cpu_ofdm_fft fft(c);
        std::vector<unsigned char> raw(exact.size() * bytes_per_sample(f));
        ofdm_fft_io io{ in.data(), 0, raw.data(), 0, 0, nsym };
        fft.process(io);
        std::vector<cf> got(exact.size());
        double worst = 0;
        for (std::size_t i = 0; i < got.size(); i++) {
            got[i] = decode_sample(f, raw.data(), i);
            worst = std::max({ worst,
                               std::abs(double(got[i].real() - exact[i].real())),
                               std::abs(double(got[i].imag() - exact[i].imag())) });
        }
        const double s = sqnr_db(got);
        std::printf("[ sqnr     ] output %s: %.1f dB\n", to_string(f).c_str(), s);
        if (f == sample_format::fc16) {
            EXPECT_GE(s, 66.2);
        } else {
            const double step = f == sample_format::sc8 ? 1.0 / 128 : 1.0 / 32768;
            EXPECT_LE(worst, step / 2 * (1 + 1e-6)) << to_string(f);
            EXPECT_GE(s, 10 * std::log10(p / (2 * step * step / 12)) - 1.0) << to_string(f);
        }
    }
    // fc16 input: the same 66.2 dB bound through the transform.
    std::vector<std::uint16_t> half(2 * in.size());
    for (std::size_t i = 0; i < in.size(); i++)
        encode_sample(sample_format::fc16, in[i], half.data(), i);
    ofdm_fft_config c = base;
    c.input = sample_format::fc16;
    cpu_ofdm_fft fft(c);
    std::vector<cf> got(exact.size());
    ofdm_fft_io io{ half.data(), 0, got.data(), 0, 0, nsym };
    fft.process(io);
    const double s = sqnr_db(got);
    std::printf("[ sqnr     ] input fc16: %.1f dB\n", s);
    EXPECT_GE(s, 66.2);
}

TEST(OfdmFft, IntegerInputIsScaledExactly)
{
    // sc16 and sc8 codes are value * 32768 and value * 128: the same symbol given as
    // integers or as the floats they stand for gives the same output.
    auto rng = make_rng(406);
    std::uniform_int_distribution<int> code(-128, 127);
    ofdm_fft_config c;
    c.fft_len = 64;
    c.cp_lengths = { 16 };
    const std::size_t len = 80 * 3;
    std::vector<std::int8_t> s8(2 * len);
    std::vector<std::int16_t> s16(2 * len);
    std::vector<cf> f(len);
    for (std::size_t i = 0; i < len; i++) {
        const int a = code(rng), b = code(rng);
        s8[2 * i] = std::int8_t(a);
        s8[2 * i + 1] = std::int8_t(b);
        s16[2 * i] = std::int16_t(a * 256);
        s16[2 * i + 1] = std::int16_t(b * 256);
        f[i] = cf(a / 128.f, b / 128.f);
    }
    const std::vector<cf> want = reference(c, f, 0, 3);
    for (auto [fmt, data] : { std::pair<sample_format, const void*>{ sample_format::sc8, s8.data() },
                              { sample_format::sc16, s16.data() } }) {
        ofdm_fft_config ci = c;
        ci.input = fmt;
        cpu_ofdm_fft fft(ci);
        std::vector<cf> got(want.size());
        ofdm_fft_io io{ data, 0, got.data(), 0, 0, 3 };
        fft.process(io);
        EXPECT_EQ(got, want) << to_string(fmt);
    }
}

TEST(OfdmFft, NonFiniteSymbolsComeOutZeroAndAreCounted)
{
    auto rng = make_rng(407);
    ofdm_fft_config c;
    c.fft_len = 64;
    c.cp_lengths = { 8 };
    c.channels = 2;
    const std::size_t nsym = 4, len = 72 * nsym;
    std::vector<cf> in = random_samples(rng, 2 * len, 1.f);
    const std::vector<cf> clean_out = [&] {
        cpu_ofdm_fft f(c);
        std::vector<cf> out(2 * 64 * nsym);
        f.process({ in.data(), len, out.data(), 64 * nsym, 0, nsym });
        return out;
    }();
    in[len + 72 * 2 + 8 + 5] = cf(NAN, 0.f);      // channel 1, symbol 2, body
    in[72 * 3 + 2] = cf(0.f, INFINITY);            // channel 0, symbol 3, prefix: ignored
    cpu_ofdm_fft f(c);
    std::vector<cf> out(2 * 64 * nsym);
    EXPECT_EQ(f.process({ in.data(), len, out.data(), 64 * nsym, 0, nsym }), 1u);
    for (std::size_t i = 0; i < out.size(); i++) {
        const bool zeroed = i >= 64 * nsym + 64 * 2 && i < 64 * nsym + 64 * 3;
        if (zeroed)
            EXPECT_EQ(out[i], cf(0.f, 0.f)) << i;
        else
            EXPECT_EQ(out[i], clean_out[i]) << i;
    }
}

TEST(OfdmFft, BadConfigurationsAndBuffersAreRefused)
{
    const auto refused = [](auto change) {
        ofdm_fft_config c;
        change(c);
        EXPECT_THROW(validate(c), std::invalid_argument);
    };
    refused([](ofdm_fft_config& c) { c.fft_len = 8; });
    refused([](ofdm_fft_config& c) { c.fft_len = 1 << 17; });
    refused([](ofdm_fft_config& c) { c.channels = 0; });
    refused([](ofdm_fft_config& c) { c.cp_lengths = { 65 }; });
    refused([](ofdm_fft_config& c) { c.cp_lengths = { -1 }; });
    refused([](ofdm_fft_config& c) { c.window = std::vector<float>(63, 1.f); });
    refused([](ofdm_fft_config& c) { c.window = std::vector<float>(64, NAN); });
    refused([](ofdm_fft_config& c) { c.carriers = { 1, 64 }; });
    refused([](ofdm_fft_config& c) { c.carriers = { 3, 3 }; });
    refused([](ofdm_fft_config& c) { c.scale = INFINITY; });
    EXPECT_THROW(sample_format_from_string("cs16"), std::invalid_argument);

    ofdm_fft_config c;
    c.channels = 2;
    cpu_ofdm_fft f(c);
    std::vector<cf> in(128), out(128);
    EXPECT_THROW(f.process({ nullptr, 64, out.data(), 64, 0, 1 }), std::invalid_argument);
    EXPECT_THROW(f.process({ in.data(), 63, out.data(), 64, 0, 1 }), std::invalid_argument);
    EXPECT_NO_THROW(f.process({ in.data(), 64, out.data(), 64, 0, 1 }));
    EXPECT_NO_THROW(f.process({ nullptr, 0, nullptr, 0, 0, 0 })); // nothing to do
}

TEST(HostRegistration, RefusedRangesAreLeftAloneAndSayWhy)
{
    // The block page-locks its stream buffers where a GPU is usable; everywhere else the
    // registration must fail quietly (no exception), with a reason.
    std::vector<unsigned char> bytes(1 << 16, 7);
    std::string why;
    host_registration none(nullptr, 0, &why);
    EXPECT_FALSE(none.pinned());
    EXPECT_FALSE(why.empty());
    if (cuda_device_count() > 0)
        GTEST_SKIP() << "a GPU is usable here: tests/gpu covers registration";
    why.clear();
    host_registration r(bytes.data(), bytes.size(), &why);
    EXPECT_FALSE(r.pinned());
    EXPECT_FALSE(why.empty());
    host_registration moved(std::move(r));
    EXPECT_FALSE(moved.pinned());
}
