/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_OFDM_TX_H
#define INCLUDED_GPUMIMO_MIMO_OFDM_TX_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief MIMO-OFDM frame source (docs/frame.md): Nt streams of complex samples, one
 * frame after another, the payload from a seeded PRBS.
 * \ingroup gpumimo
 * \details
 * Each frame is core::frame_samples of the numerology `preset` ("small", "fft512",
 * "lte20"), `streams` transmit streams, `modulation` and `payload_symbols` payload
 * symbols, followed by `gap` zero samples. Payload bits come from a PRBS-23 (x^23 + x^18
 * + 1) seeded by `seed` and continuing from frame to frame, so that a receiver knowing
 * the seed can count errors. Output k is stream k. A tag "frame_start" (value: the frame
 * number, from 0) marks each frame's first sample on every output. The transmitter's
 * reference arithmetic on the CPU (frames are computed once per frame, not per sample).
 */
class GPUMIMO_API mimo_ofdm_tx : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<mimo_ofdm_tx> sptr;

    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     std::uint32_t seed = 1,
                     int gap = 0);

    /*! Time samples per frame, the gap included. */
    virtual std::size_t frame_len() const = 0;
    /*! Payload bits per frame. */
    virtual std::size_t frame_bits() const = 0;
    /*! Frames started so far. */
    virtual std::uint64_t frames() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
