/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel simulator's path models and radio impairments (core/link/mimo_channel.h,
 * docs/channel.md): paths at continuous delays (TR 38.901 TDL or the user's), each
 * path's coefficient Rayleigh or LOS, fixed or moving with Jakes' spectrum, correlated
 * across the antennas (TS 36.101 Annex B), turned into the tapped delay line's taps
 * through the fractional-delay kernel; then phase noise, IQ imbalance and DC.
 */
#include "common/linalg.h"
#include "link/path_model.h"

#include <gnuradio/gpumimo/core/link/fractional_delay.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

using cd = std::complex<double>;

namespace {

// The paths p describes (TDL scaled, or the user's), normalised to a sum of 1.
std::vector<channel_path> model_paths(const channel_params& p)
{
    if (is_tdl_model(p.model))
        return tdl_paths(p.model, p.delay_spread, p.sample_rate, p.k_factor_db);
    std::vector<channel_path> paths;
    double sum = 0;
    for (std::size_t i = 0; i < p.path_delays.size(); i++) {
        paths.push_back({ p.path_delays[i], p.path_powers[i], false });
        sum += p.path_powers[i];
    }
    for (channel_path& q : paths)
        q.power /= sum;
    return paths;
}

// A lower Cholesky factor of TS 36.101's correlation matrix for n antennas at a. Where
// rounding leaves it not quite positive definite (a near 1, many antennas), the matrix is
// regularised as TS 36.101 B.2.3.2 does for its 4x4 high correlation, (R + e I) / (1 + e),
// e from 1.2e-4 up.
std::vector<double> correlation_root(int n, double a)
{
    const std::vector<double> r = antenna_correlation(n, a);
    for (double e = 0; e < 1; e = e == 0 ? 1.2e-4 : e * 4) {
        std::vector<double> c = r;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                c[std::size_t(i) * n + j] = (r[std::size_t(i) * n + j] + (i == j ? e : 0.0)) / (1 + e);
        if (linalg::cholesky(c.data(), n, 1e-12)) {
            for (int i = 0; i < n; i++) // the upper triangle is left over: zero it
                for (int j = i + 1; j < n; j++)
                    c[std::size_t(i) * n + j] = 0;
            return c;
        }
    }
    throw std::runtime_error("mimo_channel: the antenna correlation matrix is not positive definite");
}

} // namespace

void validate_paths(const channel_params& p)
{
    auto bad = [](const std::string& what) {
        throw std::invalid_argument("channel_params: " + what);
    };
    if (p.model == "paths") {
        if (p.path_delays.empty() || p.path_delays.size() != p.path_powers.size())
            bad("model paths needs path_delays and path_powers of one length, at least 1");
        double sum = 0;
        for (std::size_t i = 0; i < p.path_delays.size(); i++) {
            if (!(p.path_delays[i] >= 0 && p.path_delays[i] <= max_path_delay))
                bad("path_delays must be in [0, " + std::to_string(int(max_path_delay)) + "] samples");
            if (!(p.path_powers[i] >= 0) || !std::isfinite(p.path_powers[i]))
                bad("path_powers must be finite and >= 0");
            sum += p.path_powers[i];
        }
        if (!(sum > 0))
            bad("path_powers must not all be 0");
    } else {
        std::vector<channel_path> paths;
        try {
            paths = tdl_paths(p.model, p.delay_spread, p.sample_rate, p.k_factor_db);
        } catch (const std::invalid_argument& e) {
            bad(e.what());
        }
        for (const channel_path& q : paths)
            if (!(q.delay <= max_path_delay))
                bad(p.model + "'s delay spread times the sample rate puts a path beyond " +
                    std::to_string(int(max_path_delay)) + " samples");
    }
}

void mimo_channel::setup_paths()
{
    const channel_params& p = d_p;
    d_paths = model_paths(p);
    const int W = fractional_delay_half_width;
    const double eps = p.impairments.sco_ppm * 1e-6;
    // Room for the timing to drift: 16 samples either way (a path's kernel may move that
    // far before its taps leave the line).
    d_drift_room = eps != 0 ? 16 : 0;
    d_latency = W + d_drift_room;
    double longest = 0;
    for (const channel_path& q : d_paths)
        longest = std::max(longest, q.delay);
    d_L = d_latency + int(std::ceil(longest)) + W + d_drift_room + 1;
    const std::size_t P = d_paths.size(), links = std::size_t(p.rx) * p.tx;
    d_taps.assign(links * std::size_t(d_L), 0.0f);
    d_paths_move = p.doppler > 0 || eps != 0;
    // Refresh the taps often enough that a tap moves less than 1e-3 of its size between
    // refreshes (2 pi doppler u <= 1e-3) and the drift less than 1e-4 samples
    // (|eps| u <= 1e-4), at most every 64 samples.
    double u = 64;
    if (p.doppler > 0)
        u = std::min(u, 1e-3 / (2 * M_PI * p.doppler));
    if (eps != 0)
        u = std::min(u, 1e-4 / std::abs(eps));
    d_update = std::max(1, int(u));
    // Each coefficient: a LOS path a constant amplitude turned by its Doppler shift
    // (arrival at pi/4, as TR 38.901's TDL LOS example), a Rayleigh path a complex
    // Gaussian (doppler 0) or M sinusoids of random angle and phase (Jakes).
    const int M = doppler_sinusoids;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> g(0.0, 1.0);
    d_fixed.assign(links * P, 0.0);
    if (p.doppler > 0) {
        d_sin_phase.assign(links * P * M, 0.0);
        d_sin_freq.assign(links * P * M, 0.0);
    }
    for (std::size_t i = 0; i < links; i++)
        for (std::size_t q = 0; q < P; q++) {
            const std::size_t c = i * P + q;
            const double power = d_paths[q].power;
            if (d_paths[q].los) {
                d_fixed[c] = std::sqrt(power);
                if (p.doppler > 0) {
                    d_sin_phase[c * M] = unit(d_rng);
                    d_sin_freq[c * M] = p.doppler * std::cos(M_PI / 4);
                } else {
                    d_fixed[c] = std::polar(std::sqrt(power), 2 * M_PI * unit(d_rng));
                }
            } else if (p.doppler > 0) {
                d_fixed[c] = std::sqrt(power / M);
                for (int m = 0; m < M; m++) {
                    d_sin_freq[c * M + m] = p.doppler * std::cos(2 * M_PI * unit(d_rng));
                    d_sin_phase[c * M + m] = unit(d_rng);
                }
            } else {
                const double sd = std::sqrt(power / 2);
                d_fixed[c] = cd(sd * g(d_rng), sd * g(d_rng));
            }
        }
    d_rx_root = correlation_root(p.rx, p.rx_correlation);
    d_tx_root = correlation_root(p.tx, p.tx_correlation);
    d_coef.assign(links * P, 0.0);
    d_mixed.assign(links * P, 0.0);
    d_kernel.assign(P * std::size_t(d_L), 0.0);
}

void mimo_channel::path_taps(std::uint64_t t)
{
    const channel_params& p = d_p;
    const std::size_t P = d_paths.size(), links = std::size_t(p.rx) * p.tx;
    const int M = doppler_sinusoids, L = d_L, W = fractional_delay_half_width;
    // The coefficients at sample t.
    for (std::size_t c = 0; c < links * P; c++) {
        if (d_sin_freq.empty()) {
            d_coef[c] = d_fixed[c];
            continue;
        }
        const bool los = d_paths[c % P].los;
        cd z = 0;
        for (int m = 0; m < (los ? 1 : M); m++) {
            // The phase in cycles, reduced before the sine: t grows without bound.
            const double cycles = std::remainder(d_sin_freq[c * M + m] * double(t) + d_sin_phase[c * M + m], 1.0);
            z += std::polar(1.0, 2 * M_PI * cycles);
        }
        d_coef[c] = d_fixed[c] * z;
    }
    // Correlated across the antennas: a = A_rx Z A_tx^T per path (lower factors).
    const int R = p.rx, K = p.tx;
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++)
            for (std::size_t q = 0; q < P; q++) {
                cd s = 0;
                for (int r2 = 0; r2 <= r; r2++)
                    for (int k2 = 0; k2 <= k; k2++)
                        s += d_rx_root[std::size_t(r) * R + r2] * d_tx_root[std::size_t(k) * K + k2] *
                             d_coef[(std::size_t(r2) * K + k2) * P + q];
                d_mixed[(std::size_t(r) * K + k) * P + q] = s;
            }
    // Each path's kernel on the line: w(l - d), d its delay less the drift. Without a
    // sample clock offset the kernels never move: computed on the first call only.
    const double drift = p.impairments.sco_ppm * 1e-6 * double(t);
    if (std::abs(drift) > double(d_drift_room) && d_drift_room > 0)
        throw std::runtime_error("mimo_channel: the sample clock offset has drifted the timing " +
                                 std::to_string(drift) + " samples, past the " +
                                 std::to_string(d_drift_room) + " the taps have room for (restart())");
    if (t == 0 || drift != 0) {
        std::fill(d_kernel.begin(), d_kernel.end(), 0.0);
        for (std::size_t q = 0; q < P; q++) {
            const double d = double(d_latency) + d_paths[q].delay - drift;
            const int i = int(std::floor(d));
            const double f = d - i;
            for (int j = -W + 1; j <= W; j++) {
                const int l = i + j;
                if (l >= 0 && l < L)
                    d_kernel[q * std::size_t(L) + std::size_t(l)] = fractional_delay_kernel(double(j) - f);
            }
        }
    }
    for (std::size_t c = 0; c < links; c++)
        for (int l = 0; l < L; l++) {
            cd s = 0;
            for (std::size_t q = 0; q < P; q++)
                s += d_mixed[c * P + q] * d_kernel[q * std::size_t(L) + std::size_t(l)];
            d_taps[c * std::size_t(L) + std::size_t(l)] = std::complex<float>(s);
        }
}

