/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * mimo_ofdm_tx's frame laid out for the APSM detector: training from the pilot
 * symbols, data from the payload's data carriers.
 */
#include "common/complex_product.h"

#include <gnuradio/gpumimo/core/apsm/apsm_frame.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

apsm_frame_layout::apsm_frame_layout(const frame_format& frame)
    : d_frame(frame)
{
    d_frame.validate();
    const std::size_t used = std::size_t(frame.num.used_carriers);
    d_data_carriers = data_carriers(frame.num);
    d_training_len = std::size_t(frame.streams) * used;
    d_data_len = std::size_t(frame.payload_symbols) * d_data_carriers.size();
    for (std::size_t d = 0; d < d_data_carriers.size(); d++)
        d_turn_back.push_back(payload_turn_back(frame.mod, d));
    for (int b : frame.num.carriers())
        d_bins.push_back(b - frame.num.fft_len / 2);
    d_sent = training_symbols();
}

std::vector<std::complex<float>> apsm_frame_layout::training_symbols() const
{
    const int K = d_frame.streams;
    const std::size_t used = std::size_t(d_frame.num.used_carriers);
    std::vector<std::complex<float>> sent(std::size_t(K) * d_training_len);
    for (int k = 0; k < K; k++) {
        const std::vector<std::complex<float>> pilots = pilot_carriers(d_frame.num, k);
        std::complex<float>* user = sent.data() + std::size_t(k) * d_training_len;
        for (int s = 0; s < K; s++) {
            const std::complex<float> cover = pilot_cover(K, s, k);
            for (std::size_t i = 0; i < used; i++)
                user[std::size_t(s) * used + i] = cover * pilots[i];
        }
    }
    return sent;
}

void apsm_frame_layout::pilot_channel(const std::complex<float>* const* frames,
                                      int antennas,
                                      std::complex<double>* h) const
{
    using cd = std::complex<double>;
    const int K = d_frame.streams;
    const std::size_t used = std::size_t(d_frame.num.used_carriers);
    std::fill_n(h, std::size_t(antennas) * std::size_t(K) * used, cd(0));
    for (int a = 0; a < antennas; a++)
        for (int k = 0; k < K; k++) {
            // The pilot symbols against what user k sent there (unit-energy values: the
            // conjugate divides).
            const std::complex<float>* sent = d_sent.data() + std::size_t(k) * d_training_len;
            cd* hk = h + (std::size_t(a) * std::size_t(K) + std::size_t(k)) * used;
            for (int s = 0; s < K; s++) {
                const std::complex<float>* rx = frames[a] + (1 + std::size_t(s)) * used;
                for (std::size_t i = 0; i < used; i++)
                    hk[i] += conj_mul(cd(sent[std::size_t(s) * used + i]), cd(rx[i]));
            }
        }
}

double apsm_frame_layout::timing_slope(const std::complex<double>* h, int antennas) const
{
    const std::size_t used = std::size_t(d_frame.num.used_carriers);
    std::complex<double> sum = 0;
    for (std::size_t row = 0; row < std::size_t(antennas) * std::size_t(d_frame.streams); row++)
        for (std::size_t i = 0; i + 1 < used; i++)
            if (d_bins[i + 1] - d_bins[i] == 1) // not across DC
                sum += conj_mul(h[row * used + i], h[row * used + i + 1]);
    return sum == std::complex<double>(0) ? 0.0 : std::arg(sum);
}

apsm_frame_splitter::apsm_frame_splitter(const frame_format& frame, int antennas)
    : d_layout(frame), d_antennas(antennas), d_tracking(tracking_carriers(frame.num))
{
    if (antennas < 1)
        throw std::invalid_argument("apsm_frame_splitter: antennas must be >= 1");
    for (int k = 0; k < frame.streams; k++) {
        const std::vector<std::complex<float>> p = pilot_carriers(frame.num, k);
        for (int i : d_tracking)
            d_track_sent.push_back(p[std::size_t(i)]);
    }
    d_untwist.resize(std::size_t(frame.num.used_carriers));
    const std::size_t channel = std::size_t(antennas) * std::size_t(frame.streams) *
                                std::size_t(frame.num.used_carriers);
    d_channel.resize(channel);
    d_reference.resize(channel);
    d_symbol_phases.resize(std::size_t(frame.payload_symbols));
    d_data_factor.resize(std::size_t(frame.payload_symbols) * d_layout.data_carrier_indices().size());
    d_predicted.resize(std::size_t(antennas) * d_tracking.size());
    d_deslope.resize(std::size_t(frame.num.used_carriers));
}

