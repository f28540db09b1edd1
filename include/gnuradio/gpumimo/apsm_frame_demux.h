/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUMIMO_APSM_FRAME_DEMUX_H
#define INCLUDED_GPUMIMO_APSM_FRAME_DEMUX_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief mimo_ofdm_tx's frames laid out for apsm_detector (docs/apsm.md, "A live
 * chain"): each of the frame's streams is one single-antenna user.
 * \ingroup gpumimo
 * \details
 * Inputs: `antennas` streams of OFDM symbols, vectors of the numerology's used carriers
 * (ofdm_fft's forward output after mimo_ofdm_sync, a "frame_start" tag on each frame's
 * preamble). Outputs: `antennas` streams of resource elements (REs), per frame first
 * the training (every used carrier of the users pilot symbols) and then the data (the
 * payload symbols' data carriers), core::apsm_frame_layout; apsm_detector takes them
 * with training_symbols() as its pilots. A tag `training_tag` (value: the frame's
 * number, from 0) on output 0 marks the first training RE of frame 0 and then of every
 * `train_every`-th frame (0: the first frame only); a message on the `train` port tags
 * the next frame as well, so that a retraining starts on pilots, never on data.
 *
 * Frames start at the "frame_start" tags of input 0, or back to back where there are
 * none. A frame cut short by the next tag is dropped, as are symbols before a frame's
 * tag; both are counted (dropped_symbols()) and logged, and no partial frame goes
 * out: each user's data REs stay whole frames, in the payload bits' order, so that
 * interleaving the users' detected REs gives llr_sink the frame's LLRs. A frame with
 * NaN or Inf in its pilot symbols cannot be measured: it goes out as NaN REs (the
 * detector erases them), counted (damaged_frames()) and logged, and a training due
 * on it moves to the next frame.
 */
class GPUMIMO_API apsm_frame_demux : virtual public gr::block
{
public:
    typedef std::shared_ptr<apsm_frame_demux> sptr;
    static sptr make(const std::string& preset,
                     int users,
                     const std::string& modulation,
                     int payload_symbols,
                     int antennas,
                     int train_every = 0,
                     const std::string& training_tag = "apsm_train");

    /*! Training REs per frame and antenna (users x used carriers). */
    virtual int training_len() const = 0;
    /*! Data REs per frame and antenna (payload symbols x data carriers). */
    virtual int data_len() const = 0;
    /*! Frames passed on. */
    virtual std::uint64_t frames() const = 0;
    /*! Frames whose training REs were tagged for a training. */
    virtual std::uint64_t trainings_tagged() const = 0;
    /*! Input symbols dropped: before a frame's tag, or in a frame cut short. */
    virtual std::uint64_t dropped_symbols() const = 0;
    /*! Frames passed on as NaN REs: NaN or Inf in their pilot symbols. */
    virtual std::uint64_t damaged_frames() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
