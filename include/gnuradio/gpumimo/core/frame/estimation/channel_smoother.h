/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_CHANNEL_SMOOTHER_H
#define INCLUDED_GPUMIMO_CORE_CHANNEL_SMOOTHER_H

#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/host_device.h>

#include <cmath>

#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief How a frame's channel is estimated from its pilots (docs/frame.md, "Channel
 * estimation"):
 * - ls: least squares per carrier, Y / P: error variance N0 on every carrier.
 * - dft: the estimates to the delay domain, only the taps in the delay window (the
 *   cyclic prefix) kept, back to the carriers; the taps are fitted to the used
 *   carriers by least squares regularised with a flat power delay profile (the
 *   channel's power spread evenly over the window), because the plain inverse DFT
 *   over the used carriers alone leaks at the band's edges (the empty carriers beyond
 *   them cut the taps' spectrum: measured 11x least squares' error at 20 dB, small
 *   preset) and the plain least-squares fit is ill-conditioned. Error about N0 L / U.
 * - lmmse: the linear MMSE estimate over frequency with the correlation of the power
 *   delay profile estimated from dft's taps (each tap's power over the rx x tx channels
 *   less twice its noise, 0 below: taps not clearly above their noise left out), then
 *   a second look at the residual: taps it shows clearly above its noise join the
 *   profile and the system is solved again (the taps a delay between two samples
 *   spreads over). The default: the least error.
 * Both solve R (R + n0 I)^-1 H_ls, R = F P F^H, in the delay window: an L x L system,
 * L the window's taps, instead of U x U.
 */
enum class channel_estimator { ls, dft, lmmse };

/*! "ls", "dft", "lmmse". */
std::string to_string(channel_estimator e);
/*! The estimator of that name; std::invalid_argument naming the choices otherwise. */
channel_estimator parse_channel_estimator(const std::string& name);
/*! "ls dft lmmse": the names, for messages and menus. */
std::vector<std::string> channel_estimator_names();

/*! The delay taps the smoothing estimators keep: `taps` consecutive delays from
 *  `first` (negative: before the FFT window's start). The synchroniser starts the FFT
 *  windows a quarter of the first prefix early, so a channel's taps arrive from there
 *  to the prefix's end; the window is the first prefix with an eighth of it before 0
 *  (timing errors late). */
struct delay_window {
    int first = 0;
    int taps = 0;
};
delay_window estimation_window(const numerology& num);

/*!
 * \brief Smooths least-squares channel estimates over frequency (CPU reference, double
 * precision inside). Built once per numerology and estimator (twiddles and the
 * estimator's fixed matrices), smooth() then per frame; smooth() allocates nothing
 * after its first call of a size. gpu_channel_smoother is held to it by
 * tests/frame/estimation/test_gpu_channel_smoother.cc.
 */
class channel_smoother
{
public:
    channel_smoother(const numerology& num, channel_estimator method);

    channel_estimator method() const { return d_method; }
    const delay_window& window() const { return d_window; }
    int carriers() const { return d_U; }

    /*!
     * h: [carrier][rx][tx] least-squares estimates (error variance n0 per element,
     * independent across carriers), replaced by the smoothed ones. n0 > 0: the noise
     * variance. error_var (carriers() values): each element's estimation-error variance
     * per carrier: what the estimator's model gives (ls: n0; dft: its noise part; lmmse:
     * the posterior variance) plus, for dft and lmmse, smoothing_mismatch() of the
     * residual H_ls - H (a tap the profile left out, the edge bias, taps beyond the
     * window), spread evenly over the carriers; mismatch() says how much that was.
     * n0_samples: how many samples' mean power n0 is (the preamble's empty carriers x
     * rx), so that its own spread is not taken for a mismatch; 0: n0 is exact.
     */
    void smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var, double n0_samples = 0);

    /*! The delay-domain view of the last smooth(): dft_taps() ([rx * tx][taps], 1/U
     *  times the inverse DFT over the used carriers) and the power delay profile the
     *  estimate assumed (tap powers; lmmse: 0 where left out). */
    const std::vector<std::complex<double>>& dft_taps() const { return d_g; }
    const std::vector<double>& power_delay_profile() const { return d_pdp; }
    /*! The last smooth()'s smoothing_mismatch, included in every carrier's error_var
     *  (0 for ls). */
    double mismatch() const { return d_mismatch; }

    /*! F[c][j] = e^{-2 pi i k_c d_j / N}, k_c carrier c's frequency index, d_j the
     *  window's j-th delay: the channel on carrier c from tap j. */
    std::complex<double> twiddle(int c, int j) const;
    /*! e^{2 pi i k_c delta / N}: what a delay difference delta turns carrier c by. */
    std::complex<double> delay_phasor(int c, int delta) const;
    /*! F^H F, [taps][taps] (Toeplitz): the fixed part the GPU version copies. */
    const std::vector<std::complex<double>>& gram() const { return d_gram; }

