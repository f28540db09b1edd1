/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_STREAM_RECEIVER_H
#define INCLUDED_GPUMIMO_STREAM_RECEIVER_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief The whole MIMO-OFDM receiver in one block: received sample streams in, each
 * frame's LLRs out. Synchronisation (mimo_ofdm_sync's search and carrier-offset
 * correction), OFDM FFT, channel estimation and detection (fused_receiver's), on one
 * GPU with the frames never leaving the device (core::stream_receiver_engine: the
 * samples cross PCIe once, the LLRs once), or on the CPU.
 * \ingroup gpumimo
 *
 * `antennas` inputs of complex samples as the radios give them; one output of LLRs,
 * float or int8 (q = round(llr * int8_scale), clamped to +-127), payload_bits() per
 * frame in the frame's bit order (docs/frame.md), positive meaning 1: the LLRs of
 * mimo_ofdm_sync followed by fused_receiver. A "frame_start" tag on each frame's first
 * LLR, value a dict: frame (count from 0), cfo (cycles per sample), metric, offset
 * (input sample of the frame's start), as mimo_ofdm_sync's.
 *
 * Frames are dropped, counted and logged as mimo_ofdm_sync drops them: a frame holding
 * a sample that is not finite or beyond +-1e15, or with a UHD "rx_time" tag after its
 * first sample (a gap in time). Frames whose channel estimate is unusable leave as zero
 * LLRs, counted. detector, estimator, backend, device, int8_output and int8_scale as
 * fused_receiver's; threshold as mimo_ofdm_sync's; pilot_interval as both. No code: decode the LLRs after it
 * (ldpc_decoder, llr_sink) or use fused_receiver with a code.
 */
class GPUMIMO_API stream_receiver : virtual public gr::block
{
public:
    typedef std::shared_ptr<stream_receiver> sptr;

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
                     double threshold = 0,
                     int pilot_interval = 0);

    virtual core::detector_spec detector() const = 0;
    /*! Changes the detector while running (thread-safe; the new engine is made in the
     *  caller's thread and takes over at the next work()). \throws std::invalid_argument
     *  for a spec this configuration cannot take (the running detector is kept). */
    virtual void set_detector(const core::detector_spec& detector) = 0;
    /*! As mimo_ofdm_sync::set_threshold. */
    virtual void set_threshold(double threshold) = 0;
    virtual double threshold() const = 0;
    /*! Payload bits (LLRs) per frame. */
    virtual int payload_bits() const = 0;
    /*! "cuda" or "cpu": where the samples go. */
    virtual std::string backend() const = 0;
    /*! Frames passed on. */
    virtual std::uint64_t frames() const = 0;
    /*! Frames found but dropped (unusable samples, gaps in time). */
    virtual std::uint64_t dropped_frames() const = 0;
    /*! Of those, the frames dropped for a sample not finite or beyond +-1e15. */
    virtual std::uint64_t damaged_frames() const = 0;
    /*! Unusable channel estimates met (see core::fused_receiver_report). */
    virtual std::uint64_t unusable_estimates() const = 0;
    virtual double last_cfo() const = 0;
    virtual double last_noise_var() const = 0;
    /*! Calls of work() that caught an exception: logged, and the samples searched in
     *  that call passed over (docs/reliability.md). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
