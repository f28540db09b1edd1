/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_LLR_SINK_H
#define INCLUDED_GPUMIMO_LLR_SINK_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief The end of the receiver: writes LLRs to a file with a JSON sidecar, counts bit
 * and frame errors live against the known payload (a PRBS or a reference file), keeps
 * LLR statistics and throughput.
 * \ingroup gpumimo
 *
 * One input of LLRs (float, or int8 as mimo_detector writes them: llr = q /
 * int8_scale), frames of frame_bits() LLRs in the frame's bit order. A frame begins at
 * every "frame_start" tag (and at the first sample); a frame cut short by the next tag
 * is counted as partial and not scored.
 *
 * filename: "" writes nothing; otherwise the LLRs as they arrive (raw float32 or int8)
 * and filename + ".json" naming dtype, scale, sign, layout, the frame format and the
 * payload, rewritten with the totals when the flowgraph stops.
 *
 * The payload, for scoring every whole frame: reference_file, when not "", names the
 * bytes mimo_ofdm_tx sent with payload "bytes" (the same file, read whole at
 * construction; core::reference_error_counter, which follows lost frames and a
 * transmitter repeating the file); otherwise prbs_seed, when not 0, is the seed of
 * mimo_ofdm_tx's PRBS-23 (core::prbs_error_counter); with neither the payload is
 * unknown and nothing is scored. Lost frames are followed on frame boundaries (the
 * counters try the payload one, two, ... frames further on; core::payload_error_counter),
 * so a loss at 10% raw BER is found again at the next frame; a frame that matches no
 * candidate better than a guess is not compared: it counts in frame_errors() and
 * unsynchronised_frames(), its bits stay out of bits() and ber(). report_every: every
 * that many frames a dict of the counters leaves through the "stats" message port (0:
 * only at stop()), and the error rates of just those frames through "error_rates": a
 * PDU (metadata {frames: frames so far, window_frames}, f32vector [BER before
 * decoding, FER]) for a plot over time (PDU to Tagged Stream, Deinterleave, QT GUI
 * Time Sink: examples/sim_loopback_qt.grc and replay_sigmf_qt.grc). The BER before
 * decoding is raw_ber()'s over the window when coded, ber()'s otherwise; the FER is
 * fer()'s (after decoding when coded). stop() logs a summary, naming the frames that could not be compared.
 *
 * code (default "": uncoded): the LDPC code mimo_ofdm_tx encoded with (the same name).
 * Each frame's LLRs are de-interleaved and decoded (core::payload_decoder: the GPU
 * decoder when one is usable, else the CPU; min-sum, 10 iterations, early stop), and
 * the decoded information bits are what bits(), bit_errors(), frame_errors() and
 * ber()/fer() count: the coded link's error rates. codewords(), codeword_errors(),
 * mean_iterations() and raw_ber() say what the decoder saw.
 *
 * decoded_input (default false): the input is bytes of bits already decoded
 * (fused_receiver with the same code: the code's information bits per frame; without a
 * code, payload bits), counted as they come; bits(), ber(), fer() and the stats port
 * work as above, the decoder's own counts are the fused receiver's (its codewords(),
 * codeword_errors(), raw_ber()), and llrs() counts bits (each an LLR of +-1). No LLR
 * file goes with it (std::invalid_argument), nor int8_input.
 */
class GPUMIMO_API llr_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<llr_sink> sptr;

    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     bool int8_input = false,
                     float int8_scale = 8.0f,
                     const std::string& filename = "",
                     std::uint32_t prbs_seed = 1,
                     int report_every = 0,
                     const std::string& reference_file = "",
                     const std::string& code = "",
                     bool decoded_input = false);

    /*! LLRs per frame (the payload bits). */
    virtual std::size_t frame_bits() const = 0;
    /*! Bits scored per frame: frame_bits(), or with a code the codewords' information
     *  bits. */
    virtual std::size_t info_bits() const = 0;
    /*! With a code: codewords decoded, those whose decisions failed a check, the mean
     *  iterations, and the uncoded (pre-decoding) bit errors: the LLRs' signs against
     *  the decoded codewords that satisfied every check. 0 without a code. */
    virtual std::uint64_t codewords() const = 0;
    virtual std::uint64_t codeword_errors() const = 0;
    virtual double mean_iterations() const = 0;
    virtual std::uint64_t raw_bits() const = 0;
    virtual std::uint64_t raw_bit_errors() const = 0;
    virtual double raw_ber() const = 0;
    /*! "cuda" or "cpu": where the LDPC decoder runs ("" without a code). */
    virtual std::string decoder_backend() const = 0;
    /*! Whole frames received (and scored when the payload is known). */
    virtual std::uint64_t frames() const = 0;
    /*! Frames cut short by the next frame_start tag. */
    virtual std::uint64_t partial_frames() const = 0;
    /*! Bits of the compared frames (not those of unsynchronised_frames()). */
    virtual std::uint64_t bits() const = 0;
    virtual std::uint64_t bit_errors() const = 0;
    /*! Frames with a bit error, and the frames that could not be compared. */
    virtual std::uint64_t frame_errors() const = 0;
    /*! bit_errors() / bits(). */
    virtual double ber() const = 0;
    /*! frame_errors() / frames(). */
    virtual double fer() const = 0;
    /*! Frames that matched the payload further on than the continuation of the frame
     *  before (frames were lost before them). */
    virtual std::uint64_t resynchronisations() const = 0;
    /*! Frames that could not be compared: no payload candidate matched better than a
     *  guess (a wrong seed or reference, a frame that is noise, or a loss longer than
     *  the counters follow). */
    virtual std::uint64_t unsynchronised_frames() const = 0;
    virtual std::uint64_t llrs() const = 0;
    virtual double mean_abs_llr() const = 0;
    /*! Zero LLRs: erasures of the detector. */
    virtual std::uint64_t zero_llrs() const = 0;
    /*! Non-finite LLRs received (the chain's blocks never send them; counted, scored
     *  as erasures). */
    virtual std::uint64_t non_finite_llrs() const = 0;
    /*! LLRs per second of wall-clock time from the first to the last sample. */
    virtual double llr_rate() const = 0;
    /*! Starts every count above (frames, errors, LLR statistics, the rate) over from
     *  now; thread-safe. The payload's synchronisation and the LLR file go on. A
     *  message on the "reset" input port does the same. */
    virtual void reset_counters() = 0;
    /*! The counters as a PMT dict, as the "stats" port sends them: one snapshot, taken
     *  under the block's lock (the getters above each are too, but two of them read at
     *  different moments may disagree: unsynchronised_frames() above frames()). */
    virtual pmt::pmt_t stats() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
