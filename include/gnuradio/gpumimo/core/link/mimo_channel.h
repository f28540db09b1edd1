/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_MIMO_CHANNEL_H
#define INCLUDED_GPUMIMO_CORE_MIMO_CHANNEL_H

#include <gnuradio/gpumimo/core/link/channel_profiles.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * The impairments of real radios the channel adds after the propagation and the
 * thermal noise (docs/channel.md). All 0 (and dc_dbc -inf): none.
 */
struct radio_impairments {
    /*! The transmitter's sample clock against the receiver's, parts per million: the
     *  received signal is the transmitted one at time t (1 + sco_ppm 1e-6), so its
     *  timing drifts by sco_ppm 1e-6 samples a sample (paths' delays shrink for > 0). */
    double sco_ppm = 0;
    /*! Wiener phase noise of the receiver's oscillator: the phase's variance growth,
     *  rad^2 a sample (2 pi linewidth / sample rate for a linewidth in Hz). */
    double phase_noise_var = 0;
    /*! One oscillator for every receive antenna (true) or one each (false). */
    bool common_oscillator = false;
    /*! Receive IQ imbalance: Q's amplitude over I's in dB and its phase error in degrees;
     *  y -> mu y + nu conj(y), mu = (1 + g e^{-i phi}) / 2, nu = (1 - g e^{i phi}) / 2. */
    double iq_gain_db = 0;
    double iq_phase_deg = 0;
    /*! A DC offset on every receive antenna, its power this many dB against the expected
     *  received signal power per antenna (its phase random per antenna, seeded); -inf:
     *  none. */
    double dc_dbc = -INFINITY;
};

/*! The SNRs the simulator takes, in dB: its noise variance finite and above zero (a
 *  setter given -1e308 once left a channel whose every call failed). */
constexpr double min_snr_db = -100, max_snr_db = 400;
/*! The longest delay in samples (its buffer is allocated per stream: 32 MB each). */
constexpr int max_delay_samples = 1 << 22;

/*! Parameters of the Nt-to-Nr channel simulator (docs/channel.md). */
struct channel_params {
    int tx = 1; //!< transmit streams
    int rx = 1; //!< receive antennas
    /*!
     * The propagation model:
     * - "taps": tap_powers, one tap per sample of delay (the default);
     * - "tdl-a" .. "tdl-e": TR 38.901's TDL models (channel_profiles.h), the tables'
     *   delays times delay_spread times sample_rate, not rounded;
     * - "paths": path_delays (samples, any real numbers >= 0) and path_powers.
     * Paths at delays that are not whole samples go through a windowed-sinc fractional
     * delay (fractional_delay.h) behind a bulk latency of fractional_delay_half_width
     * samples (path_latency()).
     */
    std::string model = "taps";
    /*! Power delay profile of "taps", one tap per sample of delay, normalised to a sum of
     *  1: {1} is flat i.i.d. Rayleigh fading, longer profiles a tapped delay line. */
    std::vector<double> tap_powers{ 1.0 };
    double delay_spread = 0; //!< TDL: the RMS delay spread, seconds
    double sample_rate = 0;  //!< TDL: the sample rate, Hz
    double k_factor_db = NAN; //!< TDL-D/E: the LOS K-factor, dB (NaN: the table's)
    std::vector<double> path_delays; //!< "paths": delays in samples
    std::vector<double> path_powers; //!< "paths": mean powers, normalised to a sum of 1
    /*! Antenna correlation (TS 36.101 Annex B.2.3.1): the end elements' correlation at
     *  the receiver (alpha) and the transmitter (beta), in [0, 1); each path's
     *  coefficients are R_rx^(1/2) Z R_tx^(T/2). Not with model "taps". */
    double rx_correlation = 0;
    double tx_correlation = 0;
    radio_impairments impairments;
    /*! Mean received signal power over the block and all antennas over the noise power
     *  per antenna, dB. */
    double snr_db = 30;
    double cfo = 0; //!< carrier frequency offset, cycles per sample
    /*! Maximum Doppler shift, cycles per sample (f_D over the sample rate), 0 to 0.5:
     *  0 is block fading; above 0 every tap fades in time with Jakes' (Clarke's)
     *  spectrum, autocorrelation J0(2 pi doppler lag). */
    double doppler = 0;
    int delay = 0;  //!< samples of noise alone before the signal (timing offset)
    std::uint64_t seed = 1;
};

