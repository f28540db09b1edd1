/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Nt-to-Nr channel simulator: a tapped delay line, fixed or fading in time (sum of
 * sinusoids, Jakes' spectrum), carrier and timing offsets, AWGN at a set SNR; the path
 * models' taps (mimo_channel_paths.cc) and the radio's impairments.
 */
#include <gnuradio/gpumimo/core/detect/detector.h>
#include <gnuradio/gpumimo/core/link/mimo_channel.h>
#include <gnuradio/gpumimo/core/quoted.h>

#include "link/path_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

std::vector<std::string> channel_model_names()
{
    std::vector<std::string> names{ "taps", "paths" };
    for (const std::string& m : tdl_model_names())
        names.push_back(m);
    return names;
}

void validate(const channel_params& p)
{
    auto bad = [](const std::string& what) {
        throw std::invalid_argument("channel_params: " + what);
    };
    if (p.tx < 1 || p.rx < 1)
        bad("tx and rx must be >= 1");
    const std::vector<std::string> models = channel_model_names();
    if (std::find(models.begin(), models.end(), p.model) == models.end())
        bad("unknown model " + quoted_text(p.model) +
            " (choose taps, paths, tdl-a, tdl-b, tdl-c, tdl-d or tdl-e)");
    if (p.model == "taps") {
        if (p.tap_powers.empty())
            bad("tap_powers must not be empty");
        double sum = 0;
        for (double w : p.tap_powers) {
            if (!(w >= 0) || !std::isfinite(w))
                bad("tap_powers must be finite and >= 0");
            sum += w;
        }
        if (!(sum > 0))
            bad("tap_powers must not all be 0");
        if (p.rx_correlation != 0 || p.tx_correlation != 0)
            bad("antenna correlation needs a path model (tdl-a .. tdl-e or paths), not taps");
        if (p.impairments.sco_ppm != 0)
            bad("a sample clock offset needs a path model (tdl-a .. tdl-e or paths), not taps");
    } else {
        validate_paths(p);
    }
    if (!(p.rx_correlation >= 0 && p.rx_correlation < 1) ||
        !(p.tx_correlation >= 0 && p.tx_correlation < 1))
        bad("rx_correlation and tx_correlation must be in [0, 1)");
    const radio_impairments& m = p.impairments;
    if (!(std::abs(m.sco_ppm) <= max_sco_ppm))
        bad("impairments.sco_ppm must be within +-" + std::to_string(int(max_sco_ppm)) + " ppm");
    if (!(m.phase_noise_var >= 0 && m.phase_noise_var <= 1))
        bad("impairments.phase_noise_var must be in [0, 1] rad^2 a sample");
    if (!(std::abs(m.iq_gain_db) <= 10))
        bad("impairments.iq_gain_db must be within +-10 dB");
    if (!(std::abs(m.iq_phase_deg) <= 30))
        bad("impairments.iq_phase_deg must be within +-30 degrees");
    if (!(m.dc_dbc <= 20)) // -inf passes: no DC; NaN and +inf do not
        bad("impairments.dc_dbc must be -inf (none) or at most 20 dB");
    if (!(p.snr_db >= min_snr_db && p.snr_db <= max_snr_db)) // the noise finite and > 0
        bad("snr_db must be from " + std::to_string(int(min_snr_db)) + " to " +
            std::to_string(int(max_snr_db)) + " dB");
    if (!std::isfinite(p.cfo))
        bad("cfo must be finite");
    if (!(p.doppler >= 0 && p.doppler <= 0.5))
        bad("doppler must be 0 to 0.5 cycles per sample");
    if (p.delay < 0 || p.delay > max_delay_samples)
        bad("delay must be from 0 to " + std::to_string(max_delay_samples) + " samples");
}

mimo_channel::mimo_channel(const channel_params& p) : d_p(p), d_rng(p.seed)
{
    validate(p);
    setup_radio();
    if (p.model != "taps") {
        setup_paths();
        restart();
        return;
    }
    double sum = 0;
    for (double w : p.tap_powers)
        sum += w;
    const int L = int(p.tap_powers.size());
    d_L = L;
    d_taps.resize(std::size_t(p.rx) * p.tx * L);
    if (p.doppler > 0) {
        // Sum of sinusoids: arrival angle and phase uniform per sinusoid.
        const int M = doppler_sinusoids;
        std::uniform_real_distribution<double> angle(0.0, 2 * M_PI);
        d_start.resize(d_taps.size() * M);
        d_step.resize(d_taps.size() * M);
        d_amplitude.resize(d_taps.size());
        for (std::size_t i = 0; i < d_taps.size(); i++) {
            d_amplitude[i] = std::sqrt(p.tap_powers[i % std::size_t(L)] / sum / M);
            for (int m = 0; m < M; m++) {
                const double a = angle(d_rng);
                d_step[i * M + m] = std::polar(1.0, 2 * M_PI * p.doppler * std::cos(a));
                d_start[i * M + m] = std::polar(1.0, angle(d_rng));
            }
        }
    } else {
        std::normal_distribution<double> g(0.0, 1.0);
        for (int r = 0; r < p.rx; r++)
            for (int k = 0; k < p.tx; k++)
                for (int l = 0; l < L; l++) {
                    const double sd = std::sqrt(p.tap_powers[l] / sum / 2);
                    d_taps[(std::size_t(r) * p.tx + k) * L + l] =
                        std::complex<float>(float(sd * g(d_rng)), float(sd * g(d_rng)));
                }
    }
    restart();
}

void mimo_channel::start_taps()
{
    d_phasor = d_start;
    const int M = doppler_sinusoids;
    for (std::size_t i = 0; i < d_amplitude.size(); i++) {
        std::complex<double> h = 0;
        for (int m = 0; m < M; m++)
            h += d_phasor[i * M + m];
        d_taps[i] = std::complex<float>(d_amplitude[i] * h);
    }
}

void mimo_channel::move_taps()
{
    // Each phasor turned by its step: one multiply per sinusoid and sample. In double:
    // the rounding grows about 1e-16 per step, 1e-8 after 10^8 samples.
    const int M = doppler_sinusoids;
    for (std::size_t i = 0; i < d_amplitude.size(); i++) {
        std::complex<double> h = 0;
        for (int m = 0; m < M; m++) {
            std::complex<double>& z = d_phasor[i * M + m];
            z *= d_step[i * M + m];
            h += z;
        }
        d_taps[i] = std::complex<float>(d_amplitude[i] * h);
    }
}

void mimo_channel::restart()
{
    const std::size_t memory = std::size_t(d_p.delay) + std::size_t(d_L) - 1;
    d_history.assign(std::size_t(d_p.tx), std::vector<std::complex<float>>(memory));
    d_time = 0;
    std::fill(d_phase.begin(), d_phase.end(), 0.0);
    if (!d_amplitude.empty())
        start_taps();
    if (!d_paths.empty())
        path_taps(0);
}

void mimo_channel::set_snr_db(double snr_db)
{
    channel_params p = d_p;
    p.snr_db = snr_db;
    validate(p);
    d_p.snr_db = snr_db;
}

void mimo_channel::set_impairments(const radio_impairments& m)
{
    if (m.sco_ppm != d_p.impairments.sco_ppm)
        throw std::invalid_argument("mimo_channel: the sample clock offset cannot change in a "
                                    "running channel (make a new one)");
    channel_params p = d_p;
    p.impairments = m;
    validate(p);
    d_p.impairments = m;
    setup_radio();
}

void mimo_channel::set_cfo(double cfo)
{
    channel_params p = d_p;
    p.cfo = cfo;
    validate(p);
    d_p.cfo = cfo;
}

double mimo_channel::stream_noise_var(double signal_power) const
{
    return double(d_p.tx) * signal_power / std::pow(10.0, d_p.snr_db / 10);
}

void mimo_channel::check_finite(const std::complex<float>* const* in, std::size_t n) const
{
    for (int k = 0; k < d_p.tx; k++)
        for (std::size_t t = 0; t < n; t++)
            if (!is_usable(in[k][t]))
                throw std::invalid_argument("mimo_channel: non-finite input sample " +
                                            std::to_string(t) + " of stream " +
                                            std::to_string(k));
}

void mimo_channel::propagate(const std::complex<float>* const* in,
                             std::complex<float>* const* out,
                             std::size_t n)
{
    const int L = d_L;
    const std::size_t memory = d_history.empty() ? 0 : d_history[0].size();
    // Stream k's samples as one array: the history, then this call's input; output t
    // reads x_k[t - delay - l], at index memory + t - delay - l.
    std::vector<std::vector<std::complex<float>>> x(std::size_t(d_p.tx));
    for (int k = 0; k < d_p.tx; k++) {
        x[k] = d_history[k];
        x[k].insert(x[k].end(), in[k], in[k] + n);
    }
    for (std::size_t t = 0; t < n; t++) {
        // The phase of the signal's own time, t - delay; in double, since t grows.
        const double signal_time = double(d_time + t) - double(d_p.delay);
        const std::complex<double> rotation =
            std::polar(1.0, 2 * M_PI * std::remainder(d_p.cfo * signal_time, 1.0));
        for (int r = 0; r < d_p.rx; r++) {
            std::complex<double> acc = 0;
            for (int k = 0; k < d_p.tx; k++)
                for (int l = 0; l < L; l++)
                    acc += std::complex<double>(d_taps[(std::size_t(r) * d_p.tx + k) * L + l]) *
                           std::complex<double>(x[k][memory + t - d_p.delay - l]);
            out[r][t] = std::complex<float>(acc * rotation);
        }
        if (!d_amplitude.empty())
            move_taps();
        else if (d_paths_move && (d_time + t + 1) % std::uint64_t(d_update) == 0)
            path_taps(d_time + t + 1);
    }
    for (int k = 0; k < d_p.tx; k++)
        d_history[k].assign(x[k].end() - memory, x[k].end());
    d_time += n;
}

void mimo_channel::add_noise(std::complex<float>* const* out, std::size_t n, double noise_var)
{
    if (!(noise_var > 0))
        return;
    // Sample by sample over the antennas, from one distribution kept across calls (it
    // holds the second value of each pair it draws), the real part drawn first: a
    // stream cut anywhere gets the same noise, so that a flowgraph repeats whatever
    // its call sizes (antenna by antenna with a distribution per call, the noise
    // depended on where GNU Radio cut the stream).
    const double sd = std::sqrt(noise_var / 2);
    for (std::size_t t = 0; t < n; t++)
        for (int r = 0; r < d_p.rx; r++) {
            const double re = d_noise(d_rng);
            const double im = d_noise(d_rng);
            out[r][t] += std::complex<float>(float(sd * re), float(sd * im));
        }
}

void mimo_channel::process(const std::complex<float>* const* in,
                           std::complex<float>* const* out,
                           std::size_t n,
                           double noise_var)
{
    if (!std::isfinite(noise_var) || noise_var < 0)
        throw std::invalid_argument("mimo_channel: noise_var must be finite and >= 0");
    check_finite(in, n);
    propagate(in, out, n);
    add_noise(out, n, noise_var);
    impair(out, n, noise_var * std::pow(10.0, d_p.snr_db / 10));
}

std::vector<std::complex<float>> mimo_channel::apply(const std::complex<float>* tx,
                                                     std::size_t n)
{
    // The block followed by `delay` zeros, through a fresh stream: n + delay outputs.
    const std::size_t out_len = n + std::size_t(d_p.delay);
    std::vector<std::complex<float>> padded(std::size_t(d_p.tx) * out_len);
    std::vector<const std::complex<float>*> in(std::size_t(d_p.tx));
    for (int k = 0; k < d_p.tx; k++) {
        std::copy(tx + std::size_t(k) * n, tx + std::size_t(k + 1) * n,
                  padded.begin() + std::size_t(k) * out_len);
        in[k] = padded.data() + std::size_t(k) * out_len;
    }
    check_finite(in.data(), n);
    std::vector<std::complex<float>> y(std::size_t(d_p.rx) * out_len);
    std::vector<std::complex<float>*> out(std::size_t(d_p.rx));
    for (int r = 0; r < d_p.rx; r++)
        out[r] = y.data() + std::size_t(r) * out_len;
    restart();
    propagate(in.data(), out.data(), out_len);
    double power = 0;
    for (const auto& v : y)
        power += std::norm(std::complex<double>(v));
    power /= double(std::max<std::size_t>(1, n * d_p.rx));
    add_noise(out.data(), out_len, power / std::pow(10.0, d_p.snr_db / 10));
    impair(out.data(), out_len, power);
    restart(); // taps, filter memory and oscillators: each block starts as the first
    return y;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
