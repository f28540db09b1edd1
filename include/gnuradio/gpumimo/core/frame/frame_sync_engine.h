/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_FRAME_SYNC_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_FRAME_SYNC_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/frame.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*! One frame a frame_sync_engine found whole and corrected. */
struct synced_frame {
    /*! Its first sample in the call's input (search_step's start). */
    std::size_t start = 0;
    /*! The carrier offset taken off, cycles per sample (frame_corrector::correct's). */
    double cfo = 0;
    /*! find_frame's timing metric at the estimate. */
    double metric = 0;
    /*! Every input sample of the frame usable (frame_corrector::last_input_finite);
     *  if not, its corrected samples are not to be used. */
    bool usable = true;
};

/*! What one frame_sync_engine::search() call did. */
struct sync_call_result {
    /*! Samples of every antenna the stream moves on (the next call starts there). */
    std::size_t consumed = 0;
    /*! Frames found whole, written to frames[0..) and out. */
    std::size_t frames = 0;
};

/*!
 * \brief The synchroniser's whole search over a buffer, on one backend: the loop of
 * search_step (core/frame/frame_receiver.h) from the buffer's first sample, window after
 * window, while a frame and a margin remain, each frame found whole corrected by
 * frame_corrector. The CPU engine is that loop (the reference); the CUDA engine
 * computes find_frame's metric at every position at once, runs the same loop over it in
 * one thread block, and corrects the frames on the device, finding the same frames
 * (start, metric and offset to rounding; docs/frame.md).
 */
class frame_sync_engine
{
public:
    virtual ~frame_sync_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    /*!
     * Searches antenna a's n samples at in[a] (n <= the factory's max_input) for at most
     * max_frames whole frames (<= the factory's max_frames); frame k's corrected samples
     * go to out[a] + k * frame.samples() (host memory; on the CUDA engine also device
     * memory, a device-resident stream buffer), its description to frames[k].
     * first_sample: the stream position of in[a][0]. A call whose first_sample is the
     * last call's plus what it consumed continues that stream: in[a] then holds the
     * last call's unconsumed samples first, and the CUDA engine copies only the samples
     * after them (it kept the rest). threshold: search_step's (automatic_threshold for
     * sync_threshold()). std::invalid_argument for bad arguments.
     */
    virtual sync_call_result search(const std::complex<float>* const* in,
                                           std::uint64_t first_sample,
                                           std::size_t n,
                                           std::size_t max_frames,
                                           double threshold,
                                           std::complex<float>* const* out,
                                           synced_frame* frames) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*!
 * The synchroniser factory: the engine on `backend` ("auto", "cpu" or "cuda":
 * choose_backend()) on CUDA device `device`, the CPU engine beside a GPU one for the
 * fallback policy (core/engine.h). max_input: the most samples per antenna a call
 * searches (at least search_window(frame)); max_frames: the most frames a call returns
 * (>= 1). The CUDA engine allocates for them here and nothing in search().
 */
std::unique_ptr<frame_sync_engine> make_frame_sync_engine(const frame_format& frame,
                                                          int antennas,
                                                          std::size_t max_input,
                                                          std::size_t max_frames,
                                                          const std::string& backend,
                                                          int device = 0,
                                                          std::string* fallback_reason = nullptr);

/*! The CPU engine alone (the reference the CUDA engine is tested against). */
std::unique_ptr<frame_sync_engine> make_cpu_frame_sync_engine(const frame_format& frame,
                                                              int antennas,
                                                              std::size_t max_input,
                                                              std::size_t max_frames);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
