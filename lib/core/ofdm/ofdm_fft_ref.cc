/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU reference of the OFDM FFT (ofdm_fft.h): every step of the definition, one
 * symbol of one channel at a time, the transform in double precision.
 */
#include <gnuradio/gpumimo/core/limits.h>
#include <gnuradio/gpumimo/core/ofdm/ofdm_fft.h>

#include <cmath>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

using cd = std::complex<double>;

int smallest_factor(std::size_t n)
{
    for (std::size_t p = 2; p * p <= n; p++)
        if (n % p == 0)
            return int(p);
    return int(n);
}

// out[k] = sum_j x[j * stride] w^(j k), w = e^(sign 2 pi i / n): split n = p * m into
// p interleaved sequences of length m (decimation in time), transform each, then
// combine: out[k + q m] = sum_r w^(r (k + q m)) sub_r[k].
void dft_recursive(const cd* x, std::size_t stride, std::size_t n, int sign, cd* out)
{
    if (n == 1) {
        out[0] = x[0];
        return;
    }
    const int p = smallest_factor(n);
    const std::size_t m = n / p;
    std::vector<cd> sub(n);
    for (int r = 0; r < p; r++)
        dft_recursive(x + r * stride, stride * p, m, sign, sub.data() + r * m);
    const double step = sign * 2.0 * M_PI / double(n);
    for (std::size_t k = 0; k < n; k++) {
        cd acc = 0;
        for (int r = 0; r < p; r++)
            acc += sub[r * m + k % m] * std::polar(1.0, step * double((r * k) % n));
        out[k] = acc;
    }
}

} // namespace

std::vector<cd> reference_dft(const std::vector<cd>& x, int sign)
{
    std::vector<cd> out(x.size());
    if (!x.empty())
        dft_recursive(x.data(), 1, x.size(), sign, out.data());
    return out;
}

cpu_ofdm_fft::cpu_ofdm_fft(const ofdm_fft_config& config)
    : d_config(config), d_layout(config)
{
}

std::size_t cpu_ofdm_fft::process(const ofdm_fft_io& io) const
{
    validate_io(d_layout, d_config.channels, io);
    const ofdm_fft_config& c = d_config;
    const int n = c.fft_len, ncar = d_layout.carriers();
    const bool forward = c.direction == fft_direction::forward;
    const std::size_t in_bytes = bytes_per_sample(c.input);
    const std::size_t out_bytes = bytes_per_sample(c.output);
    const auto window = [&](int t) { return c.window.empty() ? 1.0 : double(c.window[t]); };
    std::size_t zeroed = 0;
    std::vector<cd> x(n);
    for (int ch = 0; ch < c.channels; ch++) {
        const void* in = channel_input(io, ch, in_bytes);
        void* out = channel_output(io, ch, out_bytes);
        for (std::size_t s = 0; s < io.nsym; s++) {
            const std::size_t g = io.first_symbol + s;
            const int cp = d_layout.cp_of(g);
            const std::size_t t0 = d_layout.time_offset(io.first_symbol, s);
            bool finite = true;
            std::fill(x.begin(), x.end(), cd(0));
            if (forward) {
                for (int t = 0; t < n; t++) {
                    const std::complex<float> v = decode_sample(c.input, in, t0 + cp + t);
                    finite &= is_usable(v); // core/limits.h
                    x[t] = cd(v) * window(t);
                }
            } else {
                for (int j = 0; j < ncar; j++) {
                    const std::complex<float> v = decode_sample(c.input, in, s * ncar + j);
                    finite &= is_usable(v); // core/limits.h
                    x[d_layout.bin_of(j)] = cd(v);
                }
            }
            zeroed += !finite;
            const std::vector<cd> y = reference_dft(x, forward ? -1 : +1);
            const auto emit = [&](std::size_t index, cd v) {
                const std::complex<float> f =
                    finite ? std::complex<float>(v * double(c.scale)) : 0.f;
                encode_sample(c.output, f, out, index);
            };
            if (forward) {
                for (int j = 0; j < ncar; j++)
                    emit(s * ncar + j, y[d_layout.bin_of(j)]);
            } else {
                for (int t = 0; t < cp + n; t++) {
                    const int k = t < cp ? n - cp + t : t - cp; // the prefix repeats the tail
                    emit(t0 + t, y[k] * window(k));
                }
            }
        }
    }
    return zeroed;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
