/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_APSM_FRAME_H
#define INCLUDED_GPUMIMO_CORE_APSM_FRAME_H

#include <gnuradio/gpumimo/core/frame/frame.h>

#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief mimo_ofdm_tx's frame as the APSM detector takes it (docs/apsm.md, "A live
 * chain"): each of the frame's streams is one single-antenna user, all users on the
 * same resource elements (REs).
 *
 * A frame's REs on one receive antenna, in the order they leave split(): first the
 * training, every used carrier of the pilot symbols 1..Nt (symbol by symbol, carriers
 * ascending), whose sent values every receiver knows (pilot_carriers() under
 * pilot_cover()); then the data, the data carriers of each payload symbol (the payload
 * bits' order: symbol by symbol, data carriers ascending). The preamble and the
 * tracking carriers are left out. Data REs of pi/2-BPSK are turned back
 * (payload_turn_back()) so that the detector sees BPSK (detected_modulation()).
 *
 * One APSM filter serves every carrier and every frame until the next training, so the
 * channel must look the same on all of them (a flat channel, as over the recordings'
 * 2.16 MHz, and one oscillator for all users, as the recordings' users shared the
 * transmitting radios). Three things break that by themselves, and apsm_frame_splitter
 * takes them off every RE before the detector sees it: a timing offset (the
 * synchroniser starts the FFT windows a quarter of the cyclic prefix early, and a
 * sample or so off at low SNR) turns carrier b by e^{2 pi i b d / N}; a carrier offset
 * left after the synchroniser's correction turns each frame as a whole against the one
 * trained on, and each payload symbol against its frame's pilots.
 */
class apsm_frame_layout
{
public:
    /*! std::invalid_argument where the frame is invalid (frame_format::validate). */
    explicit apsm_frame_layout(const frame_format& frame);

    const frame_format& frame() const { return d_frame; }
    int users() const { return d_frame.streams; }
    /*! OFDM symbols a frame takes in (preamble, pilots, payload). */
    std::size_t symbols_in() const { return std::size_t(d_frame.symbols()); }
    /*! Training REs per frame and antenna: Nt x used carriers. */
    std::size_t training_len() const { return d_training_len; }
    /*! Data REs per frame and antenna: payload symbols x data carriers. */
    std::size_t data_len() const { return d_data_len; }
    /*! REs out per frame and antenna: training_len() + data_len(). */
    std::size_t res_out() const { return d_training_len + d_data_len; }

    /*! What the users sent on the training REs, users x training_len() (user-major): the
     *  apsm_detector's pilots. */
    std::vector<std::complex<float>> training_symbols() const;

    /*! The FFT bin of each used carrier, counted from DC. */
    const std::vector<int>& bins() const { return d_bins; }
    const std::vector<int>& data_carrier_indices() const { return d_data_carriers; }
    const std::vector<std::complex<float>>& turn_back() const { return d_turn_back; }

    /*! The least-squares channel of a frame's pilot symbols (their orthogonal cover
     *  undone, as mimo_chanest's first estimate), times the number of pilot symbols,
     *  into h[antenna][user][used carrier] (antennas x users x used carriers values).
     *  frames[a]: antenna a's frame, symbols_in() x used carriers (the OFDM FFT's output
     *  from the preamble on). */
    void pilot_channel(const std::complex<float>* const* frames,
                       int antennas,
                       std::complex<double>* h) const;

    /*! The phase slope common to a frame's carriers, radians per FFT bin: the argument
     *  of the sum over antennas, users and neighbouring carriers b, b + 1 of
     *  H(b + 1) conj(H(b)), H = pilot_channel()'s h. 0 where the pilots carry nothing. */
    double timing_slope(const std::complex<double>* h, int antennas) const;

private:
    frame_format d_frame;
    std::size_t d_training_len = 0, d_data_len = 0;
    std::vector<int> d_data_carriers;
    std::vector<int> d_bins;                      // per used carrier, from DC
    std::vector<std::complex<float>> d_turn_back; // per data carrier
    std::vector<std::complex<float>> d_sent;      // training_symbols()
};

/*!
 * \brief Cuts frames into the APSM detector's REs (apsm_frame_layout's order) with the
 * timing slope and the carrier offset's phases taken off (see apsm_frame_layout).
 *
 * Per frame: the pilot channel H (apsm_frame_layout::pilot_channel), its timing slope
 * taken off every carrier; the frame's phase against the reference frame's channel
 * (the argument of sum H conj(H_ref)) taken off all of it; each payload symbol's phase
 * against the frame's pilots, measured on the tracking carriers (the argument of the
 * sum over antennas and tracking carriers of y conj(sum over users of H p), p what the
 * user sends there), taken off its data REs. The reference is the last frame split
 * with `reference` true (a training frame: the detector's filters are fitted to it).
 */
class apsm_frame_splitter
{
public:
    apsm_frame_splitter(const frame_format& frame, int antennas);

    const apsm_frame_layout& layout() const { return d_layout; }

    /*! Every antenna's frame (frames[a]: symbols_in() x used carriers) into res_out()
     *  REs each (res[a]): training, then data. `reference`: this frame becomes the
     *  reference (its own phase is then 0); the first frame always does. A frame whose
     *  pilot symbols hold a NaN or Inf cannot be measured: all its REs are NaN (the
     *  detector erases them), it never becomes the reference, and split() returns
     *  false; otherwise true. */
    bool split(const std::complex<float>* const* frames, std::complex<float>* const* res, bool reference);

    /*! The last frame's timing slope (radians per bin), its phase against the reference
     *  (radians) and each payload symbol's against its pilots. */
    double last_slope() const { return d_slope; }
    double last_frame_phase() const { return d_frame_phase; }
    const std::vector<double>& last_symbol_phases() const { return d_symbol_phases; }

private:
    apsm_frame_layout d_layout;
    int d_antennas;
    std::vector<int> d_tracking;                       // tracking carriers (used indices)
    std::vector<std::complex<double>> d_track_sent;    // [user][tracking carrier]
    std::vector<std::complex<double>> d_predicted;     // [antenna][tracking carrier]
    std::vector<std::complex<double>> d_channel;       // this frame's pilot channel
    std::vector<std::complex<double>> d_reference;     // pilot channel, slope taken off
    bool d_have_reference = false;
    double d_slope = 0, d_frame_phase = 0;
    std::vector<double> d_symbol_phases;
    std::vector<std::complex<double>> d_deslope;       // per used carrier: e^{-i slope b}
    std::vector<std::complex<float>> d_untwist;        // per used carrier
    std::vector<std::complex<float>> d_data_factor;    // [payload symbol][data carrier]
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
