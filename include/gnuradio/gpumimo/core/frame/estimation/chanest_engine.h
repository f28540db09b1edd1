/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_CHANEST_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_CHANEST_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/estimate_items.h>
#include <gnuradio/gpumimo/core/frame/frame.h>
#include <gnuradio/gpumimo/core/frame/frame_receiver.h>

#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief Frames after the receiver's FFT as mimo_chanest finds them in its inputs: each
 * antenna's stream of OFDM symbols on every used carrier, and where the frames start.
 */
struct chanest_batch {
    /*! [rx] -> antenna r's symbols, [symbol][used carrier]. */
    const std::complex<float>* const* in = nullptr;
    /*! [frames]: frame f's first symbol (its preamble) from in[r], ascending, the frames
     *  not overlapping. */
    const std::size_t* frame_at = nullptr;
    std::size_t frames = 0;
    /*! [rx] -> out: the frames' payload symbols back to back, [frame][payload
     *  symbol][used carrier] (the pilot blocks of a frame tracked in time left out),
     *  each symbol turned back by its phase. Host memory
     *  for the host engine; host or device memory (a device-resident stream buffer) for
     *  the GPU engine, as `in`. */
    std::complex<float>* const* payload = nullptr;
    /*! [frames] out: 1 where frame f's samples are usable on every antenna
     *  (core::all_usable: finite, within max_sample_magnitude), 0 where not; such a
     *  frame's estimate is left as it was and its payload slot holds nothing of use.
     *  Host memory. */
    unsigned char* usable = nullptr;
    /*! Where not null: frame f's estimate as mimo_chanest's estimate record
     *  (core::estimate_items: H, then the detectors' noise per carrier) at
     *  records + f * record_stride bytes, in host or device memory as `payload`. A frame
     *  with pilot blocks has a record per payload symbol (its estimate interpolated in
     *  time, core::interpolate_estimate): symbol s's at records + f * record_stride +
     *  s * estimate_items::item_bytes(). An unusable frame's records hold nothing of
     *  use. The GPU engine writes the records on the device, so that the estimates reach
     *  a device-resident estimate stream without going through the host. */
    unsigned char* records = nullptr;
    /*! Bytes from one frame's records to the next's, at least
     *  estimate_items::frame_record_bytes(). */
    std::size_t record_stride = 0;
};

/*!
 * \brief mimo_chanest's work on a batch of frames, on one backend: each frame's channel
 * estimate (core::estimate_channel: least squares, the noise variance, smoothing over
 * frequency, the effective noise; with pilot blocks each block's, and each payload
 * symbol's interpolated between them, core/frame/estimation/time_tracking.h) and its payload turned
 * back by the tracking pilots' phase (core::phase_tracker).
 *
 * The host engine is those references, frame by frame (the smoothing of a batch in one
 * smoothing_engine call); the GPU engine copies the frames in, runs the same steps as
 * kernels (the fused receiver's: frame/estimation_kernels.cuh, gpu_channel_smoother) and
 * copies the payload and the estimates out, one round trip for the batch, DMA in place
 * where the caller's memory is page-locked (a block's registered stream buffers).
 */
class chanest_engine
{
public:
    virtual ~chanest_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*! The most frames one estimate() call takes: the factory's max_frames. */
    virtual std::size_t max_frames() const = 0;
    /*! Estimates batch.frames (1..max_frames()) frames: estimates[f] gets frame f's
     *  estimate (a frame tracked in time: its first pilot block's; the symbols' own are
     *  the records) (the vector grown to the batch, never shrunk: its estimates' storage is
     *  reused), batch.payload the frames' derotated payload, batch.usable which frames
     *  were usable (the others' samples are checked, not estimated: on the GPU where
     *  they lie, so that a device-resident input never comes to the host for it);
     *  std::invalid_argument for a batch of the wrong form. */
    virtual void estimate(const chanest_batch& batch, std::vector<channel_estimate>& estimates) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The factory: the engine on `backend` ("auto", "cpu" or "cuda": choose_backend()) on
 *  CUDA device `device`, the host engine beside a GPU one for the fallback policy
 *  (core/engine.h), for frames of `frame` received on rx antennas. */
std::unique_ptr<chanest_engine> make_chanest_engine(const frame_format& frame,
                                                    channel_estimator method,
                                                    int rx,
                                                    const std::string& backend,
                                                    int device = 0,
                                                    std::string* fallback_reason = nullptr,
                                                    std::size_t max_frames = 16);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
