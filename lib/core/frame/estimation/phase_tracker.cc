/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The common phase of each payload symbol from the tracking pilots
 * (core/frame/estimation/phase_tracker.h, docs/frame.md).
 */
#include <gnuradio/gpumimo/core/frame/estimation/phase_tracker.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

phase_tracker::phase_tracker(const frame_format& frame)
    : d_frame((frame.validate(), frame)), d_carriers(tracking_carriers(frame.num))
{
    const int K = frame.streams;
    d_pilots.resize(d_carriers.size() * std::size_t(K));
    for (int k = 0; k < K; k++) {
        const std::vector<std::complex<float>> p = pilot_carriers(frame.num, k);
        for (std::size_t j = 0; j < d_carriers.size(); j++)
            d_pilots[j * K + k] = p[std::size_t(d_carriers[j])];
    }
}

bool phase_tracker::estimate(const channel_estimate& e,
                             const std::complex<float>* carriers,
                             std::size_t antenna_stride,
                             std::complex<float>* derotation)
{
    d_antenna.resize(std::size_t(std::max(e.rx, 0)));
    for (std::size_t r = 0; r < d_antenna.size(); r++)
        d_antenna[r] = carriers + r * antenna_stride;
    return estimate(e, d_antenna.data(), derotation);
}

void phase_tracker::expect(const channel_estimate& e)
{
    const int K = d_frame.streams, U = d_frame.num.used_carriers, R = e.rx;
    if (e.tx != K || e.carriers != U || e.h.size() != std::size_t(U) * R * K || R != d_rx)
        throw std::invalid_argument("phase_tracker: the channel estimate is for another frame");
    d_expected.resize(d_carriers.size() * std::size_t(R));
    for (std::size_t j = 0; j < d_carriers.size(); j++)
        for (int r = 0; r < R; r++) {
            std::complex<double> v = 0;
            for (int k = 0; k < K; k++)
                v += std::complex<double>(e.h[(std::size_t(d_carriers[j]) * R + r) * K + k]) *
                     std::complex<double>(d_pilots[j * K + k]);
            d_expected[j * R + r] = v;
        }
}

void phase_tracker::accumulate(const std::complex<float>* const* antenna, std::size_t offset)
{
    for (int r = 0; r < d_rx; r++) {
        std::complex<double> z = 0;
        double energy = 0;
        for (std::size_t j = 0; j < d_carriers.size(); j++) {
            const std::complex<double> x = d_expected[j * std::size_t(d_rx) + r];
            z += std::conj(x) * std::complex<double>(antenna[r][offset + std::size_t(d_carriers[j])]);
            energy += std::norm(x);
        }
        d_z.push_back(z);
        d_energy.push_back(energy);
    }
}

void phase_tracker::begin(int rx)
{
    if (rx < 1)
        throw std::invalid_argument("phase_tracker: rx must be >= 1");
    d_rx = rx;
    d_z.clear();
    d_energy.clear();
}

void phase_tracker::add_symbol(const channel_estimate& e, const std::complex<float>* const* antenna)
{
    if (d_z.size() >= std::size_t(d_frame.payload_symbols) * d_rx)
        throw std::logic_error("phase_tracker::add_symbol: more symbols than the frame's payload");
    expect(e);
    accumulate(antenna, 0);
}

bool phase_tracker::finish(double n0, std::complex<float>* derotation)
{
    const std::size_t R = std::size_t(d_rx), P = std::size_t(d_frame.payload_symbols);
    if (d_z.size() != P * R)
        throw std::logic_error("phase_tracker::finish: not every payload symbol was added");
    // The test: each antenna's deviation from its symbol's common phase over its noise.
    double T = 0;
    int dof = 0;
    for (std::size_t s = 0; s < P; s++) {
        std::complex<double> Z = 0;
        for (std::size_t r = 0; r < R; r++)
            Z += d_z[s * R + r];
        int seen = 0;
        for (std::size_t r = 0; r < R; r++) {
            const std::complex<double> z = d_z[s * R + r];
            if (!(d_energy[s * R + r] > 0) || !(std::abs(z) > 0) || !std::isfinite(std::abs(z)))
                continue;
            T += per_antenna_term(z.real(), z.imag(), Z.real(), Z.imag(), d_energy[s * R + r], n0);
            seen++;
        }
        dof += std::max(0, seen - 1);
    }
    const bool per_antenna = dof > 0 && n0 > 0 && std::isfinite(T) && T > per_antenna_threshold(dof);
    auto unit_conj = [](std::complex<double> z) {
        const double a = std::abs(z);
        return a > 0 && std::isfinite(a) ? std::complex<float>(std::conj(z) / a) : std::complex<float>(1.0f);
    };
    for (std::size_t s = 0; s < P; s++) {
        std::complex<double> Z = 0;
        for (std::size_t r = 0; r < R; r++)
            Z += d_z[s * R + r];
        for (std::size_t r = 0; r < R; r++)
            derotation[s * R + r] = unit_conj(per_antenna ? d_z[s * R + r] : Z);
    }
    return per_antenna;
}

bool phase_tracker::estimate(const channel_estimate& e,
                             const std::complex<float>* const* antenna,
                             std::complex<float>* derotation)
{
    if (d_frame.pilot_blocks() > 1)
        throw std::invalid_argument("phase_tracker::estimate: the frame's payload is split by "
                                    "pilot blocks; add_symbol() takes each symbol with its "
                                    "own estimate");
    begin(e.rx);
    expect(e); // the same in every symbol
    const std::size_t U = std::size_t(d_frame.num.used_carriers);
    for (int s = 0; s < d_frame.payload_symbols; s++)
        accumulate(antenna, std::size_t(s) * U);
    return finish(e.noise_var, derotation);
}

void data_carrier_estimate(const std::vector<int>& data,
                           const channel_estimate& e,
                           std::vector<std::complex<float>>& h,
                           std::vector<float>& noise)
{
    const std::size_t m = std::size_t(e.rx) * e.tx;
    h.resize(data.size() * m);
    noise.resize(data.size());
    for (std::size_t d = 0; d < data.size(); d++) {
        const std::size_t c = std::size_t(data[d]);
        std::copy_n(e.h.begin() + c * m, m, h.begin() + d * m);
        noise[d] = e.noise_eff[c];
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
