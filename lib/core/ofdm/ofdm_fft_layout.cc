/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT's configuration checks, layout and sample formats (ofdm_fft.h).
 */
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {
[[noreturn]] void bad(const std::string& what)
{
    throw std::invalid_argument("ofdm_fft: " + what);
}
} // namespace

std::size_t bytes_per_sample(sample_format f)
{
    switch (f) {
    case sample_format::fc32:
        return 8;
    case sample_format::fc16:
    case sample_format::sc16:
        return 4;
    case sample_format::sc8:
        return 2;
    }
    bad("unknown sample format");
}

std::string to_string(sample_format f)
{
    switch (f) {
    case sample_format::fc32:
        return "fc32";
    case sample_format::fc16:
        return "fc16";
    case sample_format::sc16:
        return "sc16";
    case sample_format::sc8:
        return "sc8";
    }
    return "?";
}

sample_format sample_format_from_string(const std::string& name)
{
    for (sample_format f :
         { sample_format::fc32, sample_format::fc16, sample_format::sc16, sample_format::sc8 })
        if (name == to_string(f))
            return f;
    bad("unknown sample format " + quoted_text(name) + " (fc32, fc16, sc16 or sc8)");
}

void validate(const ofdm_fft_config& c)
{
    if (c.fft_len < 16 || c.fft_len > 65536)
        bad("fft_len " + std::to_string(c.fft_len) + " outside 16 .. 65536");
    if (c.channels < 1 || c.channels > 64)
        bad("channels " + std::to_string(c.channels) + " outside 1 .. 64");
    if (c.cp_lengths.size() > std::size_t(kMaxCpPattern))
        bad("a cyclic-prefix pattern of at most " + std::to_string(kMaxCpPattern) +
            " symbols");
    for (int cp : c.cp_lengths)
        if (cp < 0 || cp > c.fft_len)
            bad("cyclic prefix " + std::to_string(cp) + " outside 0 .. fft_len");
    if (!c.window.empty()) {
        if (int(c.window.size()) != c.fft_len)
            bad("window of " + std::to_string(c.window.size()) + " taps, not fft_len");
        for (float w : c.window)
            if (!std::isfinite(w))
                bad("window taps must be finite");
    }
    std::vector<char> seen(c.fft_len, 0);
    for (int k : c.carriers) {
        if (k < 0 || k >= c.fft_len)
            bad("carrier " + std::to_string(k) + " outside 0 .. fft_len-1");
        if (seen[k]++)
            bad("carrier " + std::to_string(k) + " listed twice");
    }
    if (!std::isfinite(c.scale))
        bad("scale must be finite");
}

ofdm_fft_layout::ofdm_fft_layout(const ofdm_fft_config& c)
    : d_n(c.fft_len),
      d_ncar(c.carriers.empty() ? c.fft_len : int(c.carriers.size())),
      d_forward(c.direction == fft_direction::forward),
      d_cp(c.cp_lengths.empty() ? std::vector<int>{ 0 } : c.cp_lengths)
{
    validate(c);
    d_period_len = 0;
    for (int cp : d_cp)
        d_period_len += std::size_t(cp) + d_n;
    d_bins.resize(d_ncar);
    for (int j = 0; j < d_ncar; j++) {
        const int k = c.carriers.empty() ? j : c.carriers[j];
        d_bins[j] = c.shift ? (k + d_n - d_n / 2) % d_n : k;
    }
}

std::size_t ofdm_fft_layout::time_samples(std::size_t first, std::size_t nsym) const
{
    const std::size_t period = d_cp.size();
    std::size_t total = (nsym / period) * d_period_len;
    for (std::size_t s = 0; s < nsym % period; s++)
        total += std::size_t(cp_of(first + s)) + d_n;
    return total;
}

std::size_t ofdm_fft_layout::in_samples(std::size_t first, std::size_t nsym) const
{
    return d_forward ? time_samples(first, nsym) : carrier_samples(nsym);
}

std::size_t ofdm_fft_layout::out_samples(std::size_t first, std::size_t nsym) const
{
    return d_forward ? carrier_samples(nsym) : time_samples(first, nsym);
}