private:
    void solve(double n0, int P);
    bool add_missed_taps(double n0, int P);

    channel_estimator d_method;
    numerology d_num;
    delay_window d_window;
    int d_U, d_L;
    std::vector<int> d_freq;                     // k_c
    std::vector<std::complex<double>> d_F;       // [c][j]
    std::vector<std::complex<double>> d_gram;    // F^H F, [L][L]
    // Per call:
    std::vector<std::complex<double>> d_g, d_G, d_Ginv, d_taps, d_z, d_diag;
    std::vector<double> d_pdp;
    double d_mismatch = 0;
};

/*!
 * What a smoothing estimate's model leaves out, per element and carrier. The residual
 * H_ls - H of a linear smoother S holds the noise S removed, n0 (U - tr S) in
 * expectation over a channel's U carriers (tr S: the model's error variance summed over
 * the carriers, over n0; at most n0 (U - 2 tr S + tr S^2), which this slightly
 * overstates), and whatever the estimate misses: a real tap the profile left out, the
 * regularisation's bias at the band's edges, taps beyond the window. `residual_power`:
 * the residual's power summed over the carriers, averaged over the P channels. Its
 * excess over the expected noise, less two standard deviations of that expectation (the
 * noise's own spread over dof = U - tr S dimensions and P channels, relative 1 /
 * sqrt(dof P), and n0's when it is the mean power of n0_samples samples, relative 1 /
 * sqrt(n0_samples)), per carrier; 0 when nothing is left. A frame that misses nothing
 * thus adds about 1% to the model's error on average (one deviation added 15% in
 * qa_mimo_receiver's test, where N0 is the mean of 96 samples), one that leaves a tap out
 * gets most of its error reported (tests/frame/estimation/test_channel_smoother.cc). Continuous in its inputs
 * (rounding moves it by rounding, never across a threshold). The CPU smoother and
 * gpu_channel_smoother share it.
 */
GPUMIMO_HOST_DEVICE inline double
smoothing_mismatch(double residual_power, double n0, int U, double trace, int P, double n0_samples)
{
    const double dof = double(U) - trace > 0 ? double(U) - trace : 0.0;
    const double spread2 = (dof > 0 ? 1.0 / (dof * double(P)) : 0.0) + (n0_samples > 0 ? 1.0 / n0_samples : 0.0);
    const double excess = residual_power - n0 * dof * (1.0 + 2.0 * sqrt(spread2));
    return excess > 0 ? excess / double(U) : 0.0;
}

/*! lmmse's second look: a tap joins the profile where the residual's power over the P
 *  channels exceeds this many times its noise n0 / U, 1 + 7 / sqrt(P) (the mean of P
 *  noise powers is 1 with a spread of 1 / sqrt(P): seven spreads above it). The CPU
 *  smoother and gpu_channel_smoother share it. */
GPUMIMO_HOST_DEVICE inline double missed_tap_threshold(int P) { return 1.0 + 7.0 / sqrt(double(P)); }

/*! The detectors' noise per carrier from an estimate: n0 plus tx times the estimate's
 *  error variance there (the error E x of y = (H^ + E) x + n, unit-energy streams). */
inline float effective_noise(double n0, int tx, float error_var)
{
    return float(n0 + double(tx) * double(error_var));
}

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