/*! The model names channel_params::model takes: "taps", "paths" and tdl_model_names(). */
std::vector<std::string> channel_model_names();

/*! Throws std::invalid_argument naming the first bad field. */
void validate(const channel_params& p);

/*!
 * \brief Nt x Nr channel: a tapped delay line (each tap i.i.d. CN(0, tap power) per
 * receive antenna and transmit stream), a carrier frequency offset, a timing offset and
 * white Gaussian noise; seeded, repeatable. With doppler 0 the taps are drawn once
 * (block fading); above 0 each tap is a sum of doppler_sinusoids sinusoids of random
 * arrival angle and phase, sqrt(power / M) sum_m e^{i (2 pi doppler cos(a_m) t + p_m)}
 * (t the channel's own sample count): its autocorrelation over the draws is
 * power J0(2 pi doppler lag), Jakes' spectrum, and it is close to Gaussian.
 *
 * The path models ("tdl-a" .. "tdl-e", "paths") draw each path's coefficient the same
 * way (a LOS path: a constant amplitude turned by its Doppler shift doppler cos(pi/4)),
 * correlate them across the antennas, and hand the result to the same tapped delay line
 * as taps h[l] = sum_p a_p w(l - latency - delay_p), w the windowed sinc of
 * fractional_delay.h, refreshed every path_update() samples when they move (Doppler, a
 * sample clock offset). Then the radio's impairments (radio_impairments) after the
 * noise: phase noise, IQ imbalance, DC.
 */
class mimo_channel
{
public:
    /*! Sinusoids per tap of a time-varying channel. */
    static constexpr int doppler_sinusoids = 16;

    explicit mimo_channel(const channel_params& p);

    const channel_params& params() const { return d_p; }
    /*! The taps, [rx][tx][tap_count()]: with a Doppler shift or a sample clock offset,
     *  those the next sample meets (after apply(), the first sample's). Tap l multiplies
     *  the input l samples back (the model "taps": tap_powers' taps; a path model: its
     *  paths' fractional delays, path_latency() samples late). */
    const std::vector<std::complex<float>>& taps() const { return d_taps; }
    int tap_count() const { return d_L; }
    /*! The bulk latency of a path model, samples: a path at delay 0 peaks at tap
     *  path_latency() (room for its windowed sinc's first half). 0 for "taps". */
    int path_latency() const { return d_latency; }
    /*! Samples between refreshes of a path model's moving taps (1 for "taps"). */
    int path_update() const { return d_update; }

    /*! A block on its own (the stream starts over): tx holds p.tx streams of n samples
     *  each, stream-major. Returns p.rx streams of n + delay samples, antenna-major:
     *  y_r[t + delay] = e^{2 pi i cfo t} sum_k sum_l h[r][k][l] x_k[t - l] + noise (x = 0
     *  before the block), noise in the first delay samples too; the noise power is the
     *  block's realised mean signal power per antenna over 10^(snr_db / 10), the DC
     *  offset's power relative to that signal power. Non-finite input throws
     *  std::invalid_argument. */
    std::vector<std::complex<float>> apply(const std::complex<float>* tx, std::size_t n);

    /*! The noise variance per sample process() adds for inputs of mean power
     *  signal_power per stream: the expected received power per antenna (averaged over
     *  the fading: tx * signal_power, the taps' powers summing to 1) over 10^(snr_db/10). */
    double stream_noise_var(double signal_power) const;

