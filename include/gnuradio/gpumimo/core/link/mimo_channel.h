/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_MIMO_CHANNEL_H
#define INCLUDED_GPUMIMO_CORE_MIMO_CHANNEL_H

#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*! Parameters of the Nt-to-Nr channel simulator (docs/frame.md). */
struct channel_params {
    int tx = 1; //!< transmit streams
    int rx = 1; //!< receive antennas
    /*! Power delay profile, one tap per sample of delay, normalised to a sum of 1:
     *  {1} is flat i.i.d. Rayleigh fading, longer profiles a tapped delay line. */
    std::vector<double> tap_powers{ 1.0 };
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
 */
class mimo_channel
{
public:
    /*! Sinusoids per tap of a time-varying channel. */
    static constexpr int doppler_sinusoids = 16;

    explicit mimo_channel(const channel_params& p);

    const channel_params& params() const { return d_p; }
    /*! The taps, [rx][tx][tap]: with a Doppler shift, those the next sample meets
     *  (after apply(), the first sample's). */
    const std::vector<std::complex<float>>& taps() const { return d_taps; }

    /*! A block on its own (the stream starts over): tx holds p.tx streams of n samples
     *  each, stream-major. Returns p.rx streams of n + delay samples, antenna-major:
     *  y_r[t + delay] = e^{2 pi i cfo t} sum_k sum_l h[r][k][l] x_k[t - l] + noise (x = 0
     *  before the block), noise in the first delay samples too; the noise power is the
     *  block's realised mean signal power per antenna over 10^(snr_db / 10).
     *  Non-finite input throws std::invalid_argument. */
    std::vector<std::complex<float>> apply(const std::complex<float>* tx, std::size_t n);

    /*! The noise variance per sample process() adds for inputs of mean power
     *  signal_power per stream: the expected received power per antenna (averaged over
     *  the fading: tx * signal_power, the taps' powers summing to 1) over 10^(snr_db/10). */
    double stream_noise_var(double signal_power) const;

    /*! Streaming, continuing across calls (filter memory, carrier phase): in[k] holds n
     *  samples of stream k, out[r] receives n samples of antenna r, with the formula of
     *  apply() counted from the stream's first sample (the first `delay` outputs are
     *  noise alone) and noise of variance noise_var. Non-finite input throws
     *  std::invalid_argument before anything is written or the state moves. */
    void process(const std::complex<float>* const* in,
                 std::complex<float>* const* out,
                 std::size_t n,
                 double noise_var);

    /*! Forgets the stream: filter memory and carrier phase back to the start. */
    void restart();

    /*! A new SNR (finite) for apply() and stream_noise_var(); the taps stay. */
    void set_snr_db(double snr_db);
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

    channel_params d_p;
    void move_taps(); // a time-varying channel one sample on
    void start_taps(); // a time-varying channel back to time 0

    std::vector<std::complex<float>> d_taps;
    // A time-varying channel: per tap M sinusoids, their start phasors and per-sample
    // steps, [tap][M], and their phasors now; the taps' amplitudes sqrt(power / M).
    std::vector<std::complex<double>> d_start, d_step, d_phasor;
    std::vector<double> d_amplitude;
    std::mt19937_64 d_rng;
    /*! The last delay + taps - 1 input samples of each stream, oldest first. */
    std::vector<std::vector<std::complex<float>>> d_history;
    /*! Input samples (delay included) the stream has taken so far. */
    std::uint64_t d_time = 0;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
