/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_OFDM_TX_H
#define INCLUDED_GPUMIMO_MIMO_OFDM_TX_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief MIMO-OFDM frame source (docs/frame.md): Nt streams of complex samples, one
 * frame after another, the payload from a seeded PRBS or from a byte stream.
 * \ingroup gpumimo
 * \details
 * Each frame is core::frame_samples of the numerology `preset` ("small", "fft512",
 * "lte20"), `streams` transmit streams, `modulation` and `payload_symbols` payload
 * symbols, followed by `gap` zero samples. Output k is stream k. A tag "frame_start"
 * (value: the frame number, from 0) marks each frame's first sample on every output.
 *
 * payload "prbs" (no input): the payload bits come from a PRBS-23 (x^23 + x^18 + 1)
 * seeded by `seed` and continuing from frame to frame, so that a receiver knowing the
 * seed can count errors.
 *
 * payload "bytes" (one input of bytes): each frame takes frame_bits() / 8 bytes of the
 * input, their bits most significant first (core::unpack_bytes), as GNU Radio's packed
 * bytes. A frame is sent only once all its bytes are there: bytes left at the end of
 * the stream that do not fill a frame are not sent (pad the stream to whole frames);
 * llr_sink scores such a payload against the same bytes in a file. `seed` is unused.
 *
 * code (default "": uncoded): an LDPC code by name ("wimax_<n>", the 802.16e rate-1/2
 * code of length n = 576..2304; "nr_bg<1|2>_z<Z>[_rows<r>]", a 5G NR code of 38.212;
 * or an alist file's path). Each frame then carries
 * floor(payload bits / n) codewords, encoded from the PRBS's or the input's information
 * bits and interleaved over the frame (core::coded_payload, docs/frame.md "Coded
 * payload"); frame_bits() are the information bits.
 *
 * pilot_interval (default 0): frame format 4's pilot blocks, a block of the pilot
 * symbols after every pilot_interval payload symbols and one after the last, so that a
 * receiver can follow a channel that changes within the frame (docs/frame.md); 0 sends
 * the one block before the payload. The receiver's blocks take the same value.
 *
 * The transmitter's reference arithmetic on the CPU (frames are computed once per
 * frame, not per sample).
 */
class GPUMIMO_API mimo_ofdm_tx : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_ofdm_tx> sptr;

    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     std::uint32_t seed = 1,
                     int gap = 0,
                     const std::string& payload = "prbs",
                     const std::string& code = "",
                     int pilot_interval = 0);

    /*! Time samples per frame, the gap included. */
    virtual std::size_t frame_len() const = 0;
    /*! Information bits per frame: the payload bits, or with a code the codewords'
     *  information bits (what the PRBS or the input supplies). */
    virtual std::size_t frame_bits() const = 0;
    /*! Input bytes per frame with payload "bytes": frame_bits() / 8. */
    virtual std::size_t frame_bytes() const = 0;
    /*! Frames started so far. */
    virtual std::uint64_t frames() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
