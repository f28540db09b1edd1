/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_SMOOTHING_ENGINE_H
#define INCLUDED_GPUMIMO_CORE_SMOOTHING_ENGINE_H

#include <gnuradio/gpumimo/core/engine.h>
#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>
#include <gnuradio/gpumimo/core/frame/frame.h>

#include <complex>
#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief A frame's channel estimates smoothed over frequency on one backend:
 * channel_smoother::smooth (the reference) or gpu_channel_smoother (from and to host
 * memory, up to max_frames frames a call), for the rx x tx channels and the number of
 * noise samples given at construction. estimate_channel takes it in place of a
 * channel_smoother, estimate_channels for several frames at once.
 */
class smoothing_engine
{
public:
    virtual ~smoothing_engine() = default;
    /*! "cpu" or "cuda": where the next call runs. */
    virtual const char* backend() const = 0;
    virtual channel_estimator method() const = 0;
    virtual int carriers() const = 0;
    /*! channel_smoother::smooth(h, rx, tx, n0, error_var, n0_samples) with the
     *  construction's rx, tx and n0_samples (std::invalid_argument for others). */
    virtual void smooth(std::complex<float>* h, int rx, int tx, double n0, float* error_var) = 0;
    /*! The most frames one smooth_frames() call takes: the factory's max_frames. */
    virtual std::size_t max_frames() const = 0;
    /*! smooth() of `frames` frames (1..max_frames()) in one call, frame f's estimates at
     *  h[f], its n0 at n0[f] and its error variances into error_var[f]: on the GPU one
     *  copy in, one set of kernels and one copy out for them all. */
    virtual void smooth_frames(std::complex<float>* const* h,
                               const double* n0,
                               float* const* error_var,
                               std::size_t frames,
                               int rx,
                               int tx) = 0;
    virtual gpu_fallback* fallback() { return nullptr; }
};

/*! The smoothing factory: the engine on `backend` ("auto", "cpu" or "cuda":
 *  choose_backend()) on CUDA device `device`, the CPU engine beside a GPU one for the
 *  fallback policy (core/engine.h). n0_samples as channel_smoother::smooth's. */
std::unique_ptr<smoothing_engine> make_smoothing_engine(const numerology& num,
                                                        channel_estimator method,
                                                        int rx,
                                                        int tx,
                                                        double n0_samples,
                                                        const std::string& backend,
                                                        int device = 0,
                                                        std::string* fallback_reason = nullptr,
                                                        std::size_t max_frames = 1);

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
