/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The link simulator's fixed parts (layout, encoder, interleaver, noise rule) and the
 * CPU reference of its transmitter and channel, make_link_frame. The CUDA engine
 * (cuda/link/gpu_link_engine.cu) repeats make_link_frame from the same Philox counters.
 */
#include <gnuradio/gpumimo/core/link/link_simulator.h>
#include <gnuradio/gpumimo/core/philox.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

[[noreturn]] void bad(const std::string& what)
{
    throw std::invalid_argument("link simulator: " + what);
}

} // namespace

link_channel parse_link_channel(const std::string& name)
{
    if (name == "awgn")
        return link_channel::awgn;
    if (name == "rayleigh")
        return link_channel::rayleigh;
    if (name == "tdl")
        return link_channel::tdl;
    bad("unknown channel " + quoted_text(name) + " (awgn, rayleigh or tdl)");
}

std::string to_string(link_channel c)
{
    switch (c) {
    case link_channel::awgn:
        return "awgn";
    case link_channel::rayleigh:
        return "rayleigh";
    case link_channel::tdl:
        return "tdl";
    }
    return "?";
}

void link_config::validate() const
{
    if (nt < 1 || nt > max_nt)
        bad("nt must be 1.." + std::to_string(max_nt));
    if (nr < nt || nr > max_nr)
        bad("nr must be nt.." + std::to_string(max_nr));
    if (channel == link_channel::awgn && nr != nt)
        bad("the awgn channel (H = I) needs nr == nt");
    if (code.n == 0 && uncoded_frame_bits < 1)
        bad("uncoded_frame_bits must be >= 1");
    if (code.n != 0)
        decoder.validate();
    if (coherence_vectors < 0)
        bad("coherence_vectors must be >= 0");
    if (channel == link_channel::tdl) {
        if (tdl_fft_len < 1)
            bad("tdl_fft_len must be >= 1");
        if (tap_powers.empty() || int(tap_powers.size()) > tdl_fft_len)
            bad("tap_powers must have 1..tdl_fft_len taps");
        double sum = 0;
        for (double p : tap_powers) {
            if (!std::isfinite(p) || p < 0)
                bad("tap_powers must be finite and >= 0");
            sum += p;
        }
        if (!(sum > 0))
            bad("tap_powers must not all be 0");
        if (!tap_delays.empty() && tap_delays.size() != tap_powers.size())
            bad("tap_delays must be empty or one per tap");
        for (double d : tap_delays)
            if (!std::isfinite(d) || d < 0 || d >= tdl_fft_len)
                bad("tap_delays must be finite, >= 0 and below tdl_fft_len");
    }
    if (max_frames < 1)
        bad("max_frames must be >= 1");
    for (const int d : devices)
        if (d < 0)
            bad("devices must not be negative");
    if (backend != "cpu" && backend != "cuda" && backend != "auto")
        bad("backend must be cpu, cuda or auto, not " + quoted_text(backend));
}

link_setup::link_setup(const link_config& c) : config(c), constel(c.mod)
{
    config.validate();
    link_layout& l = layout;
    if (config.code.n != 0) {
        encoder = std::make_shared<ldpc_encoder>(config.code);
        l.n = config.code.n;
        l.k = encoder->k();
    } else {
        l.n = l.k = config.uncoded_frame_bits;
    }
    l.bits_per_vector = config.nt * constel.bits_per_symbol();
    l.vectors = (l.n + l.bits_per_vector - 1) / l.bits_per_vector;
    l.frame_bits = l.vectors * l.bits_per_vector;
    switch (config.channel) {
    case link_channel::awgn:
        l.group = l.vectors; // one H = I per frame
        break;
    case link_channel::rayleigh:
        l.group = config.coherence_vectors == 0 ? l.vectors : config.coherence_vectors;
        if (l.vectors % l.group != 0)
            bad("coherence_vectors (" + std::to_string(l.group) + ") must divide the " +
                std::to_string(l.vectors) + " vectors of a frame");
        break;
    case link_channel::tdl:
        l.group = 1; // every subcarrier its own H
        double sum = 0;
        for (double p : config.tap_powers)
            sum += p;
        for (double& p : config.tap_powers)
            p /= sum;
        break;
    }
    l.channels = l.vectors / l.group;

    // Fisher-Yates from Philox words, so that the permutation is the same everywhere.
    interleaver.resize(l.frame_bits);
    std::iota(interleaver.begin(), interleaver.end(), 0u);
    if (config.interleave) {
        for (std::uint32_t i = std::uint32_t(l.frame_bits) - 1; i > 0; i--) {
            const std::uint32_t word = link_words(config.seed, link_draw::interleaver, i, 0, 0).v[0];
            const auto j = std::uint32_t((std::uint64_t(word) * (i + 1)) >> 32);
            std::swap(interleaver[i], interleaver[j]);
        }
    }
}

float link_setup::noise_variance(double snr_db) const
{
    const double signal = config.channel == link_channel::awgn ? 1.0 : double(config.nt);
    return float(signal * std::pow(10.0, -snr_db / 10.0));
}

