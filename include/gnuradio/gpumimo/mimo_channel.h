/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_CHANNEL_H
#define INCLUDED_GPUMIMO_MIMO_CHANNEL_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <cmath>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {

/*!
 * \brief Nt-to-Nr MIMO channel simulator: a tapped delay line, fixed or fading in time
 * (doppler), carrier frequency and timing offsets, white Gaussian noise; seeded and
 * repeatable.
 * \ingroup gpumimo
 *
 * Nt inputs, Nr outputs (complex float). The taps are drawn from the seed, i.i.d.
 * CN(0, tap power) per antenna pair and tap (tap_powers {1}: flat i.i.d. Rayleigh),
 * once with doppler 0, fading in time with Jakes' spectrum for a maximum Doppler shift
 * of `doppler` cycles per sample otherwise (core::channel_params::doppler);
 * core::mimo_channel does the work (docs/channel.md). `model` "tdl-a" .. "tdl-e" takes
 * TR 38.901's TDL profiles instead of tap_powers (delay_spread seconds, sample_rate Hz;
 * continuous path delays, a bulk latency of 16 samples), with antenna correlation
 * (`correlation`: none, low, medium, medium-a, high of TS 36.101 Annex B) and the
 * receiver's impairments: Wiener phase noise (rad^2 a sample), IQ imbalance (dB,
 * degrees), a DC offset (dB against the received signal; -inf: none), each with a
 * setter. A sample clock offset is not offered here: its drift grows without bound in a
 * stream (gpumimo_rx_quality applies it per frame; in a flowgraph, GNU Radio's MMSE
 * Resampler before this block). The SNR is the
 * expected received power per antenna over the noise power, for inputs of mean power
 * signal_power per stream (mimo_ofdm_tx's payload: used carriers / FFT length).
 * Non-finite input samples are taken as 0, counted and logged, never passed on.
 */
class GPUMIMO_API mimo_channel : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<mimo_channel> sptr;

    static sptr make(int tx,
                     int rx,
                     const std::vector<double>& tap_powers = { 1.0 },
                     double snr_db = 30,
                     double signal_power = 1.0,
                     double cfo = 0,
                     int delay = 0,
                     std::uint64_t seed = 1,
                     double doppler = 0,
                     const std::string& model = "taps",
                     double delay_spread = 0,
                     double sample_rate = 0,
                     const std::string& correlation = "none",
                     double phase_noise_var = 0,
                     double iq_gain_db = 0,
                     double iq_phase_deg = 0,
                     double dc_dbc = -INFINITY);

    /*! The taps, [rx][tx][tap]. */
    virtual std::vector<gr_complex> taps() const = 0;

    /*! Changes while running, thread-safe, from the next call of work() on (GRC
     *  callbacks); each throws std::invalid_argument for a value make() refuses. */
    virtual void set_snr_db(double snr_db) = 0;
    /*! The carrier offset, cycles per sample; its phase follows the signal's own time. */
    virtual void set_cfo(double cfo) = 0;
    /*! The timing offset: the stream starts over (filter memory, carrier phase), with
     *  `delay` samples of noise first, as at the start. */
    virtual void set_delay(int delay) = 0;
    /*! A new channel: the taps and the noise drawn from the seed, the stream over. */
    virtual void set_seed(std::uint64_t seed) = 0;
    /*! The receiver's impairments (make()'s ranges); the oscillators start over. */
    virtual void set_phase_noise_var(double phase_noise_var) = 0;
    virtual void set_iq_imbalance(double iq_gain_db, double iq_phase_deg) = 0;
    virtual void set_dc_dbc(double dc_dbc) = 0;
    virtual double phase_noise_var() const = 0;
    virtual double iq_gain_db() const = 0;
    virtual double iq_phase_deg() const = 0;
    virtual double dc_dbc() const = 0;
    virtual double snr_db() const = 0;
    virtual double cfo() const = 0;
    virtual int delay() const = 0;
    virtual std::uint64_t seed() const = 0;
    /*! The maximum Doppler shift, cycles per sample. */
    virtual double doppler() const = 0;
    /*! Noise variance per sample and antenna. */
    virtual double noise_var() const = 0;
    /*! Non-finite input samples replaced by 0 so far. */
    virtual std::uint64_t bad_samples() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