    /*! Streaming, continuing across calls (filter memory, carrier phase, phase noise):
     *  in[k] holds n samples of stream k, out[r] receives n samples of antenna r, with
     *  the formula of apply() counted from the stream's first sample (the first `delay`
     *  outputs are noise alone) and noise of variance noise_var (the DC offset's power
     *  relative to noise_var 10^(snr_db / 10)). A sample clock offset moves the paths'
     *  delays by sco_ppm 1e-6 a sample: a stream may drift up to max_drift() samples,
     *  then process() throws std::runtime_error (restart() starts over). Non-finite
     *  input throws std::invalid_argument before anything is written or the state moves. */
    void process(const std::complex<float>* const* in,
                 std::complex<float>* const* out,
                 std::size_t n,
                 double noise_var);

    /*! Samples of timing drift a path model's taps have room for (0 without a sample
     *  clock offset). */
    int max_drift() const { return d_drift_room; }

    /*! Forgets the stream: filter memory, carrier phase, phase noise and the taps' time
     *  back to the start. */
    void restart();

    /*! A new SNR (finite) for apply() and stream_noise_var(); the taps stay. */
    void set_snr_db(double snr_db);
    /*! New radio impairments from the next sample on (validated as the constructor
     *  does; the sample clock offset cannot change: the taps' layout depends on it). The
     *  oscillators' phases and the DC's draws start over from the seed. */
    void set_impairments(const radio_impairments& m);
    /*! A new carrier offset (finite), cycles per sample, from the next sample on: the
     *  phase stays e^{2 pi i cfo t} of the signal's own time t, so it jumps where the
     *  offset changes, as a new oscillator's would. */
    void set_cfo(double cfo);

private:
    void check_finite(const std::complex<float>* const* in, std::size_t n) const;
    void propagate(const std::complex<float>* const* in,
                   std::complex<float>* const* out,
                   std::size_t n);
    void add_noise(std::complex<float>* const* out, std::size_t n, double noise_var);
    // The radio's impairments on n output samples, the DC at signal_power 10^(dc_dbc/10).
    void impair(std::complex<float>* const* out, std::size_t n, double signal_power);

    channel_params d_p;
    void move_taps(); // a time-varying channel one sample on
    void start_taps(); // a time-varying channel back to time 0
    // A path model: its coefficients at the stream's sample t, the taps from them.
    void setup_paths();
    void path_taps(std::uint64_t t);
    void setup_radio();

    int d_L = 1; // taps per rx x tx pair
    std::vector<std::complex<float>> d_taps;
    // A time-varying channel: per tap M sinusoids, their start phasors and per-sample
    // steps, [tap][M], and their phasors now; the taps' amplitudes sqrt(power / M).
    std::vector<std::complex<double>> d_start, d_step, d_phasor;
    std::vector<double> d_amplitude;
    // A path model: the paths; per [rx][tx][path] the coefficient's sinusoids (phase at
    // 0, cycles a sample) or its fixed value; the correlation's square roots.
    std::vector<channel_path> d_paths;
    int d_latency = 0, d_update = 1, d_drift_room = 0;
    std::vector<double> d_sin_phase, d_sin_freq;   // [rx][tx][path][M]
    std::vector<std::complex<double>> d_fixed;      // [rx][tx][path]
    std::vector<double> d_rx_root, d_tx_root;       // lower Cholesky factors
    std::vector<std::complex<double>> d_coef, d_mixed;  // [rx][tx][path]: drawn, correlated
    std::vector<double> d_kernel;                   // [path][taps]: scratch
    bool d_paths_move = false;
    // The radio: IQ imbalance's mu and nu, each antenna's DC, the oscillators' phases.
    std::complex<double> d_mu = 1, d_nu = 0;
    std::vector<std::complex<float>> d_dc_phasor;
    std::vector<double> d_phase;
    std::mt19937_64 d_radio_rng;
    std::normal_distribution<double> d_phase_step{ 0.0, 1.0 };
    std::mt19937_64 d_rng;
    std::normal_distribution<double> d_noise{ 0.0, 1.0 }; // the thermal noise's, kept across calls
    /*! The last delay + taps - 1 input samples of each stream, oldest first. */
    std::vector<std::vector<std::complex<float>>> d_history;
    /*! Input samples (delay included) the stream has taken so far. */
    std::uint64_t d_time = 0;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
