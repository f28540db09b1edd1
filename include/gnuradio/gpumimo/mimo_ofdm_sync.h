/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_OFDM_SYNC_H
#define INCLUDED_GPUMIMO_MIMO_OFDM_SYNC_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief Multi-antenna frame synchronisation for the MIMO-OFDM frame (docs/frame.md):
 * finds each frame by its preamble (Schmidl and Cox, summed over the antennas), corrects
 * its carrier frequency offset and passes exactly the frame on, aligned.
 * \ingroup gpumimo
 *
 * `antennas` inputs, as many outputs (complex float). Each frame found leaves as
 * frame.samples() samples per antenna starting a quarter of the preamble's cyclic
 * prefix early (core::find_frame), multiplied by e^{-2 pi i cfo t}, with a
 * "frame_start" tag on its first sample of every output, value a dict: frame (count
 * from 0), cfo (cycles per sample), metric (0..1), offset (input sample of the start).
 * Samples between frames are consumed. The carrier offset is found within +-1 carrier
 * spacing (the half-symbol repetition's phase); docs/frame.md gives the tested range.
 *
 * Never emits a damaged frame: a frame holding a non-finite sample, or a UHD "rx_time"
 * tag after its first sample (a radio overflow: samples are missing), is dropped,
 * counted and logged.
 *
 * pilot_interval (default 0): the frames' pilot blocks, as mimo_ofdm_tx's (it sets
 * how long a frame is).
 *
 * backend: where the search and the correction run (core::make_frame_sync_engine):
 * "cuda" on GPU `device` (the preamble metric at every position at once, the search in
 * one thread block, the correction on the device: the CPU only copies samples in and
 * frames out), "cpu" (core::search_step's loop), or "auto" (the default: the GPU when
 * one is usable, else the CPU, logged). Both find the same frames (docs/frame.md); a GPU
 * failure mid-run is logged and the block goes on on the CPU.
 */
class GPUMIMO_API mimo_ofdm_sync : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_ofdm_sync> sptr;

    /*! device_buffers: where the engine runs on the GPU, this block's ports
     *  in the receiver chain are device-resident stream buffers, docs/frame.md; false:
     *  host buffers, so that such a port can also feed a CPU block such as a display,
     *  which GNU Radio refuses for a device buffer, at the cost of the copies. */
    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     int antennas,
                     double threshold = 0,
                     const std::string& backend = "auto",
                     int device = 0,
                     bool device_buffers = true,
                     int pilot_interval = 0);

    /*! The detection threshold on the preamble metric, in (0, 1], or 0 (the default):
     *  automatic, core::sync_threshold for the frame and the antennas (the lowest that
     *  keeps false frames below 1e-14 per sample searched; for the small preset 0.40
     *  with 2 streams on 4 antennas, 0.22 with 4; 0.1 for lte20). Changes while running
     *  (thread-safe, the GRC callback), from the next search on.
     *  \throws std::invalid_argument outside [0, 1]. */
    virtual void set_threshold(double threshold) = 0;
    virtual double threshold() const = 0;
    /*! \throws std::invalid_argument outside [0, 1]: make()'s and set_threshold()'s check. */
    static void check_threshold(double threshold);
    /*! Frames passed on. */
    virtual std::uint64_t frames() const = 0;
    /*! Frames found but dropped (non-finite samples, overflow gaps). */
    virtual std::uint64_t dropped_frames() const = 0;
    /*! "cpu" or "cuda": where the search runs now. */
    virtual std::string backend() const = 0;
    /*! The last frame's carrier offset, cycles per sample. */
    virtual double last_cfo() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
