/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A frame's channel estimate from its pilot symbols: least squares per carrier, the
 * noise variance from the preamble's empty carriers, then smoothing over frequency
 * (channel_smoother) and the detectors' effective noise per carrier (docs/frame.md).
 */
#include "common/linalg.h"

#include <gnuradio/gpumimo/core/frame/frame_receiver.h>
#include <gnuradio/gpumimo/core/frame/estimation/smoothing_engine.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// The least-squares part of estimate_channel into e (h, noise_var, sizes), before any
// smoothing; returns the number of noise samples (the preamble's empty carriers on
// every antenna). `smoother_carriers`: the smoother's, checked against the frame's.
std::size_t least_squares(const frame_format& frame,
                          const std::complex<float>* carriers_rx,
                          int rx,
                          int symbols_per_antenna,
                          channel_estimator method,
                          int smoother_carriers,
                          int block,
                          channel_estimate& e)
{
    frame.validate();
    if (rx < 1)
        throw std::invalid_argument("estimate_channel: rx must be >= 1");
    if (block < 0 || block >= frame.pilot_blocks())
        throw std::invalid_argument("estimate_channel: the frame has no pilot block " +
                                    std::to_string(block));
    const int K = frame.streams, U = frame.num.used_carriers;
    const int first = frame.pilot_block_start(block); // the block's first pilot symbol
    const int S = symbols_per_antenna ? symbols_per_antenna : 1 + K;
    if (S < first + K)
        throw std::invalid_argument("estimate_channel: symbols_per_antenna must be 0 (block 0 only) or "
                                    "reach the block's last pilot symbol");
    if (smoother_carriers != U)
        throw std::invalid_argument("estimate_channel: the smoother is for another numerology");
    e.rx = rx;
    e.tx = K;
    e.carriers = U;
    e.method = method;
    e.h.resize(std::size_t(U) * rx * K);
    auto y = [&](int r, int s, int c) { return carriers_rx[(std::size_t(r) * S + s) * U + c]; };
    // Least squares: column k averages the Nt pilot symbols against its cover,
    // (1/Nt) sum_s conj(w_sk) Y_{1+s}(c) / P_k(c); the other streams cancel, the noise
    // averages down to N0 / Nt. The covers' conjugates are tabled first (a cover is a
    // sine and a cosine, and the loop below would take them K x K x U x rx times), and
    // each division by a pilot is a product with conj(P) / (Nt |P|^2): std::complex's
    // division is a library call guarding against overflow, U x rx x K per frame (the
    // pilots are QPSK points, far from either end of the range). The products are
    // spelled out (linalg::detail::mul says why); a non-finite sample still gives a
    // non-finite estimate, which is refused below.
    std::vector<std::complex<double>> cover_conj(std::size_t(K) * K); // [k][s]
    for (int k = 0; k < K; k++)
        for (int s = 0; s < K; s++)
            cover_conj[std::size_t(k) * K + s] =
                std::conj(std::complex<double>(pilot_cover(K, s, k)));
    for (int k = 0; k < K; k++) {
        const std::vector<std::complex<float>> pilot = pilot_carriers(frame.num, k);
        const std::complex<double>* w = cover_conj.data() + std::size_t(k) * K;
        for (int c = 0; c < U; c++) {
            const std::complex<double> p(pilot[c]);
            const std::complex<double> inverse = std::conj(p) / (double(K) * std::norm(p));
            for (int r = 0; r < rx; r++) {
                std::complex<double> z = 0;
                for (int s = 0; s < K; s++)
                    z += linalg::detail::mul(w[s], std::complex<double>(y(r, first + s, c)));
                e.h[(std::size_t(c) * rx + r) * K + k] =
                    std::complex<float>(linalg::detail::mul(z, inverse));
            }
        }
    }
    double noise = 0;
    std::size_t count = 0;
    for (int c : preamble_empty_carriers(frame.num))
        for (int r = 0; r < rx; r++) {
            noise += std::norm(std::complex<double>(y(r, 0, c)));
            count++;
        }
    // The floor: a pilot symbol carries every stream, as the payload does.
    double pilot_power = 0;
    for (int r = 0; r < rx; r++)
        for (int s = 0; s < K; s++)
            for (int c = 0; c < U; c++)
                pilot_power += std::norm(std::complex<double>(y(r, first + s, c)));
    pilot_power /= double(rx) * K * U;
    e.noise_var = float(std::max(noise / double(std::max<std::size_t>(1, count)),
                                 pilot_power / max_estimated_snr));
    e.error_var.resize(std::size_t(U));
    e.noise_eff.resize(std::size_t(U));
    return count;
}

