/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The OFDM FFT on the CPU through FFTW (single precision): the GNU Radio block's path
 * without a GPU. The same steps as the reference (ofdm_fft_ref.cc), in float, with one
 * FFTW plan executed on each symbol in turn.
 */
#include <gnuradio/gpumimo/core/ofdm/fftw_ofdm_fft.h>
#include <gnuradio/gpumimo/core/limits.h>

#include <fftw3.h>

#include <cmath>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

bool fftw_available(std::string* why)
{
    if (why)
        why->clear();
    return true;
}

namespace {
// FFTW's planner is not thread-safe; executing plans is. Our plans are made under this
// lock; GNU Radio's fft blocks plan under their own, at flowgraph construction, as ours.
std::mutex& planner_mutex()
{
    static std::mutex m;
    return m;
}
} // namespace

struct fftw_ofdm_fft::impl {
    ofdm_fft_config config;
    ofdm_fft_layout layout;
    std::complex<float>* symbol = nullptr; // fftwf_malloc'ed: the plan's alignment
    fftwf_plan plan = nullptr;

    explicit impl(const ofdm_fft_config& c) : config(c), layout(c)
    {
        const int n = c.fft_len;
        std::lock_guard<std::mutex> lock(planner_mutex());
        symbol =
            static_cast<std::complex<float>*>(fftwf_malloc(n * sizeof(fftwf_complex)));
        if (!symbol)
            throw std::bad_alloc();
        fftwf_complex* p = reinterpret_cast<fftwf_complex*>(symbol);
        plan = fftwf_plan_dft_1d(n,
                                 p,
                                 p,
                                 c.direction == fft_direction::forward ? FFTW_FORWARD
                                                                       : FFTW_BACKWARD,
                                 FFTW_MEASURE);
        if (!plan) {
            fftwf_free(symbol);
            throw std::runtime_error("fftwf_plan_dft_1d failed for " + std::to_string(n) +
                                     " points");
        }
    }
    ~impl()
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        fftwf_destroy_plan(plan);
        fftwf_free(symbol);
    }

    float window(int t) const { return config.window.empty() ? 1.0f : config.window[t]; }

    // Transforms one symbol of one channel; returns whether its input was finite.
    bool symbol_out(const void* in, void* out, std::size_t first, std::size_t s)
    {
        const ofdm_fft_config& c = config;
        const int n = c.fft_len, ncar = layout.carriers();
        const bool forward = c.direction == fft_direction::forward;
        const int cp = layout.cp_of(first + s);
        const std::size_t t0 = layout.time_offset(first, s);
        bool finite = true;
        if (forward) {
            for (int t = 0; t < n; t++) {
                const std::complex<float> v = decode_sample(c.input, in, t0 + cp + t);
                finite &= is_usable(v); // core/limits.h
                symbol[t] = v * window(t);
            }
        } else {
            std::fill(symbol, symbol + n, std::complex<float>(0));
            for (int j = 0; j < ncar; j++) {
                const std::complex<float> v = decode_sample(c.input, in, s * ncar + j);
                finite &= is_usable(v); // core/limits.h
                symbol[layout.bin_of(j)] = v;
            }
        }
        if (finite)
            fftwf_execute(plan);
        else // zeros out (NaN times a zero scale would stay NaN)
            std::fill(symbol, symbol + n, std::complex<float>(0));
        const float scale = c.scale;
        if (forward) {
            for (int j = 0; j < ncar; j++)
                encode_sample(
                    c.output, symbol[layout.bin_of(j)] * scale, out, s * ncar + j);
        } else {
            for (int t = 0; t < cp + n; t++) {
                const int k = t < cp ? n - cp + t : t - cp; // the prefix repeats the tail
                encode_sample(c.output, symbol[k] * (window(k) * scale), out, t0 + t);
            }
        }
        return finite;
    }
};

fftw_ofdm_fft::fftw_ofdm_fft(const ofdm_fft_config& config)
    : d_impl(std::make_unique<impl>(config))
{
}
fftw_ofdm_fft::~fftw_ofdm_fft() = default;
const ofdm_fft_layout& fftw_ofdm_fft::layout() const { return d_impl->layout; }

std::size_t fftw_ofdm_fft::process(const ofdm_fft_io& io)
{
    const ofdm_fft_config& c = d_impl->config;
    validate_io(d_impl->layout, c.channels, io);
    const std::size_t ib = bytes_per_sample(c.input), ob = bytes_per_sample(c.output);
    std::size_t zeroed = 0;
    for (int ch = 0; ch < c.channels; ch++)
        for (std::size_t s = 0; s < io.nsym; s++)
            zeroed += !d_impl->symbol_out(channel_input(io, ch, ib),
                                          channel_output(io, ch, ob),
                                          io.first_symbol,
                                          s);
    return zeroed;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
