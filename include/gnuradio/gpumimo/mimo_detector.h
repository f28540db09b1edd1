/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_DETECTOR_H
#define INCLUDED_GPUMIMO_MIMO_DETECTOR_H

#include <gnuradio/gpumimo/api.h>
#include <gnuradio/gpumimo/core/detect/detector_spec.h>
#include <gnuradio/sync_interpolator.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief Soft-output MIMO detection of OFDM payload symbols with any detector of the
 * core, on the GPU or the CPU.
 * \ingroup gpumimo
 *
 * `antennas` inputs, each a vector of the used carriers per payload symbol (as
 * mimo_chanest passes them on, turned back by the tracking pilots' phase); the data
 * carriers among them are detected (core::data_carriers); one output of LLRs, float or int8 (q = round(llr *
 * int8_scale), clamped to +-127), bits_per_symbol() per payload symbol in the frame's
 * bit order (docs/frame.md: carrier-major, streams, bits), positive meaning 1. Each
 * symbol is detected with the channel of the last "mimo_chan_est" tag on input 0 (one H
 * per carrier for the frame's group of symbols: the core's mimo_batch with group = the
 * symbols of the frame in the call) and, as each carrier's N0, the tag's noise_eff (the
 * noise plus the estimate's error; its noise_var for every carrier when the tag has no
 * noise_eff); "frame_start" tags move to the symbol's first LLR. With payload_symbols
 * given and mimo_chanest's estimate output connected to the input after the antennas',
 * H and the noise per carrier come from there instead (the record at each tag, read
 * where it lies: device memory between GPU blocks; a frame that spans two calls keeps
 * its record in the block).
 *
 * detector: a core::detector_spec, any detector of the registry (docs/detectors/) with
 * all its parameters (Python: gpumimo.detector_spec("kbest", kbest_k=32), or just the
 * name); backend auto, cuda or cpu (batch_detector). Symbols before any channel
 * estimate, symbols with non-finite carriers and symbols whose channel is unusable
 * (non-finite, rank-deficient, noise not positive) leave as zero LLRs ("no
 * information"), counted and logged; a failed GPU call falls back to the CPU.
 */
class GPUMIMO_API mimo_detector : virtual public gr::sync_interpolator
{
public:
    typedef std::shared_ptr<mimo_detector> sptr;

    /*! device_buffers: where the engine runs on the GPU, this block's ports
     *  in the receiver chain are device-resident stream buffers, docs/frame.md; false:
     *  host buffers, so that such a port can also feed a CPU block such as a display,
     *  which GNU Radio refuses for a device buffer, at the cost of the copies.
     *  payload_symbols: the frames' payload symbols; where given (> 0) the block has an
     *  optional input after the antennas' for mimo_chanest's estimate output
     *  (core::estimate_items, one item per payload symbol): connected, each frame's H
     *  and noise per carrier come from there (in device memory between GPU blocks) and
     *  the mimo_chan_est tags only mark where frames start. pilot_interval: mimo_chanest's
     *  (frames with pilot blocks: a record per payload symbol in that input, each
     *  symbol tagged; without the input it takes no part). */
    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int antennas,
                     const core::detector_spec& detector = core::detector_spec(),
                     const std::string& backend = "auto",
                     bool int8_output = false,
                     float int8_scale = 8.0f,
                     int device = 0,
                     bool device_buffers = true,
                     int payload_symbols = 0,
                     int pilot_interval = 0);

    /*! The detector and its parameters. */
    virtual core::detector_spec detector() const = 0;
    /*! Changes the detector while running (thread-safe): the new engine is made in the
     *  caller's thread, on the block's backend, and takes over at the next call of the
     *  block's work(). \throws std::invalid_argument for a spec this configuration
     *  cannot take (the running detector is kept). */
    virtual void set_detector(const core::detector_spec& detector) = 0;

    /*! LLRs per payload symbol: data carriers x streams x bits per symbol. */
    virtual int bits_per_symbol() const = 0;
    /*! "cuda" or "cpu": where detection runs. */
    virtual std::string backend() const = 0;
    /*! Payload symbols detected. */
    virtual std::uint64_t symbols() const = 0;
    /*! Payload symbols that left as zero LLRs (no channel, bad samples, bad channel). */
    virtual std::uint64_t erased_symbols() const = 0;
    /*! Vectors whose search ran out of its node budget (psd_max_nodes, on the CPU): the
     *  best decision found so far stood for the ML one (logged, rate limited). */
    virtual std::uint64_t search_budget_hits() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
