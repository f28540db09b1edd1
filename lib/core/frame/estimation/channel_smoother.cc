/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Channel estimates smoothed over frequency: the DFT estimator and the LMMSE estimator
 * with an estimated power delay profile (core/frame/estimation/channel_smoother.h, docs/frame.md).
 *
 * The model: on used carrier c the least-squares estimate is H_ls(c) = sum_j F[c][j] h_j
 * + w(c), h the channel's taps in the delay window, w white with variance n0. The LMMSE
 * estimate over frequency, R (R + n0 I)^-1 H_ls with R = F P F^H (P the taps' powers),
 * equals F (F^H F + n0 P^-1)^-1 F^H H_ls by the matrix inversion lemma: an L x L system
 * (L taps) instead of U x U (U carriers), solved here by Cholesky.
 */
#include "common/linalg.h"
#include <gnuradio/gpumimo/core/quoted.h>

#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

using cd = std::complex<double>;

std::string to_string(channel_estimator e)
{
    switch (e) {
    case channel_estimator::ls:
        return "ls";
    case channel_estimator::dft:
        return "dft";
    case channel_estimator::lmmse:
        return "lmmse";
    }
    return "?";
}

std::vector<std::string> channel_estimator_names() { return { "ls", "dft", "lmmse" }; }

channel_estimator parse_channel_estimator(const std::string& name)
{
    for (channel_estimator e :
         { channel_estimator::ls, channel_estimator::dft, channel_estimator::lmmse })
        if (to_string(e) == name)
            return e;
    throw std::invalid_argument("unknown channel estimator " + quoted_text(name) +
                                " (choose ls, dft or lmmse)");
}

delay_window estimation_window(const numerology& num)
{
    const int cp0 = num.cp_lengths.empty() ? 0 : num.cp_lengths[0];
    delay_window w;
    w.first = -std::max(1, cp0 / 8);
    w.taps = std::max(1, cp0) - w.first;
    return w;
}

channel_smoother::channel_smoother(const numerology& num, channel_estimator method)
    : d_method(method), d_num(num), d_window(estimation_window(num)), d_U(num.used_carriers),
      d_L(d_window.taps)
{
    const int N = num.fft_len;
    for (int idx : num.carriers())
        d_freq.push_back(idx - N / 2);
    d_F.resize(std::size_t(d_U) * d_L);
    for (int c = 0; c < d_U; c++)
        for (int j = 0; j < d_L; j++) {
            // Reduced mod N in integers: the phase stays exact for any size.
            const long m = (long(d_freq[c]) * (d_window.first + j)) % N;
            d_F[std::size_t(c) * d_L + j] = std::polar(1.0, -2 * M_PI * double(m) / N);
        }
    // F^H F is Toeplitz: entry (i, j) is sum_c e^{2 pi i k_c (i - j) / N}.
    std::vector<cd> toeplitz(std::size_t(2 * d_L - 1));
    for (int delta = -(d_L - 1); delta < d_L; delta++) {
        cd s = 0;
        for (int c = 0; c < d_U; c++)
            s += delay_phasor(c, delta);
        toeplitz[std::size_t(delta + d_L - 1)] = s;
    }
    d_gram.resize(std::size_t(d_L) * d_L);
    for (int i = 0; i < d_L; i++)
        for (int j = 0; j < d_L; j++)
            d_gram[std::size_t(i) * d_L + j] = toeplitz[std::size_t(i - j + d_L - 1)];
}

cd channel_smoother::twiddle(int c, int j) const { return d_F[std::size_t(c) * d_L + j]; }

cd channel_smoother::delay_phasor(int c, int delta) const
{
    const int N = d_num.fft_len;
    return std::polar(1.0, 2 * M_PI * double((long(d_freq[c]) * delta) % N) / N);
}


// The LMMSE system for the profile d_pdp, G = F^H F + n0 P^-1 (a tap left out has a
// prior power far below its noise: the estimate takes nothing from it), inverted by
// Cholesky into d_Ginv; the taps G^-1 F^H H_ls = U G^-1 g into d_taps.
void channel_smoother::solve(double n0, int P)
{
    const int U = d_U, L = d_L;
    const double left_out = 1e-6 * n0 / U;
    d_G = d_gram;
    for (int j = 0; j < L; j++)
        d_G[std::size_t(j) * L + j] += n0 / std::max(d_pdp[std::size_t(j)], left_out);
    if (!linalg::cholesky(d_G.data(), L))
        throw std::runtime_error("channel_smoother: the LMMSE system is not positive definite");
    // G^-1, column by column: C^-H C^-1 e_j.
    d_Ginv.assign(std::size_t(L) * L, 0.0);
    d_z.resize(std::size_t(L));
    for (int j = 0; j < L; j++) {
        std::fill(d_z.begin(), d_z.end(), 0.0);
        d_z[std::size_t(j)] = 1.0;
        linalg::cholesky_forward(d_G.data(), L, d_z.data());
        linalg::cholesky_backward(d_G.data(), L, d_z.data());
        for (int i = 0; i < L; i++)
            d_Ginv[std::size_t(i) * L + j] = d_z[std::size_t(i)];
    }
    d_taps.assign(std::size_t(P) * L, 0.0);
    for (int p = 0; p < P; p++)
        for (int i = 0; i < L; i++) {
            cd s = 0;
            for (int j = 0; j < L; j++)
                s += linalg::detail::mul(d_Ginv[std::size_t(i) * L + j], d_g[std::size_t(p) * L + j]);
            d_taps[std::size_t(p) * L + i] = double(U) * s;
        }
}

// The taps the profile left out that the residual shows (docs/frame.md, "Channel
// estimation"): g_r = g - T taps / U is the residual H_ls - F taps taken to the delay
// window, F^H (H_ls - F taps) / U, each value with noise variance n0 / U. Where its power
// over the P channels stands out of that noise (missed_tap_threshold), the excess joins
// the profile. A delay between two samples spreads over neighbouring taps that are each
// below their posterior variance under the flat fit (the band's empty carriers make that
// about the flat prior's power), so the first profile leaves them out; without this, TDL
// channels floored (TDL-C 300 ns at fft512: the estimate's error 32 N0 at 30 dB). On a
// channel the first profile already covers, the residual is noise and nothing changes.
// Continuous in the data; true when the profile changed.
bool channel_smoother::add_missed_taps(double n0, int P)
{
    const int U = d_U, L = d_L;
    const double threshold = missed_tap_threshold(P) * n0 / U;
    bool changed = false;
    for (int j = 0; j < L; j++) {
        double q = 0;
        for (int p = 0; p < P; p++) {
            cd s = 0;
            for (int k = 0; k < L; k++)
                s += linalg::detail::mul(d_gram[std::size_t(j) * L + k], d_taps[std::size_t(p) * L + k]);
            q += std::norm(d_g[std::size_t(p) * L + j] - s / double(U));
        }
        const double extra = q / P - threshold;
        if (extra > 0) {
            d_pdp[std::size_t(j)] += extra;
            changed = true;
        }
    }
    return changed;
}

void channel_smoother::smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var, double n0_samples)
{
    if (rx < 1 || tx < 1)
        throw std::invalid_argument("channel_smoother: rx and tx must be >= 1");
    if (!(n0 > 0) || !std::isfinite(n0))
        throw std::invalid_argument("channel_smoother: the noise variance must be finite and > 0");
    const int U = d_U, L = d_L, P = rx * tx;
    if (d_method == channel_estimator::ls) {
        std::fill(error_var, error_var + U, float(n0));
        d_mismatch = 0;
        return;
    }
    // g[p][j] = (1/U) sum_c H_ls(c) conj(F[c][j]): the DFT estimator's taps.
    d_g.assign(std::size_t(P) * L, 0.0);
    for (int c = 0; c < U; c++)
        for (int p = 0; p < P; p++) {
            const cd y(h[std::size_t(c) * P + p]);
            for (int j = 0; j < L; j++)
                d_g[std::size_t(p) * L + j] += linalg::detail::mul(y, std::conj(twiddle(c, j)));
        }
    for (cd& v : d_g)
        v /= double(U);
    // First the flat profile: the channel's power (each entry's mean power less the
    // noise, at least the noise) spread evenly over the window. That is dft's estimate.
    double power = 0;
    for (std::size_t i = 0; i < std::size_t(U) * P; i++)
        power += std::norm(cd(h[i]));
    power = std::max(power / (double(U) * P) - n0, n0);
    d_pdp.assign(std::size_t(L), power / L);
    solve(n0, P);
    if (d_method == channel_estimator::lmmse) {
        // Then the profile those taps show: each tap's power over the rx x tx channels
        // less twice its noise (n0 G^-1[j][j], its posterior variance), 0 below that: a
        // tap not clearly above its noise is left out, and the profile stays continuous
        // in the data (a hard keep-or-drop would turn rounding into different
        // estimates). From the fitted taps, not from g: g smears every tap over its
        // neighbours (the used band's Dirichlet kernel), and a profile that keeps the
        // smear keeps its noise.
        for (int j = 0; j < L; j++) {
            double pw = 0;
            for (int p = 0; p < P; p++)
                pw += std::norm(d_taps[std::size_t(p) * L + j]);
            const double noise = n0 * d_Ginv[std::size_t(j) * L + j].real();
            d_pdp[std::size_t(j)] = std::max(pw / P - 2 * noise, 0.0);
        }
        solve(n0, P);
        if (add_missed_taps(n0, P))
            solve(n0, P);
    }
    // Posterior error variance per carrier, n0 f_c^H G^-1 f_c = n0 sum_{i,j}
    // G^-1[i][j] e^{2 pi i k_c (d_i - d_j) / N}: with G^-1's diagonal sums s_delta
    // (i - j = delta) that is O(L) per carrier instead of O(L^2).
    d_diag.assign(std::size_t(2 * L - 1), 0.0);
    for (int i = 0; i < L; i++)
        for (int j = 0; j < L; j++)
            d_diag[std::size_t(i - j + L - 1)] += d_Ginv[std::size_t(i) * L + j];
    double trace = 0; // tr S, the smoother's: the model's error over n0, summed
    for (int c = 0; c < U; c++) {
        // delay_phasor(c, delta) by recurrence from delta = -(L - 1): 2L steps in double
        // add about 1e-13 (a sine and cosine per term cost more than the rest).
        const cd step = delay_phasor(c, 1);
        cd w = delay_phasor(c, -(L - 1)), e = 0;
        for (int delta = -(L - 1); delta < L; delta++) {
            e += linalg::detail::mul(d_diag[std::size_t(delta + L - 1)], w);
            w = linalg::detail::mul(w, step);
        }
        error_var[c] = float(n0 * std::max(e.real(), 0.0));
        trace += double(error_var[c]) / n0;
    }
    double residual = 0; // |H_ls - H|^2, summed
    for (int c = 0; c < U; c++)
        for (int p = 0; p < P; p++) {
            cd s = 0;
            for (int j = 0; j < L; j++)
                s += linalg::detail::mul(twiddle(c, j), d_taps[std::size_t(p) * L + j]);
            const std::complex<float> smoothed(s);
            residual += std::norm(cd(h[std::size_t(c) * P + p]) - cd(smoothed));
            h[std::size_t(c) * P + p] = smoothed;
        }
    // What the model missed, from the residual: spread over the carriers.
    d_mismatch = smoothing_mismatch(residual / P, n0, U, trace, P, n0_samples);
    for (int c = 0; c < U; c++)
        error_var[c] = float(double(error_var[c]) + d_mismatch);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
