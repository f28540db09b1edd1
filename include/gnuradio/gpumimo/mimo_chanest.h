/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUMIMO_MIMO_CHANEST_H
#define INCLUDED_GPUMIMO_MIMO_CHANEST_H

#include <gnuradio/block.h>
#include <gnuradio/gpumimo/api.h>

#include <cstdint>
#include <string>

namespace gr {
namespace gpumimo {

/*!
 * \brief MIMO channel estimation on the frame's pilots (docs/frame.md).
 * \ingroup gpumimo
 *
 * `antennas` inputs and outputs, each a vector of the used carriers per OFDM symbol
 * (the OFDM FFT block's output, aligned on the "frame_start" tags of mimo_ofdm_sync).
 * For every whole frame (preamble, Nt pilot symbols, payload symbols from a
 * "frame_start" tag on input 0) it estimates H per used carrier and the noise variance
 * (core::estimate_channel: least squares on the pilots, then smoothed over frequency by
 * `estimator`: "lmmse" (the default), "dft" or "ls", core/frame/estimation/channel_smoother.h),
 * and passes on the payload symbols only, each turned back by its common phase (the
 * tracking pilots', core::phase_tracker). The first payload symbol of every output
 * carries the "frame_start" tag, and that of output 0 a "mimo_chan_est" tag: a dict of
 * h (c32vector, [carrier][rx][tx], the layout of core::mimo_batch), noise_var (double,
 * N0), noise_eff (f32vector, per carrier: N0 plus the estimate's error, what the
 * detector takes as noise) and frame (count from 0): one H for the frame's group of
 * payload symbols, as gr-digital's ofdm_chanest_vcvc tags its taps.
 *
 * pilot_interval (the transmitter's, frame format 4, docs/frame.md "Tracking in time"):
 * frames with a block of pilot symbols after every pilot_interval payload symbols. Each
 * block is estimated as the first, each payload symbol gets H interpolated between the
 * blocks around it, and the blocks leave out: every payload symbol of output 0 carries
 * a mimo_chan_est tag of its own (in the estimate output, a record per symbol).
 *
 * Without equalized_outputs, one optional output after the antennas': the estimates as
 * a stream beside the payload (core::estimate_items: one item per payload symbol, the
 * frame's record of H and noise_eff spread over its payload symbols' items, or with
 * pilot blocks each symbol's record in its item; in one copy a batch), for
 * mimo_detector's estimate input (make it with payload_symbols and pilot_interval).
 * Connected, the tags carry no h and noise_eff (noise_var and frame only): no 150 KB
 * vector a frame on the host for lte20 4x4, and between two GPU blocks the estimates
 * stay on the device.
 *
 * equalized_outputs: up to `streams` more outputs after the antennas' (vectors of the
 * data carriers, one per payload symbol): stream k's MMSE-equalised payload symbols
 * (core::mmse_equalizer: the frame's filters, from the estimate and its effective
 * noise, made once and applied to each symbol; unbiased: noise-free points land on the
 * constellation), for constellation displays. Connect as many as wanted, in order.
 *
 * Symbols before the first tag and frames cut short by the next tag are dropped and
 * counted; a frame with non-finite carriers is dropped, counted and logged.
 *
 * backend: where the estimation runs (core::make_chanest_engine: the least squares,
 * the noise, the smoothing over frequency, the costly step, since an lte20 frame's LMMSE
 * smoothing takes tens of ms on a CPU core, and the tracking), "auto" (the default: the
 * GPU when one is usable), "cuda" on GPU `device`, or "cpu". On the GPU its inputs and
 * payload outputs are device-resident stream buffers (docs/frame.md): a GPU ofdm_fft
 * before it and a GPU mimo_detector after it read and write them on the device.
 */
class GPUMIMO_API mimo_chanest : virtual public gr::block
{
public:
    typedef std::shared_ptr<mimo_chanest> sptr;

    /*! device_buffers: where the engine runs on the GPU, this block's ports
     *  in the receiver chain are device-resident stream buffers, docs/frame.md; false:
     *  host buffers, so that such a port can also feed a CPU block such as a display,
     *  which GNU Radio refuses for a device buffer, at the cost of the copies. */
    static sptr make(const std::string& preset,
                     int streams,
                     const std::string& modulation,
                     int payload_symbols,
                     int antennas,
                     const std::string& estimator = "lmmse",
                     bool equalized_outputs = false,
                     const std::string& backend = "auto",
                     int device = 0,
                     bool device_buffers = true,
                     int pilot_interval = 0);

    /*! Frames estimated and passed on. */
    virtual std::uint64_t frames() const = 0;
    /*! Frames dropped (cut short or non-finite). */
    virtual std::uint64_t dropped_frames() const = 0;
    /*! "cpu" or "cuda": where the estimation runs now. */
    virtual std::string backend() const = 0;
    /*! The last frame's noise variance estimate. */
    virtual double last_noise_var() const = 0;
    /*! Calls of work() that caught an exception: logged through the block's logger, and
     *  the block went on with the items at hand dropped or erased (docs/reliability.md
     *  says how, block by block). */
    virtual std::uint64_t work_failures() const = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