void validate_io(const ofdm_fft_layout& layout, int channels, const ofdm_fft_io& io)
{
    if (io.nsym == 0)
        return;
    for (int c = 0; c < channels; c++)
        if (!(io.in_channels ? io.in_channels[c] : io.in) ||
            !(io.out_channels ? io.out_channels[c] : io.out))
            bad("null input or output buffer (channel " + std::to_string(c) + ")");
    const std::size_t in_len = layout.in_samples(io.first_symbol, io.nsym);
    const std::size_t out_len = layout.out_samples(io.first_symbol, io.nsym);
    const bool in_short = !io.in_channels && io.in_stride < in_len;
    const bool out_short = !io.out_channels && io.out_stride < out_len;
    if (channels > 1 && (in_short || out_short))
        bad("channel stride (in " + std::to_string(io.in_stride) + ", out " +
            std::to_string(io.out_stride) + ") shorter than a channel's " +
            std::to_string(in_len) + " input and " + std::to_string(out_len) +
            " output samples");
}

// IEEE binary16 by hand (no CUDA here): round to nearest even, saturate to +-65504,
// NaN stays NaN.
std::uint16_t float_to_half(float x)
{
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
    const std::uint32_t mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return sign | 0x7e00u; // NaN
    if (mag >= 0x477ff000u)   // rounds to 65520 or more (or Inf): saturate
        return sign | 0x7bffu;
    if (mag < 0x38800000u) { // below 2^-14: a subnormal half (or zero)
        const float a = std::fabs(x) * 16777216.0f; // in units of 2^-24, exact
        return sign | std::uint16_t(std::nearbyint(a));
    }
    // Normal: drop 13 mantissa bits with round to nearest even.
    const std::uint32_t rebased = mag - (112u << 23);
    const std::uint32_t lsb = (rebased >> 13) & 1u;
    return sign | std::uint16_t((rebased + 0xfffu + lsb) >> 13);
}

float half_to_float(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const int exp = (h >> 10) & 0x1f;
    const std::uint32_t man = h & 0x3ffu;
    float v;
    if (exp == 0)
        v = std::ldexp(float(man), -24);
    else if (exp == 31)
        v = man ? std::numeric_limits<float>::quiet_NaN()
                : std::numeric_limits<float>::infinity();
    else
        v = std::ldexp(float(man | 0x400u), exp - 25);
    return sign ? -v : v;
}

namespace {
template <typename T>
T saturate_round(float v, float full_scale)
{
    const float lo = float(std::numeric_limits<T>::min());
    const float hi = float(std::numeric_limits<T>::max());
    const float r = std::nearbyint(v * full_scale); // ties to even (default mode)
    return T(std::isnan(r) ? 0.f : std::fmin(std::fmax(r, lo), hi));
}
} // namespace

std::complex<float> decode_sample(sample_format f, const void* base, std::size_t i)
{
    switch (f) {
    case sample_format::fc32:
        return static_cast<const std::complex<float>*>(base)[i];
    case sample_format::fc16: {
        const auto* p = static_cast<const std::uint16_t*>(base) + 2 * i;
        return { half_to_float(p[0]), half_to_float(p[1]) };
    }
    case sample_format::sc16: {
        const auto* p = static_cast<const std::int16_t*>(base) + 2 * i;
        return { p[0] / 32768.0f, p[1] / 32768.0f };
    }
    case sample_format::sc8: {
        const auto* p = static_cast<const std::int8_t*>(base) + 2 * i;
        return { p[0] / 128.0f, p[1] / 128.0f };
    }
    }
    bad("unknown sample format");
}

void encode_sample(sample_format f, std::complex<float> v, void* base, std::size_t i)
{
    switch (f) {
    case sample_format::fc32:
        static_cast<std::complex<float>*>(base)[i] = v;
        return;
    case sample_format::fc16: {
        auto* p = static_cast<std::uint16_t*>(base) + 2 * i;
        p[0] = float_to_half(v.real());
        p[1] = float_to_half(v.imag());
        return;
    }
    case sample_format::sc16: {
        auto* p = static_cast<std::int16_t*>(base) + 2 * i;
        p[0] = saturate_round<std::int16_t>(v.real(), 32768.0f);
        p[1] = saturate_round<std::int16_t>(v.imag(), 32768.0f);
        return;
    }
    case sample_format::sc8: {
        auto* p = static_cast<std::int8_t*>(base) + 2 * i;
        p[0] = saturate_round<std::int8_t>(v.real(), 128.0f);
        p[1] = saturate_round<std::int8_t>(v.imag(), 128.0f);
        return;
    }
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
