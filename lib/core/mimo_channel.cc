/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Nt-to-Nr channel simulator: block fading through a tapped delay line, carrier
 * and timing offsets, AWGN at a set SNR.
 */
#include <gnuradio/gpumimo/core/mimo_channel.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

void validate(const channel_params& p)
{
    auto bad = [](const std::string& what) {
        throw std::invalid_argument("channel_params: " + what);
    };
    if (p.tx < 1 || p.rx < 1)
        bad("tx and rx must be >= 1");
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
    if (!std::isfinite(p.snr_db))
        bad("snr_db must be finite");
    if (!std::isfinite(p.cfo))
        bad("cfo must be finite");
    if (p.delay < 0)
        bad("delay must be >= 0");
}

mimo_channel::mimo_channel(const channel_params& p) : d_p(p), d_rng(p.seed)
{
    validate(p);
    double sum = 0;
    for (double w : p.tap_powers)
        sum += w;
    const int L = int(p.tap_powers.size());
    d_taps.resize(std::size_t(p.rx) * p.tx * L);
    std::normal_distribution<double> g(0.0, 1.0);
    for (int r = 0; r < p.rx; r++)
        for (int k = 0; k < p.tx; k++)
            for (int l = 0; l < L; l++) {
                const double sd = std::sqrt(p.tap_powers[l] / sum / 2);
                d_taps[(std::size_t(r) * p.tx + k) * L + l] =
                    std::complex<float>(float(sd * g(d_rng)), float(sd * g(d_rng)));
            }
}

std::vector<std::complex<float>> mimo_channel::apply(const std::complex<float>* tx,
                                                     std::size_t n)
{
    const int L = int(d_p.tap_powers.size());
    for (std::size_t i = 0; i < n * std::size_t(d_p.tx); i++)
        if (!std::isfinite(tx[i].real()) || !std::isfinite(tx[i].imag()))
            throw std::invalid_argument("mimo_channel: non-finite input sample " +
                                        std::to_string(i % n) + " of stream " +
                                        std::to_string(i / n));
    const std::size_t out_len = n + std::size_t(d_p.delay);
    std::vector<std::complex<double>> y(std::size_t(d_p.rx) * out_len);
    double power = 0;
    for (int r = 0; r < d_p.rx; r++)
        for (std::size_t t = 0; t < n; t++) {
            std::complex<double> acc = 0;
            for (int k = 0; k < d_p.tx; k++)
                for (int l = 0; l < L && std::size_t(l) <= t; l++)
                    acc += std::complex<double>(d_taps[(std::size_t(r) * d_p.tx + k) * L + l]) *
                           std::complex<double>(tx[std::size_t(k) * n + t - l]);
            acc *= std::polar(1.0, 2 * M_PI * d_p.cfo * double(t));
            y[std::size_t(r) * out_len + d_p.delay + t] = acc;
            power += std::norm(acc);
        }
    power /= double(std::max<std::size_t>(1, n * d_p.rx));
    const double sd = std::sqrt(power / std::pow(10.0, d_p.snr_db / 10) / 2);
    std::normal_distribution<double> g(0.0, 1.0);
    std::vector<std::complex<float>> out(y.size());
    for (std::size_t i = 0; i < y.size(); i++)
        out[i] = std::complex<float>(y[i] + std::complex<double>(sd * g(d_rng), sd * g(d_rng)));
    return out;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