bool apsm_frame_splitter::split(const std::complex<float>* const* frames,
                                std::complex<float>* const* res,
                                bool reference)
{
    using cd = std::complex<double>;
    const frame_format& f = d_layout.frame();
    const int K = f.streams;
    const std::size_t used = std::size_t(f.num.used_carriers), T = d_tracking.size();
    const std::vector<int>& bins = d_layout.bins();
    std::vector<cd>& h = d_channel;
    d_layout.pilot_channel(frames, d_antennas, h.data());
    bool finite = true;
    for (const cd& x : h)
        finite &= std::isfinite(x.real()) && std::isfinite(x.imag());
    if (!finite) { // nothing to measure: the whole frame goes out as NaN
        const std::complex<float> nan(std::numeric_limits<float>::quiet_NaN(), 0.0f);
        for (int a = 0; a < d_antennas; a++)
            std::fill_n(res[a], d_layout.res_out(), nan);
        return false;
    }
    d_slope = d_layout.timing_slope(h.data(), d_antennas);
    for (std::size_t i = 0; i < used; i++)
        d_deslope[i] = std::polar(1.0, -d_slope * bins[i]);
    for (std::size_t row = 0; row < h.size(); row += used)
        for (std::size_t i = 0; i < used; i++)
            h[row + i] = mul(h[row + i], d_deslope[i]);
    if (reference || !d_have_reference) {
        std::copy(h.begin(), h.end(), d_reference.begin());
        d_have_reference = true;
    }
    cd against = 0;
    for (std::size_t n = 0; n < h.size(); n++)
        against += conj_mul(d_reference[n], h[n]);
    d_frame_phase = against == cd(0) ? 0.0 : std::arg(against);
    const cd unturn = std::polar(1.0, -d_frame_phase);
    for (std::size_t i = 0; i < used; i++)
        d_untwist[i] = std::complex<float>(mul(d_deslope[i], unturn));

    // Each payload symbol's phase against the pilots: its tracking carriers against
    // what the pilot channel (times K) predicts there, the same for every symbol.
    for (int a = 0; a < d_antennas; a++)
        for (std::size_t t = 0; t < T; t++) {
            const std::size_t i = std::size_t(d_tracking[t]);
            cd predicted = 0;
            for (int k = 0; k < K; k++)
                predicted += mul(h[(std::size_t(a) * std::size_t(K) + std::size_t(k)) * used + i],
                                 d_track_sent[std::size_t(k) * T + t]);
            d_predicted[std::size_t(a) * T + t] = predicted;
        }
    for (int s = 0; s < f.payload_symbols; s++) {
        cd sum = 0;
        for (int a = 0; a < d_antennas; a++) {
            const std::complex<float>* y = frames[a] + (1 + std::size_t(K) + std::size_t(s)) * used;
            for (std::size_t t = 0; t < T; t++) {
                const std::size_t i = std::size_t(d_tracking[t]);
                sum += conj_mul(d_predicted[std::size_t(a) * T + t], mul(cd(y[i]), d_deslope[i]));
            }
        }
        d_symbol_phases[std::size_t(s)] = sum == cd(0) ? 0.0 : std::arg(sum);
    }

    // Each payload symbol's factor per data carrier: the untwist, its drift, the turn.
    const std::vector<int>& data = d_layout.data_carrier_indices();
    const std::vector<std::complex<float>>& turn = d_layout.turn_back();
    const std::size_t D = data.size();
    for (int s = 0; s < f.payload_symbols; s++) {
        const std::complex<float> drift(std::polar(1.0, -d_symbol_phases[std::size_t(s)]));
        for (std::size_t d = 0; d < D; d++)
            d_data_factor[std::size_t(s) * D + d] =
                mul(mul(d_untwist[std::size_t(data[d])], drift), turn[d]);
    }
    for (int a = 0; a < d_antennas; a++) {
        std::complex<float>* out = res[a];
        const std::complex<float>* symbol = frames[a] + used; // the pilots follow the preamble
        for (int s = 0; s < K; s++, symbol += used)
            for (std::size_t i = 0; i < used; i++)
                *out++ = mul(symbol[i], d_untwist[i]);
        for (int s = 0; s < f.payload_symbols; s++, symbol += used) {
            const std::complex<float>* factor = d_data_factor.data() + std::size_t(s) * D;
            for (std::size_t d = 0; d < D; d++)
                *out++ = mul(symbol[std::size_t(data[d])], factor[d]);
        }
    }
    return true;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