// Whether e's least-squares estimates may be smoothed: finite, with a usable N0 (else
// the detector refuses them; nothing to smooth).
bool smoothable(const channel_estimate& e)
{
    const bool finite = std::all_of(e.h.begin(), e.h.end(), [](std::complex<float> v) {
        return std::isfinite(v.real()) && std::isfinite(v.imag());
    });
    return finite && e.noise_var > 0 && std::isfinite(e.noise_var);
}

// The least-squares error per carrier where nothing was smoothed, then the detectors'
// effective noise from the error variances.
void finish(channel_estimate& e, bool smoothed)
{
    if (!smoothed)
        std::fill(e.error_var.begin(), e.error_var.end(), e.noise_var / e.tx);
    for (int c = 0; c < e.carriers; c++)
        e.noise_eff[std::size_t(c)] =
            effective_noise(e.noise_var, e.tx, e.error_var[std::size_t(c)]);
}

// estimate_channel with smooth(h, rx, tx, n0, error_var, n0_samples) for its smoothing
// step: a channel_smoother's or a smoothing_engine's.
template <typename Smoother, typename Smooth>
channel_estimate estimate_with(const frame_format& frame,
                               const std::complex<float>* carriers_rx,
                               int rx,
                               int symbols_per_antenna,
                               int block,
                               Smoother& smoother,
                               Smooth&& smooth)
{
    channel_estimate e;
    const std::size_t count = least_squares(frame, carriers_rx, rx, symbols_per_antenna,
                                            smoother.method(), smoother.carriers(), block, e);
    const bool smoothed = smoothable(e);
    if (smoothed)
        smooth(e.h.data(), rx, e.tx, double(e.noise_var) / e.tx, e.error_var.data(), double(count));
    finish(e, smoothed);
    return e;
}

} // namespace

channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna,
                                  channel_smoother& smoother,
                                  int block)
{
    if (smoother.window().taps != estimation_window(frame.num).taps)
        throw std::invalid_argument("estimate_channel: the smoother is for another numerology");
    return estimate_with(frame, carriers_rx, rx, symbols_per_antenna, block, smoother,
                         [&](std::complex<float>* h, int r, int t, double n0, float* ev, double n) {
                             smoother.smooth(h, r, t, n0, ev, n);
                         });
}

channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna,
                                  smoothing_engine& smoother,
                                  int block)
{
    // Its noise samples were fixed when it was made (the preamble's empty carriers on
    // every antenna, as here).
    return estimate_with(frame, carriers_rx, rx, symbols_per_antenna, block, smoother,
                         [&](std::complex<float>* h, int r, int t, double n0, float* ev, double) {
                             smoother.smooth(h, r, t, n0, ev);
                         });
}

void estimate_channels(const frame_format& frame,
                       const std::complex<float>* const* carriers_rx,
                       std::size_t frames,
                       int rx,
                       int symbols_per_antenna,
                       smoothing_engine& smoother,
                       std::vector<channel_estimate>& estimates)
{
    if (estimates.size() < frames) // never shrunk: the estimates' vectors are reused
        estimates.resize(frames);
    // Each frame's least squares; then the smoothable ones smoothed together, up to the
    // engine's max_frames() a call. The call's lists are kept per thread between calls,
    // so that a block's work() allocates nothing once they have grown.
    struct smoothing_call {
        std::vector<std::complex<float>*> h;
        std::vector<double> n0;
        std::vector<float*> error_var;
        std::vector<channel_estimate*> frames;
        void clear()
        {
            h.clear();
            n0.clear();
            error_var.clear();
            frames.clear();
        }
    };
    thread_local smoothing_call call;
    call.clear(); // what a call that threw may have left
    const auto flush = [&] {
        if (call.frames.empty())
            return;
        smoother.smooth_frames(call.h.data(), call.n0.data(), call.error_var.data(),
                               call.frames.size(), rx, frame.streams);
        for (channel_estimate* e : call.frames)
            finish(*e, true);
        call.clear();
    };
    for (std::size_t f = 0; f < frames; f++) {
        channel_estimate& e = estimates[f];
        least_squares(frame, carriers_rx[f], rx, symbols_per_antenna, smoother.method(),
                      smoother.carriers(), 0, e);
        if (!smoothable(e)) {
            finish(e, false);
            continue;
        }
        call.h.push_back(e.h.data());
        call.n0.push_back(double(e.noise_var) / e.tx);
        call.error_var.push_back(e.error_var.data());
        call.frames.push_back(&e);
        if (call.frames.size() == smoother.max_frames())
            flush();
    }
    flush();
}

channel_estimate estimate_channel(const frame_format& frame,
                                  const std::complex<float>* carriers_rx,
                                  int rx,
                                  int symbols_per_antenna,
                                  channel_estimator method)
{
    frame.validate();
    channel_smoother smoother(frame.num, method);
    return estimate_channel(frame, carriers_rx, rx, symbols_per_antenna, smoother);
}

} // namespace core
} // namespace gpumimo
} // namespace gr