void mimo_channel::setup_radio()
{
    const radio_impairments& m = d_p.impairments;
    // mu y + nu conj(y): I kept, Q scaled by g and turned by phi.
    const double g = std::pow(10.0, m.iq_gain_db / 20), phi = m.iq_phase_deg * M_PI / 180;
    d_mu = (1.0 + g * std::polar(1.0, -phi)) / 2.0;
    d_nu = (1.0 - g * std::polar(1.0, phi)) / 2.0;
    // The DC's phases and the oscillators' noise from a generator of their own, so that a
    // channel without impairments draws exactly what it drew before they existed.
    d_radio_rng.seed(d_p.seed ^ 0x5AD10ull);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    d_dc_phasor.resize(std::size_t(d_p.rx));
    for (auto& v : d_dc_phasor)
        v = std::polar(1.0f, float(2 * M_PI * unit(d_radio_rng)));
    d_phase.assign(m.common_oscillator ? 1 : std::size_t(d_p.rx), 0.0);
    d_phase_step.reset();
}

void mimo_channel::impair(std::complex<float>* const* out, std::size_t n, double signal_power)
{
    const radio_impairments& m = d_p.impairments;
    if (m.phase_noise_var > 0) {
        // One distribution for the stream (it keeps the second value of each pair it
        // draws): a stream cut anywhere draws the same steps.
        const double sd = std::sqrt(m.phase_noise_var);
        for (std::size_t t = 0; t < n; t++) {
            for (double& ph : d_phase)
                ph = std::remainder(ph + sd * d_phase_step(d_radio_rng), 2 * M_PI);
            for (int r = 0; r < d_p.rx; r++)
                out[r][t] *= std::polar(1.0f, float(d_phase[m.common_oscillator ? 0 : std::size_t(r)]));
        }
    }
    if (m.iq_gain_db != 0 || m.iq_phase_deg != 0) {
        const std::complex<float> mu(d_mu), nu(d_nu);
        for (int r = 0; r < d_p.rx; r++)
            for (std::size_t t = 0; t < n; t++)
                out[r][t] = mu * out[r][t] + nu * std::conj(out[r][t]);
    }
    if (std::isfinite(m.dc_dbc)) {
        const float a = float(std::sqrt(signal_power * std::pow(10.0, m.dc_dbc / 10)));
        for (int r = 0; r < d_p.rx; r++)
            for (std::size_t t = 0; t < n; t++)
                out[r][t] += a * d_dc_phasor[std::size_t(r)];
    }
}

} // namespace core
} // namespace gpumimo
} // namespace gr
