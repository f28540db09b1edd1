/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The common phase of each payload symbol from the tracking pilots
 * (core/frame/phase_tracker.h, docs/frame.md).
 */
#include <gnuradio/gpumimo/core/frame/phase_tracker.h>

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

void phase_tracker::estimate(const channel_estimate& e,
                             const std::complex<float>* carriers,
                             std::size_t antenna_stride,
                             std::complex<float>* derotation)
{
    d_antenna.resize(std::size_t(std::max(e.rx, 0)));
    for (std::size_t r = 0; r < d_antenna.size(); r++)
        d_antenna[r] = carriers + r * antenna_stride;
    estimate(e, d_antenna.data(), derotation);
}

void phase_tracker::expect(const channel_estimate& e)
{
    const int K = d_frame.streams, U = d_frame.num.used_carriers, R = e.rx;
    if (e.tx != K || e.carriers != U || e.h.size() != std::size_t(U) * R * K)
        throw std::invalid_argument("phase_tracker: the channel estimate is for another frame");
    // The pilots' expected values, [tracking carrier][antenna].
    std::vector<std::complex<double>>& expected = d_expected;
    expected.resize(d_carriers.size() * std::size_t(R));
    for (std::size_t j = 0; j < d_carriers.size(); j++)
        for (int r = 0; r < R; r++) {
            std::complex<double> v = 0;
            for (int k = 0; k < K; k++)
                v += std::complex<double>(e.h[(std::size_t(d_carriers[j]) * R + r) * K + k]) *
                     std::complex<double>(d_pilots[j * K + k]);
            expected[j * R + r] = v;
        }
}

std::complex<float> phase_tracker::derotation_of(int rx,
                                                 const std::complex<float>* const* antenna,
                                                 std::size_t offset) const
{
    std::complex<double> z = 0;
    for (int r = 0; r < rx; r++)
        for (std::size_t j = 0; j < d_carriers.size(); j++)
            z += std::conj(d_expected[j * std::size_t(rx) + r]) *
                 std::complex<double>(antenna[r][offset + std::size_t(d_carriers[j])]);
    const double a = std::abs(z);
    return a > 0 && std::isfinite(a) ? std::complex<float>(std::conj(z) / a)
                                     : std::complex<float>(1.0f);
}

void phase_tracker::estimate(const channel_estimate& e,
                             const std::complex<float>* const* antenna,
                             std::complex<float>* derotation)
{
    if (d_frame.pilot_blocks() > 1)
        throw std::invalid_argument("phase_tracker::estimate: the frame's payload is split by "
                                    "pilot blocks; estimate_symbol() takes each symbol with its "
                                    "own estimate");
    expect(e); // the same in every symbol
    const std::size_t U = std::size_t(d_frame.num.used_carriers);
    for (int s = 0; s < d_frame.payload_symbols; s++)
        derotation[s] = derotation_of(e.rx, antenna, std::size_t(s) * U);
}

std::complex<float> phase_tracker::estimate_symbol(const channel_estimate& e,
                                                   const std::complex<float>* const* antenna)
{
    expect(e);
    return derotation_of(e.rx, antenna, 0);
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