double link_setup::ebn0_db(double snr_db) const
{
    return snr_db + 10.0 * std::log10(double(config.nr) * layout.vectors / layout.k);
}

namespace {

philox_words draw(const link_setup& s,
                  link_draw purpose,
                  std::uint32_t index,
                  std::uint32_t point,
                  std::uint64_t frame)
{
    return link_words(s.config.seed, purpose, index, point, frame);
}

cf32 gaussian(const philox_words& w, float sigma)
{
    float a, b;
    philox_gaussian_pair(w.v[0], w.v[1], a, b);
    return { sigma * a, sigma * b };
}

} // namespace

void make_link_frame(const link_setup& s,
                     std::uint32_t point,
                     std::uint64_t frame,
                     float noise_var,
                     std::uint8_t* info,
                     std::uint8_t* frame_bits,
                     cf32* h,
                     cf32* y)
{
    const link_layout& l = s.layout;
    const link_config& c = s.config;
    const int nt = c.nt, nr = c.nr, m = s.constel.bits_per_symbol();

    // Source bits: the k information bits, then the padding's random bits.
    const int random_bits = l.k + (l.frame_bits - l.n);
    std::vector<std::uint8_t> source(random_bits);
    for (int i = 0; i < random_bits; i++) {
        const philox_words w = draw(s, link_draw::bits, std::uint32_t(i / 128), point, frame);
        source[i] = (w.v[(i / 32) % 4] >> (i % 32)) & 1u;
    }
    std::copy(source.begin(), source.begin() + l.k, info);
    std::vector<std::uint8_t> plain(l.frame_bits);
    if (s.coded())
        s.encoder->encode(info, plain.data());
    else
        std::copy(info, info + l.k, plain.begin());
    std::copy(source.begin() + l.k, source.end(), plain.begin() + l.n);
    for (int i = 0; i < l.frame_bits; i++)
        frame_bits[s.interleaver[i]] = plain[i];

    // Channel matrices.
    const float unit = float(std::sqrt(0.5));
    for (int ch = 0; ch < l.channels; ch++) {
        cf32* hc = h + std::size_t(ch) * nr * nt;
        for (int e = 0; e < nr * nt; e++) {
            switch (c.channel) {
            case link_channel::awgn:
                hc[e] = (e / nt == e % nt) ? cf32(1.0f) : cf32(0.0f);
                break;
            case link_channel::rayleigh:
                hc[e] = gaussian(
                    draw(s, link_draw::channel, std::uint32_t(ch * nr * nt + e), point, frame),
                    unit);
                break;
            case link_channel::tdl: {
                // H(sc) = sum_l tap_l e^{-2 pi i sc l / N}, sc = ch mod N.
                const int N = c.tdl_fft_len, sc = ch % N;
                cf32 acc(0.0f);
                for (int tap = 0; tap < int(c.tap_powers.size()); tap++) {
                    const cf32 g = gaussian(
                        draw(s, link_draw::taps, std::uint32_t(tap * nr * nt + e), point, frame),
                        float(std::sqrt(c.tap_powers[tap] / 2)));
                    // Sample-spaced taps: the integer product reduced exactly; continuous
                    // delays: in double, then the turn's float as there.
                    const float turns =
                        c.tap_delays.empty()
                            ? -2.0f * float((sc * tap) % N) / float(N)
                            : float(-2.0 * std::fmod(double(sc) * c.tap_delays[std::size_t(tap)], double(N)) / double(N));
                    const float angle = turns * 3.14159265358979f;
                    acc += g * cf32(std::cos(angle), std::sin(angle));
                }
                hc[e] = acc;
                break;
            }
            }
        }
    }

    // Symbols through the channel, plus noise.
    const float sigma = std::sqrt(noise_var / 2);
    std::vector<cf32> sym(nt);
    for (int v = 0; v < l.vectors; v++) {
        for (int t = 0; t < nt; t++) {
            int index = 0;
            for (int b = 0; b < m; b++)
                index = (index << 1) | frame_bits[v * l.bits_per_vector + t * m + b];
            sym[t] = cf32(s.constel.point(index) * s.constel.rotation(std::size_t(v))); // pi/2-BPSK: vector v is symbol v
        }
        const cf32* hv = h + std::size_t(v / l.group) * nr * nt;
        for (int r = 0; r < nr; r++) {
            cf32 acc =
                gaussian(draw(s, link_draw::noise, std::uint32_t(v * nr + r), point, frame),
                         sigma);
            for (int t = 0; t < nt; t++)
                acc += hv[r * nt + t] * sym[t];
            y[std::size_t(v) * nr + r] = acc;
        }
    }
}

link_counts& link_counts::operator+=(const link_counts& o)
{
    frames += o.frames;
    frame_errors += o.frame_errors;
    info_bits += o.info_bits;
    bit_errors += o.bit_errors;
    coded_bits += o.coded_bits;
    raw_bit_errors += o.raw_bit_errors;
    iterations += o.iterations;
    return *this;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
