/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_CHANNEL_SMOOTHER_H
#define INCLUDED_GPUMIMO_CORE_GPU_CHANNEL_SMOOTHER_H

#include <gnuradio/gpumimo/core/frame/estimation/channel_smoother.h>

#include <complex>
#include <cstddef>
#include <memory>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief channel_smoother on a CUDA device, for many frames at once (the fused
 * receiver's estimates stay on the device), the same model computed another way: per
 * frame the delay-domain taps (summed in double; a block per frame and channel); the
 * flat-profile system through the eigendecomposition of the fixed F^H F (cuSOLVER, at
 * construction: no per-frame factorisation); for lmmse the profile and the system over
 * the kept taps only, by Gauss-Jordan in double (the CPU reference: Cholesky of the
 * whole window); the error variance per carrier; the taps back to the carriers in
 * float. Everything is allocated by
 * the constructor for up to max_frames frames of rx x tx channels. ls_error_ratio: the
 * least-squares estimates' error variance over N0 (1 / streams for the frame's covered
 * pilots): channel_smoother's n0 is N0 times it. noise_samples: how many samples' mean
 * power each frame's N0 is (channel_smoother::smooth's n0_samples; 0: exact). CUDA
 * failures throw
 * std::runtime_error naming the call. Only in builds with CUDA.
 */
class gpu_channel_smoother
{
public:
    gpu_channel_smoother(const numerology& num,
                         channel_estimator method,
                         int rx,
                         int tx,
                         std::size_t max_frames,
                         int device = 0,
                         double ls_error_ratio = 1.0,
                         double noise_samples = 0);
    ~gpu_channel_smoother();
    gpu_channel_smoother(const gpu_channel_smoother&) = delete;
    gpu_channel_smoother& operator=(const gpu_channel_smoother&) = delete;

    channel_estimator method() const;

    /*! Device to device on `stream` (a cudaStream_t; nullptr: the default stream), the
     *  current device the constructor's: h [frame][carrier][rx][tx] least-squares
     *  estimates, replaced by the smoothed ones; n0 [frame] the noise variance N0;
     *  noise_eff [frame][carrier] gets N0 + tx * the error variance (effective_noise). A frame whose n0 is not
     *  finite and > 0 or whose estimates are not finite is left as it is, its noise_eff
     *  n0 (the detector then refuses it). frames <= max_frames. */
    void smooth_device(std::complex<float>* h,
                       const float* n0,
                       std::size_t frames,
                       float* noise_eff,
                       void* stream);

    /*! The same from and to host memory, synchronously, on the smoother's own stream
     *  (its device buffers made by the constructor): mimo_chanest's GPU path, the tests. */
    void smooth(std::complex<float>* h, const float* n0, std::size_t frames, float* noise_eff);

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
