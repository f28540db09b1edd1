/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Part of the algorithm core: no GNU Radio, Boost or Python dependency.
 */
#ifndef INCLUDED_GPUMIMO_CORE_GPU_APSM_H
#define INCLUDED_GPUMIMO_CORE_GPU_APSM_H

#include <gnuradio/gpumimo/core/apsm/apsm.h>

#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace gpumimo {
namespace core {

/*!
 * \brief APSM detection of several users at once on a CUDA device.
 *
 * Users trained on the same training vectors share one dictionary (the training
 * vectors) and differ only in coefficients, so one pass over the dictionary serves
 * them all: each real received vector's distance to an entry and its Gaussian kernel
 * value are computed once and weighted by every user's coefficient (the paper's
 * "several vectors per block, dictionary slices in shared memory"). The dictionary's
 * entries come in pairs (a training vector's r1 and r2), and so do the received
 * vector's: the four kernel values of two pairs need only two dot products, which the
 * detector uses wherever some user weights both entries of a pair. Same result as
 * apsm_detect per user, in float32.
 *
 * The filters must agree in antennas (at most 16), input scale, kernel variance,
 * weights and dictionary (as apsm_train makes them from one training set); at most 8
 * users. Device buffers for up to max_symbols vectors are made by the constructor;
 * detect() allocates nothing. CUDA failures throw std::runtime_error naming the call;
 * a build without CUDA throws at construction.
 */
class gpu_apsm_detector
{
public:
    gpu_apsm_detector(const std::vector<apsm_filter>& users,
                      std::size_t max_symbols,
                      int device = 0);
    ~gpu_apsm_detector();
    gpu_apsm_detector(const gpu_apsm_detector&) = delete;
    gpu_apsm_detector& operator=(const gpu_apsm_detector&) = delete;

    /*! Detector for up to `users` filters of `antennas` antennas with dictionaries of
     *  up to max_entries entries; set_filters() gives it its filters. */
    gpu_apsm_detector(int antennas,
                      int users,
                      std::size_t max_entries,
                      std::size_t max_symbols,
                      int device = 0);

    /*! Replaces the filters (same rules as the first constructor; no more users and
     *  entries than made for): copies them to the device, allocates nothing. */
    void set_filters(const std::vector<apsm_filter>& users);

    int users() const;
    /*! rx: n vectors (symbol x antenna, row-major); soft: users x n, user-major.
     *  n <= max_symbols. Non-finite input gives NaN soft symbols for that vector. */
    void detect(const std::complex<float>* rx, std::size_t n, std::complex<float>* soft);
    /*! detect() without waiting: the call's copy up, kernel and copy down are queued on
     *  one of four streams, each with its own device buffers, so that successive calls
     *  overlap (one's copies with another's kernel; page-locked rx and soft are needed
     *  for that: from pageable memory the copies do not overlap). From page-locked
     *  memory the call is one launch of the stream's CUDA graph, made by its first call
     *  of a given n (and again after set_filters) and pointed at each call's buffers.
     *  Until finish(), rx and soft must stay valid and soft is not final. A fifth
     *  submit() first waits for the first. Throws std::invalid_argument as detect()
     *  does, before queuing anything. */
    void submit(const std::complex<float>* rx, std::size_t n, std::complex<float>* soft);
    /*! Waits for every submitted call; set_filters() calls it first. */
    void finish();
    /*! The kernel time of the last detect() (submitted calls are not timed), CUDA
     *  events, in milliseconds. */
    float last_kernel_ms() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

/*!
 * \brief APSM training of several users at once on a CUDA device: the same filters as
 * apsm_train gives each user (in float32 rather than double).
 *
 * All users learn from the same received training vectors, so the Gaussian kernel
 * values between every pair of training samples (their Gram matrix) are computed once,
 * by all the GPU's threads, and every training step only reads them. Each user is one
 * warp that walks through the training steps; the filter values of the window's
 * samples are kept and updated with each step's coefficient changes (the window's
 * kernel values times the new coefficients) instead of being evaluated over the whole
 * dictionary again; a sample entering the window is evaluated over the dictionary once
 * from the Gram matrix. The same arithmetic as the reference, far less of it. The least-
 * squares start (ls_init) is solved on the device too, in double, one factorisation
 * for all users.
 *
 * The device memory for up to max_symbols training symbols, including the
 * (2 max_symbols)^2 float Gram matrix, is allocated by the constructor (max_symbols at
 * most 4096: 256 MiB); train() allocates nothing on the device. The norm bound
 * (apsm_params::norm_bound > 0) is not implemented here: the constructor refuses it
 * (std::invalid_argument); apsm_train does it. CUDA failures throw std::runtime_error
 * naming the call; a build without CUDA throws at construction.
 */
class gpu_apsm_trainer
{
public:
    gpu_apsm_trainer(const apsm_params& params,
                     int antennas,
                     int users,
                     std::size_t max_symbols,
                     int device = 0);
    ~gpu_apsm_trainer();
    gpu_apsm_trainer(const gpu_apsm_trainer&) = delete;
    gpu_apsm_trainer& operator=(const gpu_apsm_trainer&) = delete;

    /*! rx: n received training vectors (symbol x antenna, row-major); sent: users x n
     *  training symbols, user-major. n <= max_symbols. Returns each user's filter, with
     *  its noise variance from the training residual, as apsm_train does. Throws
     *  std::invalid_argument for the input apsm_train refuses. */
    std::vector<apsm_filter>
    train(const std::complex<float>* rx, std::size_t n, const std::complex<float>* sent);
    /*! The same into `filters` (resized to the users), reusing their storage: no
     *  allocation when the sizes repeat, for a receiver that retrains often. After an
     *  exception their contents are unspecified. */
    void train(const std::complex<float>* rx,
               std::size_t n,
               const std::complex<float>* sent,
               std::vector<apsm_filter>& filters);

    /*! The device time of the last train() (least squares, Gram matrix, training,
     *  residuals; CUDA events), in milliseconds. */
    float last_kernel_ms() const;
    /*! The same time by stage: least squares and Gram matrix, training steps,
     *  residuals (ms). */
    struct stage_ms {
        float gram = 0, steps = 0, residual = 0;
    };
    stage_ms last_stage_ms() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace core
} // namespace gpumimo
} // namespace gr

#endif
