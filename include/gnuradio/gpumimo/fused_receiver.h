/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_FUSED_RECEIVER_H
#define INCLUDED_GPUMIMO_FUSED_RECEIVER_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief The receiver after synchronisation in one block: OFDM FFT, channel estimation
 * and detection of whole frames, on one GPU with only samples going in and LLRs coming
 * out over PCIe (core::gpu_fused_receiver), or on the CPU.
 * \ingroup gpumimo
 *
 * `antennas` inputs of complex samples, frames back to back as mimo_ofdm_sync sends
 * them (its output, carrier offset taken off); one output of LLRs, float or int8
 * (q = round(llr * int8_scale), clamped to +-127), payload_bits() per frame in the
 * frame's bit order (docs/frame.md), positive meaning 1: the same LLRs as mimo_ofdm_fft,
 * mimo_chanest and mimo_detector in a row. "frame_start" tags move to the frame's first
 * LLR. Every whole frame the scheduler offers goes to the GPU in one call (raise
 * mimo_ofdm_sync's minimum output buffer for larger calls).
 *
 * detector: a core::detector_spec, any detector of the registry with all its
 * parameters. estimator: the channel estimator, "lmmse" (default), "dft" or "ls"
 * (core/frame/estimation/channel_smoother.h); the detector gets its effective noise per carrier. backend auto, cuda or cpu (auto: the GPU when one is usable, else the CPU with a
 * logged warning); a failed GPU call is logged and that call's frames go through the
 * CPU. Frames holding non-finite samples and frames whose channel estimate is unusable
 * leave as zero LLRs ("no information"), counted and logged, never NaN.
 *
 * code (default "": the output is LLRs): the LDPC code the transmitter encoded with
 * (mimo_ofdm_tx's code). The block then decodes too, samples in and decoded bits out:
 * its output is bytes, each an information bit (0 or 1), info_bits() per frame; on the
 * GPU the LLRs never leave the device (core::gpu_fused_receiver::process_decoded), on
 * the CPU the same steps run in order. codewords(), codeword_errors(),
 * mean_iterations() and raw_ber() say what the decoder saw; llr_sink(decoded_input =
 * true) counts the bit and frame errors. int8_output does not go with a code.
 *
 * pilot_interval (default 0): the frames' pilot blocks, as mimo_ofdm_tx's: with blocks
 * every payload symbol is detected with the channel interpolated in time between the
 * blocks around it (core/frame/estimation/time_tracking.h, docs/frame.md "Tracking in time").
 */
class GPUMIMO_API fused_receiver : virtual public gr::block
{
public:
    typedef std::shared_ptr<fused_receiver> sptr;

    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     int antennas,
                     const core::detector_spec& detector = core::detector_spec(),
                     const std::string& backend = "auto",
                     bool int8_output = false,
                     float int8_scale = 8.0f,
                     int device = 0,
                     const std::string& estimator = "lmmse",
                     const std::string& code = "",
                     int pilot_interval = 0);

    /*! The detector and its parameters. */
    virtual core::detector_spec detector() const = 0;
    /*! Changes the detector while running (thread-safe): the new engine is made in the
     *  caller's thread, on the block's backend, and takes over at the next call of the
     *  block's work(). \throws std::invalid_argument for a spec this configuration
     *  cannot take (the running detector is kept). */
    virtual void set_detector(const core::detector_spec& detector) = 0;

    /*! Payload bits (LLRs) per frame. */
    virtual int payload_bits() const = 0;
    /*! Output items per frame: payload_bits() LLRs, or with a code its information
     *  bits. */
    virtual int info_bits() const = 0;
    /*! With a code: codewords decoded, those whose decisions fail a check, the mean
     *  decoding iterations, and the uncoded BER of the codewords that decoded. */
    virtual std::uint64_t codewords() const = 0;
    virtual std::uint64_t codeword_errors() const = 0;
    virtual double mean_iterations() const = 0;
    virtual double raw_ber() const = 0;
    /*! "cuda" or "cpu": where the frames go. */
    virtual std::string backend() const = 0;
    virtual std::uint64_t frames() const = 0;
    /*! Frames with non-finite samples (zero LLRs). */
    virtual std::uint64_t damaged_frames() const = 0;
    /*! Unusable channel estimates met (see core::fused_receiver_report). */
    virtual std::uint64_t unusable_estimates() const = 0;
    /*! The noise variance the last frame's empty preamble carriers showed. */
    virtual double last_noise_var() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
